import ServiceLifecycle

/// A part that runs on a thread or dispatch source of its own from the moment it is made (the
/// control server's threads, the inotify monitors): a service that waits for the group's
/// shutdown, then stops it. Its place in the group says when it stops.
struct UntilShutdown: Service {
    let stop: @Sendable () -> Void

    func run() async {
        // Cancelled rather than shut down: stopped all the same.
        try? await gracefulShutdown()
        stop()
    }
}
