import ServiceLifecycle
import SharedIndex
import Watching

/// The shared-index feeder: publishes this machine's changes until shutdown, without waiting for
/// a pass under way (`SharedFeeder.run`).
struct FeederService: Service {
    let feeder: SharedFeeder

    func run() async {
        await cancelWhenGracefulShutdown { [feeder] in await feeder.run(clock: TimerClock()) }
    }
}

/// The volumes `[volumes]` chooses, each indexed by a daemon of its own while it is mounted;
/// at shutdown each is stopped and its copy written (`VolumeIndexer.run`).
struct VolumesService: Service {
    let volumes: VolumeIndexer

    func run() async {
        await withTaskCancellationOrGracefulShutdownHandler {
            await volumes.run()
        } onCancelOrGracefulShutdown: { [volumes] in
            volumes.stop()
        }
    }
}
