import Foundation
#if canImport(Testing)
import Testing
#endif
import Glibc

/// The one way a test waits for work that something real does on its own time: a daemon's
/// thread, a child process, the kernel's inotify, a PostgreSQL server. Such work has no clock
/// the test could move (waits the code makes on purpose go through `TestClock` instead), so the
/// condition is checked every `every` until it holds or `seconds` have passed. The limit is
/// only there so that something broken fails instead of hanging; a loaded machine is slow, not
/// wrong, so the limits are generous.
///
/// Returns whether the condition came true. `waitFor` records an issue, named by `what` and
/// followed by `context()` (a daemon's log), when it did not.
package func eventually(_ seconds: Double = 5, every: Duration = .milliseconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        let (s, atto) = every.components
        // A blocking wait: the caller is a thread of its own (`offPool`) or a synchronous test.
        usleep(useconds_t(s * 1_000_000 + atto / 1_000_000_000_000))
    }
    return try condition()
}

/// `eventually` for async tests: the wait suspends instead of blocking a cooperative thread.
package func eventually(_ seconds: Double = 5, every: Duration = .milliseconds(10), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: every)
    }
    return try condition()
}

/// Lets `seconds` of real time pass, for a test that measures what happens over a stretch of
/// time rather than waiting for a condition: an idle process's wake-ups, inotify's debounce, a
/// burst's quiet. `why` says what the time is for, at the call.
package func letRealTimePass(_ seconds: Double, for why: String) {
    usleep(useconds_t(seconds * 1_000_000))
}

/// `letRealTimePass` for async tests: suspends instead of blocking a cooperative thread.
package func letRealTimePass(_ seconds: Double, for why: String) async {
    try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
}

#if canImport(Testing)
/// Waits as `eventually` does, and records an issue naming `what` when the time ran out.
package func waitFor(_ what: String, seconds: Double = 120, every: Duration = .milliseconds(10),
                     context: () -> String = { "" }, _ condition: () throws -> Bool,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    if try !eventually(seconds, every: every, condition) {
        let more = context()
        let text = "timed out waiting for \(what)" + (more.isEmpty ? "" : "\n\(more)")
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}

/// `waitFor` for async tests.
package func waitFor(_ what: String, seconds: Double = 120, every: Duration = .milliseconds(10),
                     context: () -> String = { "" }, _ condition: () throws -> Bool,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
    if try await !eventually(seconds, every: every, condition) {
        let more = context()
        let text = "timed out waiting for \(what)" + (more.isEmpty ? "" : "\n\(more)")
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}
#endif
