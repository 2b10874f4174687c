import Foundation
import TestSupport
import Testing

/// Runs `Tests/Harnesses/fuzz-queries.sh` for a short while: a few hundred random and
/// adversarial queries through the real `fsfind`, each of which must exit 0, 1, 2 or 64, within
/// its time bound, without SQLite's words. The long run (`fuzz-queries.sh BIN 20000 SEED`) is
/// for people; each violation it finds becomes a test of its own (see `FSFindBoundsTests`).
@Suite("fsfind query fuzzing (issue 11)", .blocking)
struct FuzzHarnessTests {
    /// The harness, found from this file's place in the checkout.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Harnesses/fuzz-queries.sh").path
    }

    @Test("issue 11: 200 fuzzed queries: exit 0/1/2/64 only, no signal, no SQLite wording, each within 10 s")
    func shortRun() async throws {
        // A seed per day: the same run all day (a failure can be repeated), another tomorrow.
        let seed = Int(Date().timeIntervalSince1970 / 86400) % 30_000 + 1
        let r = try await offPool { try run(executable: "/bin/bash", [Self.script, Binaries.directory.path, "200", String(seed), "10"], timeout: 240) }
        #expect(r.status == 0, "seed \(seed):\n\(r.out)\n\(r.stderr)")
        #expect(r.out.contains("200 queries, 0 violations"), "\(r.out)")
    }
}
