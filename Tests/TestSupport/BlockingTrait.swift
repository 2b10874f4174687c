#if canImport(Testing)
import Synchronization
import Testing

/// For a suite whose tests block their thread for long (they run the built programs, wait for
/// a daemon, inotify or a worker, or read the corpus): each test runs on threads of its own
/// (`ThreadPerJobExecutor`), at most `BlockingSlots.width` of them at once.
///
/// A key design decision: Swift Testing runs every test on the cooperative pool, two threads on
/// a 2-core machine. Two tests blocking those threads for minutes held every other test with
/// them; an async test's 120-s wait, started before, then timed out with nothing wrong (CI on
/// 6b30568: 300 quick tests reported "passed after 332 s", and a live query timed out waiting
/// for its first answer). Off the pool, the blocking tests still run two at a time, as before,
/// and the rest of the suite goes on beside them.
package struct BlockingTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? nil : self
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        // A suite inside a blocking suite has the trait twice: the inner one takes no second
        // slot, which with two slots could leave two tests each waiting for the other's.
        if Self.holdsSlot { return try await function() }
        await BlockingSlots.shared.acquire()
        defer { BlockingSlots.shared.release() }
        try await Self.$holdsSlot.withValue(true) {
            try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try await function() }
        }
    }

    @TaskLocal private static var holdsSlot = false
}

extension Trait where Self == BlockingTrait {
    /// See `BlockingTrait`.
    package static var blocking: Self { BlockingTrait() }
}

/// How many blocking tests run at once: a counting semaphore whose waiters suspend (a waiting
/// test holds no thread).
package final class BlockingSlots: Sendable {
    package static let width = 2
    package static let shared = BlockingSlots(width: width)

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    package init(width: Int) { state = Mutex(State(free: width)) }

    package func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.free > 0 { s.free -= 1; return true }
                s.waiting.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    package func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty { s.free += 1; return nil }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
#endif
