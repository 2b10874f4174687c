import Foundation
import Testing

/// The memory sampler the benchmarks use (`tree-rss.py`): it must add up every process of a
/// tree, grandchildren included, and stop counting those that ended. A sampler that read only
/// the command (as `/usr/bin/time` does) would report a third of what the tree below uses.
@Suite struct TreeRSSTests {
    static let sampler = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("tree-rss.py").path

    /// A Python program that holds `mib` MiB (pages touched, so resident), starts `child` if
    /// given, and lives `seconds` seconds.
    static func program(mib: Int, seconds: Double, child: String?) -> String {
        var lines = ["import subprocess, sys, time", "block = b'x' * (\(mib) * 1024 * 1024)"]
        if let child {
            lines.append("p = subprocess.Popen([sys.executable, '-c', \(pythonLiteral(child))])")
        }
        lines.append("time.sleep(\(seconds))")
        if child != nil { lines.append("p.wait()") }
        return lines.joined(separator: "\n")
    }

    static func pythonLiteral(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            .replacingOccurrences(of: "\n", with: "\\n") + "'"
    }

    struct Sample: Decodable {
        var peak_total_kib: Int
        var peak_parent_kib: Int
        var peak_process_kib: Int
        var max_processes: Int
        var samples: Int
        var exit_status: Int
        var write_bytes: Int
    }

    static func run(_ code: String) throws -> (Sample, Int32) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tree-rss-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("out.json").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", sampler, "--interval", "0.1", "--json", json, "--", "python3", "-c", code]
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let sample = try JSONDecoder().decode(Sample.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        return (sample, p.terminationStatus)
    }

    /// Three generations holding 40, 30 and 20 MiB: the sum is at least 90 MiB (each Python adds
    /// its own ~10 MiB), the parent alone about 40.
    @Test func sumsTheWholeTree() throws {
        let grandchild = Self.program(mib: 20, seconds: 1.5, child: nil)
        let child = Self.program(mib: 30, seconds: 1.5, child: grandchild)
        let (s, status) = try Self.run(Self.program(mib: 40, seconds: 1.5, child: child))
        #expect(status == 0)
        #expect(s.exit_status == 0)
        #expect(s.max_processes == 3)
        #expect(s.samples >= 5)
        #expect(s.peak_total_kib >= 90 * 1024, "the sum missed a process: \(s.peak_total_kib) KiB")
        #expect(s.peak_total_kib <= 90 * 1024 + 3 * 25 * 1024, "the sum counted more than the tree: \(s.peak_total_kib) KiB")
        #expect(s.peak_parent_kib >= 40 * 1024 && s.peak_parent_kib < 40 * 1024 + 25 * 1024)
        #expect(s.peak_process_kib == s.peak_parent_kib)
    }

    /// A child that ended no longer counts: two children one after the other, 60 MiB each, never
    /// add up to 120.
    @Test func countsOnlyTheLiving() throws {
        let child = Self.program(mib: 60, seconds: 0.8, child: nil)
        let code = """
            import subprocess, sys
            for _ in range(2):
                subprocess.run([sys.executable, '-c', \(Self.pythonLiteral(child))])
            """
        let (s, _) = try Self.run(code)
        #expect(s.peak_total_kib >= 60 * 1024)
        #expect(s.peak_total_kib < 110 * 1024, "an ended child was still counted: \(s.peak_total_kib) KiB")
        #expect(s.max_processes == 2)
    }

    /// Bytes written to storage are counted for the tree: a child that writes and syncs 8 MiB.
    @Test func countsBytesWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tree-rss-io-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let child = """
            import os, time
            with open(\(Self.pythonLiteral(dir.appendingPathComponent("f").path)), 'wb') as f:
                f.write(b'z' * (8 << 20)); f.flush(); os.fsync(f.fileno())
            time.sleep(0.5)
            """
        let (s, _) = try Self.run(Self.program(mib: 1, seconds: 0.2, child: child))
        #expect(s.write_bytes >= 8 << 20, "\(s.write_bytes) bytes")
        #expect(s.write_bytes < 64 << 20)
    }

    /// The command's exit status comes through, so a benchmark sees a failed index.
    @Test func passesTheExitStatusOn() throws {
        let (s, status) = try Self.run("import sys; sys.exit(3)")
        #expect(s.exit_status == 3)
        #expect(status == 3)
    }
}
