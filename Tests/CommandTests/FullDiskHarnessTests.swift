import Foundation
import TestSupport
import Testing

/// A full disk under the index (issue 40): `Tests/Harnesses/full-disk.sh` puts the index folder
/// on a small loop-mounted ext4 image that fills during the first index and again during live
/// updates. Each time fsindexd must say which disk is full, keep the database sound, keep
/// answering queries, and, once space returns, bring the index back to the disk by itself,
/// without a restart.
@Suite("The full-disk harness (issue 40)", .blocking, .serialized)
struct FullDiskHarnessTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = checkout.appendingPathComponent("Tests/Harnesses/full-disk.sh").path

    @Test("the disk fills during the first index and during live updates: a clear message, nothing corrupt, queries answered, full recovery without a restart",
          .needsRootToMount,
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4") && FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
                   "needs mkfs.ext4 (e2fsprogs) and sqlite3"))
    func fullDisk() async throws {
        let r = try await offPool {
            try run(executable: "/bin/bash", [Self.script, Binaries.directory.path, "--timeout", "300"], timeout: 30 * 60)
        }
        #expect(r.status == 0, "full-disk.sh failed (exit \(r.status)):\n\(r.out)\n\(r.stderr)")
        for stage in ["first index", "live updates"] {
            #expect(r.out.contains("\(stage): fsindexd logged: "), "\(r.out)")
            #expect(r.out.contains("\(stage): space freed; the index equals the disk again"), "\(r.out)")
            #expect(r.out.contains("\(stage) (disk full): integrity_check ok"), "\(r.out)")
            #expect(r.out.contains("\(stage) (after recovery): integrity_check ok"), "\(r.out)")
        }
        #expect(r.out.contains("no crash, no restart"), "\(r.out)")
        #expect(r.out.contains("every check held"), "\(r.out)")
    }
}
