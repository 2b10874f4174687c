import ServiceLifecycle
import Watching

/// The single writer (`IndexDaemon`): the watcher's events, the control socket's requests and
/// the background passes, applied in order. It stops when the group shuts down (SIGTERM, SIGINT,
/// another service's end) and ends the group when it stops on its own: a `shutdown` request, or
/// a failure, which `run()` throws so that fsindexd exits 1.
struct WriterService: Service {
    let daemon: IndexDaemon

    func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await daemon.run()
        } onCancelOrGracefulShutdown: { [daemon] in
            daemon.requestStop()
        }
        if let failure = daemon.failure { throw DaemonFailure(message: failure) }
    }
}

/// Why the writer stopped on its own (its database deleted or replaced under it), as the log's
/// last line says it.
struct DaemonFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
