import Foundation
import SystemPackage
import TestSupport
import Testing

/// The fuzzing harness (issue 11): `fsindex-fuzz` and `Tests/Harnesses/fuzz.sh`.
///
/// The plain build's `fsindex-fuzz` replays inputs without libFuzzer, so every seed and every
/// input that once crashed a parser (`crash-*` in `Tests/Fuzz/corpus/TARGET`) is run on every
/// `swift test`. The sanitized fuzzing run itself is `fuzz.sh --runs N`, below.
@Suite("Fuzzing harness", .blocking)
struct LibFuzzerHarnessTests {
    /// `<checkout>`, from `<checkout>/Tests/CommandTests/LibFuzzerHarnessTests.swift`.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpus = checkout.appendingPathComponent("Tests/Fuzz/corpus")
    static let targets = ["query", "short-query", "rtf", "image", "audio", "media", "mail-structure", "zip", "worker-request", "worker-result"]

    @Test("every fuzz target has a seed corpus, and every corpus folder is a target")
    func targetsAndCorpus() throws {
        let usage = try run("fsindex-fuzz", ["no-such-target"], timeout: 60)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("unknown target \"no-such-target\""))
        let listed = usage.stderr.split(separator: "\n").filter { $0.hasPrefix("  ") }
            .map { String($0.split(separator: " ").first ?? "") }
        #expect(listed == Self.targets)
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(folders == Self.targets.sorted())
    }

    @Test("the seed corpus and every past finding replay without a crash", arguments: targets)
    func replay(_ target: String) throws {
        let folder = Self.corpus.appendingPathComponent(target)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count >= 3, "a target needs a few seeds to start from")
        let r = try run("fsindex-fuzz", [target, folder.path], timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("replayed \(files.count) input(s)"), "\(r.stderr)")
    }

    /// The sanitized build and 2,000 runs of every target: a cold build of every dependency with
    /// `-sanitize=fuzzer,address` (8 minutes on two busy cores), an incremental one after a
    /// change (seconds to 4 minutes), then about 2 minutes of fuzzing. Opt-in with
    /// `FSINDEX_FUZZ=1`: running beside the rest of the suite it starves the tests that wait
    /// for inotify events (their 30 s deadlines passed in two full runs), so CI runs it as a
    /// step of its own: `FSINDEX_FUZZ=1 swift test --skip-build --filter LibFuzzerHarnessTests`.
    @Test("fuzz.sh: 2,000 runs of every target under libFuzzer and AddressSanitizer find nothing",
          .enabled(if: ProcessInfo.processInfo.environment["FSINDEX_FUZZ"] == "1",
                   "the sanitized build and fuzzing run only with FSINDEX_FUZZ=1 (a CI step of their own)"))
    func fuzzRuns() async throws {
        let script = Self.checkout.appendingPathComponent("Tests/Harnesses/fuzz.sh").path
        let r = try await offPool { try run(executable: script, ["--runs", "2000"], timeout: 45 * 60) }
        #expect(r.status == 0, "fuzz.sh found something or could not build:\n\(r.out)\n\(r.stderr)")
        let rows = r.lines.filter { !$0.hasPrefix("target ") }
        #expect(rows.map { String($0.split(separator: " ").first ?? "") } == Self.targets.sorted(), "\(r.out)")
        for row in rows { #expect(row.hasSuffix(" ok"), "\(row)") }
    }

    @Test("a file that cannot be read is an error, not a silent skip")
    func unreadableInput() throws {
        let r = try run("fsindex-fuzz", ["rtf", "/nonexistent/crash-1"], timeout: 60)
        #expect(r.status == 1)
        #expect(r.stderr.contains("/nonexistent/crash-1: No such file or directory"))
    }
}
