import Foundation
import TestSupport
import Testing

/// An idle fsindex-mcp costs nothing: it sleeps in read(2) until a message comes (the SDK's own
/// stdio transport polled stdin every 10 ms).
@Suite("fsindex-mcp at rest", .blocking)
struct MCPIdleTests {
    /// The context switches of all of a process's threads, from /proc.
    static func switches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { $0 + switches(pid, task: $1) }
    }

    /// The voluntary and involuntary context switches of one thread, from /proc.
    static func switches(_ pid: Int32, task: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
        var total = 0
        for line in status.split(separator: "\n") where line.contains("ctxt_switches") {
            total += Int(line.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
        return total
    }

    /// The runtime itself wakes about once a second (libdispatch; issue 14's to remove), so the
    /// bound is a few a second, against the 100 a second the polling transport took.
    @Test("waiting for a client, the server's threads hardly wake (no stdin polling)")
    func idle() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha\n")
        #expect(try f.fsindex("index", f.root).status == 0)
        let p = Process()
        p.executableURL = Binaries.directory.appendingPathComponent("fsindex-mcp")
        p.arguments = ["--scope", f.root]
        p.environment = ["FSINDEX_INDEX_DIR": f.index, "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"]
        let stdin = Pipe()
        p.standardInput = stdin
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer { stdin.fileHandleForWriting.closeFile(); p.waitUntilExit() }
        letRealTimePass(1, for: "the server to settle")
        let before = Self.switches(p.processIdentifier)
        letRealTimePass(3, for: "a stretch of idle time, whose wake-ups are counted")
        let after = Self.switches(p.processIdentifier)
        #expect(p.isRunning)
        #expect(after - before < 15, "\(after - before) context switches in 3 s of waiting")
    }
}
