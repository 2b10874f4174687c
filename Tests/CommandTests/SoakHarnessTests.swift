import Foundation
import TestSupport
import Testing

/// The soak (issue 40, "a day of use, compressed"): `Tests/Benchmarks/soak.sh --minutes 5`, the
/// short version of the 2-hour run. fsindexd watches a small bench corpus while a seeded churn
/// generator works in it (files and folders created, changed, renamed, moved, deleted; a git
/// clone and checkouts; a 20,000-file tarball unpacked and removed; a 1 GB copy; editor saves;
/// donations) and fsfind and fsindex-mcp are asked about 50 queries a second with a burst of
/// 5,000. The script fails on a crash or restart, a difference between the index and the disk
/// after settling, a query unanswered, or descriptors or threads of the last minute more than
/// 10 % above those of the first minute after the first reconcile (the 2-hour run's rule, with
/// 10-minute windows, scaled down). RSS is reported: five minutes are the daemon's warm-up, and
/// only runs of an hour or more judge it.
///
/// Opt-in with `FSINDEX_SOAK=1 swift test --skip-build --filter SoakHarnessTests`: its load beside
/// the rest of the suite would starve the tests that wait for inotify events. CI does not run it
/// yet: on this 2-core machine, shared with builds and other soaks, fsindexd fell behind the
/// churn and had not caught up when the settle time ran out (issue 40's note), so it would not
/// pass reliably; it is skipped there with this reason.
@Suite("The soak harness (issue 40)", .blocking, .serialized)
struct SoakHarnessTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = checkout.appendingPathComponent("Tests/Benchmarks/soak.sh").path
    static let makeCorpus = ProcessInfo.processInfo.environment["FSINDEX_MAKE_CORPUS"]
        ?? checkout.deletingLastPathComponent().appendingPathComponent("shared/bench/make-corpus.sh").path

    @Test("5 minutes of churn and queries: no crash or restart, the index equals the disk, every query answered, descriptors and threads within 10 % (RSS reported)",
          .enabled(if: ProcessInfo.processInfo.environment["FSINDEX_SOAK"] == "1",
                   "the soak runs only with FSINDEX_SOAK=1 (opt-in: not yet reliable beside other load, see README's Reliability)"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: makeCorpus),
                   "needs the bench corpus script (../shared/bench/make-corpus.sh beside the checkout, or FSINDEX_MAKE_CORPUS)"),
          .mcpClient)
    func fiveMinutes() async throws {
        var env = ["FSINDEX_MAKE_CORPUS": Self.makeCorpus]
        if case .success(let python) = MCPClient.python {
            // <venv>/bin/python -> <venv>
            env["FSINDEX_MCP_VENV"] = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().path
        }
        let environment = env
        let r = try await offPool {
            try run(executable: "/bin/bash", [Self.script, "--minutes", "5", "--seed", "40", "--settle-timeout", "600",
                                              "--bin", Binaries.directory.path],
                    env: environment, timeout: 45 * 60)
        }
        #expect(r.status == 0, "soak.sh failed (exit \(r.status)):\n\(r.out)\n\(r.stderr)")
        // The figures are there, and say what was held.
        #expect(r.out.contains("crash/restart: none"), "\(r.out)")
        #expect(r.out.contains("fsindex check: in step"), "\(r.out)")
        #expect(r.out.contains("show --json against the disk: no difference"), "\(r.out)")
        for resource in ["RSS_KiB", "descriptors", "threads"] {
            #expect(r.out.contains("  \(resource): "), "\(resource) missing from:\n\(r.out)")
        }
        let queries = r.lines.first { $0.hasPrefix("queries: ") } ?? ""
        #expect(queries.contains(", 0 failed, ") && queries.contains(" p99 "), "\(r.out)")
        // At least the 5,000 of the burst, and the steady load beside it.
        let count = Int(queries.dropFirst("queries: ".count).prefix { $0.isNumber }) ?? 0
        #expect(count > 5_000, "\(queries)")
        #expect(r.out.contains("result: PASS"), "\(r.out)")
    }
}
