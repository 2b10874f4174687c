import Foundation
import SystemPackage
import TestSupport
import Testing

/// The small fsfind hands its queries to the warm fsindexd over the query socket; the answer must
/// be byte for byte fsfind-direct's (stdout, stderr and exit status), and whatever the daemon
/// cannot answer the same way must be declined, so that fsfind-direct answers it.
@Suite("fsfind through fsindexd's query socket", .blocking, .serialized)
struct FindThroughDaemonTests {
    static let trace = ["FSFIND_TRACE": "1"]

    /// fsfind's stderr without its trace line.
    static func untraced(_ stderr: String) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("fsfind: answered by fsindexd") && !$0.hasPrefix("fsfind: fsindexd declined")
                && !$0.hasPrefix("fsfind: no fsindexd") }
            .joined(separator: "\n")
    }

    static func makeTree(_ d: DaemonFixture) throws {
        try d.tree.create("root/notes/budget.txt", contents: "The annual budget draft for the garden. " + String(repeating: "Seeds and tools cost money. ", count: 12))
        try d.tree.create("root/notes/plan.md", contents: "# Plan\n\nA budget plan, with a budget table.\n")
        try d.tree.create("root/other/letter.txt", contents: "Dear Ada, the budget is fine.\n")
        try d.tree.createBytes(directory: "root/other", name: Array("caf".utf8) + [0xE9] + Array(" budget.txt".utf8), contents: Array("budget cafe\n".utf8))
    }

    @Test("queries are answered by fsindexd exactly as fsfind-direct answers them")
    func sameAnswers() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try Self.makeTree(d)
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["budget"], env: d.env).lines.count == 4 }
            let cases: [[String]] = [
                ["budget"], ["--json", "budget"], ["-0", "budget"], ["--count", "budget"], ["--snippet", "budget"],
                ["--group-by", "kind", "budget"], ["--stats", "fileSize", "budget"], ["--explain", "budget", "-draft"],
                ["--sort", "name", "--reverse", "budget"], ["--limit", "2", "--offset", "1", "--sort", "name", "budget"],
                ["--onlyin", "notes", "budget"], ["--onlyin", "../root/other", "--name", "caf"],
                ["--json", "--attr", "summary", "garden"], ["nosuchwordzzq"], ["budget AND (draft"], ["kind:nonsense"],
                ["--onlyin", "missing-folder", "budget"], ["--index-dir", "../index", "budget"],
            ]
            for args in cases {
                let served = try run("fsfind", args, env: d.env.merging(Self.trace) { $1 }, cwd: d.root)
                let direct = try run("fsfind-direct", args, env: d.env, cwd: d.root)
                #expect(served.stderr.contains("fsfind: answered by fsindexd"), "\(args): \(served.stderr)")
                #expect(served.status == direct.status, "\(args)")
                #expect(served.stdout == direct.stdout, "\(args): \(served.out) against \(direct.out)")
                #expect(Self.untraced(served.stderr) == direct.stderr, "\(args)")
            }
            // The name that is not UTF-8 came out as its bytes (a pipe gets them raw).
            let raw = try run("fsfind", ["-0", "--name", "caf"], env: d.env)
            #expect(raw.stdout.split(separator: 0).contains { Array($0).contains(0xE9) })
        }
    }

    @Test("what the daemon cannot answer the same way is declined, and fsfind-direct answers it")
    func declined() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try Self.makeTree(d)
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["budget"], env: d.env).lines.count == 4 }
            let cases: [(args: [String], env: [String: String], reason: String)] = [
                (["--json", "budget"], ["TZ": "Asia/Tokyo"], "TZ differs"),
                (["budget"], ["HOME": "/nonexistent-home"], "HOME differs"),
                (["--help"], [:], "declined"),
                (["--limit", "0", "budget"], [:], "declined"),
                (["--config", "relative.toml", "budget"], [:], "a relative --config"),
            ]
            for c in cases {
                let served = try run("fsfind", c.args, env: d.env.merging(Self.trace) { $1 }.merging(c.env) { $1 }, cwd: d.root)
                let direct = try run("fsfind-direct", c.args, env: d.env.merging(c.env) { $1 }, cwd: d.root)
                #expect(served.stderr.contains("fsfind: fsindexd declined"), "\(c.args): \(served.stderr)")
                #expect(served.stderr.contains(c.reason), "\(c.args): \(served.stderr)")
                #expect(served.status == direct.status, "\(c.args)")
                #expect(served.stdout == direct.stdout, "\(c.args)")
                #expect(Self.untraced(served.stderr) == direct.stderr, "\(c.args)")
            }
            // Another user's fsfind cannot reach this daemon's socket (its folder is private):
            // it reads the index itself, and sees nothing it could not read anyway.
            if geteuid() == 0 {
                let nobody = try run("fsfind", ["budget"], env: d.env.merging(Self.trace) { $1 }, asUser: "65534")
                #expect(!nobody.stderr.contains("answered by fsindexd"), "\(nobody.stderr)")
            }
        }
    }

    @Test("a reader that goes away ends its answer, not the daemon; without a daemon fsfind reads the index")
    func closedReaderAndNoDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            for i in 0..<1000 { try d.tree.create("root/many/f\(i).txt", contents: "budget line \(i)\n") }
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["--count", "budget"], env: d.env).out == "1000\n" }
            // `fsfind --json budget | head -1`: the reader leaves after one line, long before the
            // answer (about 250 KB) is written, so the writer gets EPIPE.
            let fsfind = Binaries.directory.appendingPathComponent("fsfind").path
            let direct = Binaries.directory.appendingPathComponent("fsfind-direct").path
            for program in [fsfind, direct] {
                let sh = try run(executable: "/bin/sh", ["-c", "\"$0\" --json budget | head -1 >/dev/null", program],
                                 env: d.env, timeout: 60)
                #expect(sh.status == 0, "\(program): \(sh.stderr)")
                #expect(sh.stderr.isEmpty, "\(program): \(sh.stderr)")
            }
            // The daemon still answers.
            let after = try run("fsfind", ["--count", "budget"], env: d.env.merging(Self.trace) { $1 })
            #expect(after.out == "1000\n")
            #expect(after.stderr.contains("answered by fsindexd"), "\(after.stderr)")
            d.stop()
            let alone = try run("fsfind", ["--count", "budget"], env: d.env.merging(Self.trace) { $1 })
            #expect(alone.out == "1000\n")
            #expect(alone.stderr.contains("fsfind: no fsindexd"), "\(alone.stderr)")
        }
    }
}
