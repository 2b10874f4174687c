import Foundation
import SystemPackage
import TestSupport
import Testing

/// Runs `command` through Tests/Harnesses/output_sinks.py: its stdout on a non-blocking pipe
/// read slowly (`nonblocking`) or on a pseudo-terminal (`tty`).
struct SinkResult {
    var status: Int32
    var stdout: Data
    var stderr: String

    static let harness = MCPClient.packageRoot.appendingPathComponent("Tests/Harnesses/output_sinks.py").path

    static func run(_ mode: String, _ command: [String], env: [String: String]) throws -> SinkResult {
        let r = try TestSupportRun.python([harness, mode] + command, env: env)
        guard r.status == 0, let o = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
              let status = o["status"] as? Int, let out = (o["stdout"] as? String).flatMap({ Data(base64Encoded: $0) }) else {
            throw MCPClient.DriverFailed(description: "output_sinks.py failed (exit \(r.status)): \(r.stderr)")
        }
        return SinkResult(status: Int32(status), stdout: out, stderr: o["stderr"] as? String ?? "")
    }
}

enum TestSupportRun {
    static func python(_ args: [String], env: [String: String]) throws -> CommandResult {
        try run(executable: "/usr/bin/env", ["python3"] + args, env: env, timeout: 300)
    }

    /// `program args` with its stdout redirected by the shell (`>/dev/full`, `1</dev/null`).
    static func redirected(_ redirection: String, _ program: String, _ args: [String], env: [String: String]) throws -> CommandResult {
        try run(executable: "/bin/sh", ["-c", "exec \"$0\" \"$@\" " + redirection,
                                                     Binaries.directory.appendingPathComponent(program).path] + args, env: env, timeout: 300)
    }
}

/// Output that cannot be written is an error, never lost in silence (issue 22, F11): a full
/// disk or a read-only stdout is exit 2 with a message; a non-blocking stdout gets every byte.
/// Through fsfind-direct, fsindex, and fsindexd answering the small fsfind.
@Suite("Output that cannot be written", .blocking, .serialized)
struct OutputSinkTests {
    /// Enough files that `--json budget` prints well over a pipe's 64 KiB.
    static func makeTree(_ tree: TemporaryTree) throws {
        for i in 0..<600 {
            try tree.create("root/reports/quarterly-budget-report-number-\(i)-with-a-long-name.txt",
                            contents: "The budget report \(i), with its figures.\n")
        }
    }

    static let fullDisk = "cannot write to standard output: No space left on device"
    static let readOnly = "cannot write to standard output: Bad file descriptor"

    @Test("issue 22 F11: fsfind-direct and fsindex: stdout on /dev/full or read-only is exit 2 with a message; a non-blocking stdout gets every byte")
    func direct() throws {
        let f = try CLIFixture()
        try Self.makeTree(f.tree)
        #expect(try f.fsindex("index", f.root).status == 0)
        let env = ["FSINDEX_INDEX_DIR": f.index]

        let full = try TestSupportRun.redirected(">/dev/full", "fsfind-direct", ["budget"], env: env)
        #expect(full.status == 2 && full.stderr.contains("fsfind-direct: " + Self.fullDisk), "\(full.status) \(full.stderr)")
        let closedForWriting = try TestSupportRun.redirected("1</dev/null", "fsfind-direct", ["budget"], env: env)
        #expect(closedForWriting.status == 2 && closedForWriting.stderr.contains(Self.readOnly), "\(closedForWriting.status) \(closedForWriting.stderr)")
        let show = try TestSupportRun.redirected(">/dev/full", "fsindex", ["show", f.root + "/reports/quarterly-budget-report-number-1-with-a-long-name.txt"], env: env)
        #expect(show.status == 2 && show.stderr.contains("fsindex: " + Self.fullDisk), "\(show.status) \(show.stderr)")
        let status = try TestSupportRun.redirected(">/dev/full", "fsindex", ["status"], env: env)
        #expect(status.status == 2 && status.stderr.contains(Self.fullDisk), "\(status.status) \(status.stderr)")

        let expected = try run("fsfind-direct", ["--json", "budget"], env: env)
        #expect(expected.status == 0 && expected.stdout.count > 150_000, "\(expected.stdout.count)")
        let slow = try SinkResult.run("nonblocking", [Binaries.directory.appendingPathComponent("fsfind-direct").path, "--json", "budget"], env: env)
        #expect(slow.status == 0 && slow.stdout.count == expected.stdout.count, "\(slow.stdout.count) of \(expected.stdout.count) bytes; \(slow.stderr)")
    }

    @Test("issue 22 F11: through fsindexd, the same: exit 2 with the message on the client's stderr, and every byte on a non-blocking pipe")
    func throughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try Self.makeTree(d.tree)
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["--count", "budget"], env: d.env).out == "600\n" }
            let env = d.env.merging(FindThroughDaemonTests.trace) { $1 }

            let full = try TestSupportRun.redirected(">/dev/full", "fsfind", ["budget"], env: env)
            #expect(full.stderr.contains("fsfind: answered by fsindexd"), "\(full.stderr)")
            #expect(full.status == 2 && full.stderr.contains("fsfind: " + Self.fullDisk), "\(full.status) \(full.stderr)")
            let closedForWriting = try TestSupportRun.redirected("1</dev/null", "fsfind", ["budget"], env: env)
            #expect(closedForWriting.stderr.contains("fsfind: answered by fsindexd"), "\(closedForWriting.stderr)")
            #expect(closedForWriting.status == 2 && closedForWriting.stderr.contains(Self.readOnly), "\(closedForWriting.status) \(closedForWriting.stderr)")

            let expected = try run("fsfind-direct", ["--json", "budget"], env: d.env)
            let slow = try SinkResult.run("nonblocking", [Binaries.directory.appendingPathComponent("fsfind").path, "--json", "budget"], env: env)
            #expect(slow.stderr.contains("fsfind: answered by fsindexd"), "\(slow.stderr)")
            #expect(slow.status == 0 && slow.stdout.count == expected.stdout.count, "\(slow.stdout.count) of \(expected.stdout.count) bytes; \(slow.stderr)")
            // The daemon is still there and answering.
            #expect(try run("fsfind", ["--count", "budget"], env: env).out == "600\n")
        }
    }
}
