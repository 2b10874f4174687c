import Synchronization

extension SystemCall {
    /// Runs blocking `body` on a thread of its own, as `onThread` does, but returns nil as soon
    /// as the awaiting task is cancelled: the thread goes on to its end and its result is
    /// dropped. For work that cannot be interrupted (a round trip to a server that may be
    /// gone) and that a stopping process may abandon, so that it does not hold the stop: each
    /// of its steps must leave things consistent when the process exits mid-way.
    package static func onThreadUnlessCancelled<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        let slot = AbandonableResult<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                guard slot.wait(continuation) else { return }
                let started = startThread(detached: true) { slot.deliver(body()) }
                if case .failure = started { slot.deliver(body()) }
            }
        } onCancel: {
            slot.deliver(nil)
        }
    }
}

/// The one resumption of `onThreadUnlessCancelled`'s continuation: by the thread's result or
/// by cancellation, whichever comes first.
private final class AbandonableResult<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T?, Never>?, cancelled: Bool)>((nil, false))

    /// Keeps the continuation; false (and resumed with nil) if the task was already cancelled.
    func wait(_ continuation: CheckedContinuation<T?, Never>) -> Bool {
        let cancelled = state.withLock { s in
            if !s.cancelled { s.continuation = continuation }
            return s.cancelled
        }
        if cancelled { continuation.resume(returning: nil) }
        return !cancelled
    }

    /// Resumes the waiter with `value` (nil: cancelled), unless it was resumed already.
    func deliver(_ value: T?) {
        let waiting = state.withLock { s in
            if value == nil { s.cancelled = true }
            defer { s.continuation = nil }
            return s.continuation
        }
        waiting?.resume(returning: value)
    }
}
