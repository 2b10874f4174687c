import Configuration
import Logging
import ServiceLifecycle
import UnixSignals
import Watching

/// SIGHUP: the config is read again and handed to the writer and the volumes. A config that
/// does not parse is logged and changes nothing. (SIGTERM and SIGINT are the group's own: its
/// graceful shutdown.)
struct HangupService: Service {
    let readSettings: @Sendable () throws -> Settings
    let daemon: IndexDaemon
    let volumes: VolumeIndexer
    let logger: Logger

    func run() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            do {
                let settings = try readSettings()
                daemon.submit(.reload(settings))
                volumes.reload(settings)
            } catch {
                logger.error("config not reloaded: \(error)")
            }
        }
    }
}
