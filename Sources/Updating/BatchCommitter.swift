import Dispatch
import Indexing
import Attributes
import Synchronization
import SystemCalls
import Glibc

/// Commits the batches that a crawl's extraction threads make, in the order they come, on a
/// thread of its own.
///
/// Why: SQLite takes one writer at a time, and a batch's transaction (its rows, the full-text
/// tables, the client state) is a large part of the parent's work. Committed by the extraction
/// thread itself, that thread's worker process waited idle through every transaction; handed
/// over, the thread sends the worker its next file at once. At most `capacity` batches wait, so
/// the extraction threads are held back (and memory stays bounded) when writing is the slower
/// side.
///
/// With `grouping` above 1, the batches that wait when the thread comes for more are committed
/// together, up to that many (one transaction instead of several, see `IndexUpdater`).
///
/// For example:
/// ```swift
/// let committer = BatchCommitter<[IndexEntry]>(capacity: 2) { entries in try? store.index(entries) }
/// committer.submit(entries)
/// committer.finish()   // returns once every batch handed over was committed
/// ```
final class BatchCommitter<Batch: Sendable>: @unchecked Sendable {
    private let commit: @Sendable ([Batch]) -> Void
    private let grouping: Int
    private let waiting = Mutex<[Batch?]>([])   // nil: no more batches
    private let ready = DispatchSemaphore(value: 0)
    private let slots: DispatchSemaphore
    private var thread: pthread_t?

    /// Starts the committing thread; without one (it could not be started), `submit` commits on
    /// the caller's thread.
    convenience init(capacity: Int, commit: @escaping @Sendable (Batch) -> Void) {
        self.init(capacity: capacity, grouping: 1) { batches in batches.forEach(commit) }
    }

    /// Commits up to `grouping` waiting batches with one call of `commit`.
    init(capacity: Int, grouping: Int, commit: @escaping @Sendable ([Batch]) -> Void) {
        self.commit = commit
        self.grouping = max(1, grouping)
        slots = DispatchSemaphore(value: max(1, capacity))
        if case .success(let t) = SystemCall.startThread({ [self] in run() }) { thread = t }
    }

    /// Hands a batch over; waits while `capacity` batches are already waiting.
    func submit(_ batch: Batch) {
        guard thread != nil else { return commit([batch]) }
        slots.wait()
        waiting.withLock { $0.append(batch) }
        ready.signal()
    }

    /// Returns once every batch handed over was committed. Call once, after the last `submit`.
    func finish() {
        guard let thread else { return }
        waiting.withLock { $0.append(nil) }
        ready.signal()
        pthread_join(thread, nil)
        self.thread = nil
    }

    private func run() {
        while true {
            ready.wait()
            // The first batch waiting, and those behind it (their `ready` signals are taken too).
            let (group, ended) = waiting.withLock { w -> ([Batch], Bool) in
                var group: [Batch] = []
                while let first = w.first, group.count < grouping {
                    guard let batch = first else { break }
                    w.removeFirst()
                    group.append(batch)
                }
                return (group, group.isEmpty)
            }
            if ended { return }
            for _ in 1..<group.count { ready.wait() }
            commit(group)
            for _ in group { slots.signal() }
        }
    }
}
