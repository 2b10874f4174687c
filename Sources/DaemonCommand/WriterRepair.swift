import Querying
import Watching

/// Results whose files are gone, as fsindexd's own query socket and search boxes meet them:
/// handed to its writer as a reindex, as the control socket's `reindex` request would be, but
/// without connecting to its own socket and waiting up to 2 s for itself (issue 42).
struct WriterRepair: StaleResultRepair {
    let daemon: IndexDaemon

    func forget(_ paths: [[UInt8]]) {
        guard !paths.isEmpty else { return }
        daemon.submit(.reindex(paths: paths, done: { _ in }))
    }
}
