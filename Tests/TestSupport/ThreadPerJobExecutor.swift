import Foundation

/// Runs each job it is given on a new thread: a test whose tasks must not wait for Swift's
/// cooperative pool (two threads on a 2-core machine, which the suite's long blocking tests can
/// hold for minutes) runs them with this executor preference (`offPool` in CommandTests, a
/// daemon's task in WatchingTests).
package final class ThreadPerJobExecutor: TaskExecutor, @unchecked Sendable {
    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
