import Controlling
import Desktop
import Watching

/// fsindexd's control socket: the index daemon's requests, and the desktop search boxes'
/// queries, answered here from the index this daemon keeps (`fsindex search-provider` asks for
/// each keystroke; see ``SearchBoxAnswers``).
struct DaemonControl: ControlHandler {
    let daemon: IndexDaemon
    let searchBox: SearchBoxAnswers

    func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
        guard case .searchBox(let query) = request else {
            daemon.handle(request, reply: reply)
            return
        }
        do {
            reply(.searchBoxHits(try searchBox.answer(query)))
        } catch {
            reply(.error(error.description))
        }
    }
}
