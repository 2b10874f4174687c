import Dispatch
import Synchronization

/// The clock fsindexd's waits run on when no other is given: `ContinuousClock`'s time, with each
/// sleep a one-shot timer on a serial dispatch queue of its own.
///
/// Why not `ContinuousClock` itself: on Linux, Swift 6.3's task sleep (which its `sleep`
/// is) schedules through the default executor's dispatch timer straight onto libdispatch's
/// global queue, whose first thread starts the workqueue monitor, a timer that then wakes the
/// process once a second for the rest of its life (issue 14). This clock's timer fires once, on
/// its own queue, and resumes the sleeping task through the global executor (`CGlobalExecutor`'s
/// overcommit queue); an idle daemon has no timer armed at all. A cancelled sleep cancels its
/// timer and throws `CancellationError` at once.
///
/// The daemon's waits (a missing root's grace period, the workers' idle time) take any
/// `Clock<Duration>`, so that tests can run them on a clock they move themselves.
package struct TimerClock: Clock {
    package typealias Instant = ContinuousClock.Instant

    package init() {}

    package var now: Instant { ContinuousClock.now }
    package var minimumResolution: Duration { ContinuousClock().minimumResolution }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let wait = Wait()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard wait.start(continuation) else { return }
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                let nanos = max(0, seconds) &* 1_000_000_000 &+ max(0, attoseconds) / 1_000_000_000
                let timer = DispatchWorkItem { wait.finish(nil) }
                wait.timer(timer)
                Self.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanos)), execute: timer)
            }
        } onCancel: {
            wait.finish(CancellationError())
        }
    }

    private static let queue = DispatchQueue(label: "fsindexd.timers")

    /// One sleep: its continuation, resumed exactly once, by the timer or by cancellation,
    /// whichever comes first (cancellation may even come before the sleep starts).
    private final class Wait: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Void, any Error>, Timer?)
            case done
        }
        private let state = Mutex<State>(.idle)

        /// A dispatch timer, whose `cancel()` may come from any thread.
        final class Timer: @unchecked Sendable {
            let item: DispatchWorkItem
            init(_ item: DispatchWorkItem) { self.item = item }
        }

        /// Takes the continuation; false (having resumed it) when the wait was cancelled already.
        func start(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
            let cancelled = state.withLock { s -> Bool in
                guard case .idle = s else { return true }
                s = .waiting(continuation, nil)
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        func timer(_ item: DispatchWorkItem) {
            let item = Timer(item)
            state.withLock { s in
                if case .waiting(let c, nil) = s { s = .waiting(c, item) }
            }
        }

        func finish(_ error: (any Error)?) {
            let taken = state.withLock { s -> (CheckedContinuation<Void, any Error>, Timer?)? in
                defer { s = .done }
                if case .waiting(let c, let t) = s { return (c, t) }
                return nil
            }
            guard let (continuation, timer) = taken else { return }
            if let error {
                timer?.item.cancel()
                continuation.resume(throwing: error)
            } else {
                continuation.resume()
            }
        }
    }
}
