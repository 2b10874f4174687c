import Foundation
import Testing

/// Waits for work a daemon under test does at once (a crawl, a batch, a purge its clock let
/// through), not for time to pass: checked every 10 ms, up to `seconds`, then recorded as an
/// issue. The limit is only there so that a broken daemon fails instead of hanging.
func waitFor(_ what: String, seconds: Double = 120, _ condition: () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else {
            Issue.record("timed out waiting for \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
