import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("The watcher-faults harness (issue 11)", .blocking, .serialized)
struct WatcherFaultsHarnessTests {
    /// `Tests/Harnesses/watcher-faults.sh` in this checkout.
    static var script: String {
        // #filePath = <checkout>/Tests/CommandTests/WatcherFaultsHarnessTests.swift
        FilePath(#filePath).removingLastComponent().removingLastComponent().appending("Harnesses/watcher-faults.sh").string
    }

    @Test("a short run: every fault (burst, renames, rm -rf, root moved and re-created, SIGKILL, a tiny watch budget) converges to the disk")
    func shortRun() async throws {
        let r = try await offPool {
            try run(executable: "/bin/bash", [Self.script, Binaries.directory.path, "--rounds", "1", "--files", "200", "--timeout", "60"],
                    timeout: 600)
        }
        // Every fault reported.
        for label in ["first crawl", "burst", "renames", "rm -rf", "root-moved", "probe after root-moved-1", "root-recreated",
                      "sigkill", "watch-budget", "budget restored"] {
            #expect(r.out.contains("round \(label == "first crawl" ? 0 : 1)  \(label)"), "\(label) missing from:\n\(r.out)\n\(r.stderr)")
        }
        // Each converged, the rename storm included (issue 40: under load its batches are
        // applied while the disk is far ahead of them).
        let notConverged = r.out.split(separator: "\n").filter { $0.contains("NOT converged") }
        #expect(notConverged.isEmpty, "\(r.out)\n\(r.stderr)")
        #expect(r.status == 0, "\(r.out)\n\(r.stderr)")
        #expect(r.out.contains("11 faults converged"), "\(r.out)")
    }
}
