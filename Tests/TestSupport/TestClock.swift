import Synchronization

/// A clock that moves only when the test moves it, for the tests of waits (a grace period, an
/// idle time): `advance(by:)` wakes exactly the sleeps that are due, at once, so a 300 s wait
/// takes no time and a loaded machine cannot make it late or early.
///
/// For example:
/// ```swift
/// let clock = TestClock()
/// let daemon = IndexDaemon(…, clock: clock)
/// … something that waits 300 s on the clock …
/// await clock.sleeping(until: clock.now.advanced(by: .seconds(300)))   // the wait has begun
/// clock.advance(by: .seconds(299))   // not yet
/// clock.advance(by: .seconds(1))     // now it ends
/// ```
package final class TestClock: Clock, Sendable {
    package struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        package var offset: Duration

        package init(offset: Duration) { self.offset = offset }
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
        package var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they began.
        var cancelled: Set<Int> = []
        var nextID = 0
        /// Tests waiting for a sleep to begin (`sleeping(until:)`).
        var watchers: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// The deadlines of the sleeps under way, earliest first.
    package var deadlines: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case now, cancelled, waiting([CheckedContinuation<Void, Never>]) }
                let start = state.withLock { s -> Start in
                    if s.cancelled.remove(id) != nil { return .cancelled }
                    if deadline <= s.now { return .now }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let woken = s.watchers.filter { $0.deadline == deadline }.map(\.continuation)
                    s.watchers.removeAll { $0.deadline == deadline }
                    return .waiting(woken)
                }
                switch start {
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let watchers): for w in watchers { w.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper }
                s.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and ends every sleep that is then due, earliest first.
    package func advance(by duration: Duration) {
        let due = state.withLock { s -> [Sleeper] in
            s.now = s.now.advanced(by: duration)
            let due = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once a sleep until exactly `deadline` is under way (at once if one is already).
    package func sleeping(until deadline: Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = state.withLock { s -> Bool in
                if s.sleepers.values.contains(where: { $0.deadline == deadline }) { return true }
                s.watchers.append((deadline, continuation))
                return false
            }
            if already { continuation.resume() }
        }
    }
}
