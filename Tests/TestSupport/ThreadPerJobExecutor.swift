import SystemCalls

/// Runs each job it is given on a new thread: a test whose tasks must not wait for Swift's
/// cooperative pool (two threads on a 2-core machine, which the suite's long blocking tests can
/// hold for minutes) runs them with this executor preference (`offPool` in CommandTests, a
/// daemon's task in WatchingTests).
package final class ThreadPerJobExecutor: TaskExecutor, @unchecked Sendable {
    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        // A new POSIX thread has glibc's default stack (RLIMIT_STACK, 8 MiB here), enough for
        // the deepest test; without a thread, the job runs here rather than never.
        let unchecked = UncheckedJob(job: job, executor: executor)
        if case .failure = SystemCall.startThread(detached: true, { unchecked.run() }) { unchecked.run() }
    }
}

/// A job and its executor, handed to the thread that runs it (an `UnownedJob` is run once, by
/// that thread only).
private struct UncheckedJob: @unchecked Sendable {
    let job: UnownedJob
    let executor: UnownedTaskExecutor
    func run() { job.runSynchronously(on: executor) }
}
