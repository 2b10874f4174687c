import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 22: what went through fsindexd differently from the same command without it (F6, F9,
/// F14, F18's duplicate names), and a daemon held up by one client's parsing (F7). Each runs the
/// real binaries with and without a running fsindexd and expects the same answer.
@Suite("Through fsindexd as without it", .blocking, .serialized)
struct DaemonDoorTests {
    static func item(_ id: String, _ title: String, text: String = "") -> String {
        #"{"uniqueIdentifier":"\#(id)","attributes":{"title":"\#(title)","textContent":"\#(text)"}}"#
    }

    @Test("F6: FSINDEX_INDEX_DIR naming the daemon's index (not its default) is answered from that index")
    func indexFromClientEnvironment() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/heron.txt", contents: "a grey heron by the water\n")
            // The daemon names its index on the command line; its own environment names none.
            try d.start(["--root", d.root, "--index-dir", d.tree.path("index").string], environmentWithout: ["FSINDEX_INDEX_DIR"])
            try d.waitFor("the file to be indexed") { try run("fsfind-direct", ["heron"], env: d.env).lines.count == 1 }
            let served = try run("fsfind", ["heron"], env: d.env.merging(["FSFIND_TRACE": "1"]) { $1 })
            #expect(served.stderr.contains("answered by fsindexd"), "\(served.stderr)")
            #expect(served.status == 0 && served.lines == [d.root + "/heron.txt"], "\(served.status) \(served.out) \(served.stderr)")
            #expect(!served.stderr.contains("no index"), "\(served.stderr)")
        }
    }

    @Test("F14: fsindex used DOMAIN:ID works while fsindexd runs, as without it")
    func usedDonatedThroughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.start()
            let batch = try d.tree.create("batch.jsonl", contents: Self.item("n1", "Osprey note") + "\n")
            let donated = try d.fsindex("donate", "--domain", "notes", batch.string)
            #expect(donated.status == 0 && donated.out.contains("fsindexd: donated 1 items"), "\(donated.out) \(donated.stderr)")
            let used = try d.fsindex("used", "notes:n1")
            #expect(used.status == 0 && used.out.contains("notes:n1: used once"), "\(used.out) \(used.stderr)")
            #expect(try d.fsindex("used", "notes:n1").out.contains("used 2 times"))
            #expect(try run("fsfind", ["used:<1d"], env: d.env).lines == ["notes:n1"])
        }
    }

    @Test("F9 and F18: a 19.7 MB batch and a name given twice get the same answer through fsindexd as without it")
    func sameBatchesBothWays() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let text = String(repeating: "plover ", count: 190_000 / 7)
            let big = (0..<100).map { Self.item("b\($0)", "Big \($0)", text: text) }.joined(separator: "\n") + "\n"
            #expect(big.utf8.count > 19_000_000)
            let bigFile = try d.tree.create("big.jsonl", contents: big).string
            let twice = try d.tree.create("twice.jsonl", contents: #"{"uniqueIdentifier":"t1","attributes":{"title":"first","title":"second"}}"# + "\n").string
            // 9007199254740993 is not a Double: it must not turn into …992 on one path only.
            let exact = try d.tree.create("exact.jsonl", contents: #"{"uniqueIdentifier":"e1","attributes":{"title":"Exact","textContent":"9007199254740993"}}"# + "\n").string

            // Without the daemon first, into the same index.
            let alone = try d.fsindex("donate", "--domain", "big", bigFile)
            #expect(alone.status == 0 && alone.out.contains("donated 100 items"), "\(alone.stderr)")
            let aloneTwice = try d.fsindex("donate", "--domain", "dup", twice)
            #expect(aloneTwice.status == 2 && aloneTwice.stderr.contains("appears twice"), "\(aloneTwice.stderr)")

            try d.start()
            let served = try d.fsindex("donate", "--domain", "big2", bigFile)
            #expect(served.status == 0 && served.out.contains("fsindexd: donated 100 items to big2"), "\(served.out) \(served.stderr)")
            let servedTwice = try d.fsindex("donate", "--domain", "dup", twice)
            #expect(servedTwice.status == 2 && servedTwice.stderr == aloneTwice.stderr, "\(servedTwice.stderr) against \(aloneTwice.stderr)")
            #expect(try d.fsindex("donate", "--domain", "exact", exact).status == 0)
            #expect(try run("fsfind", ["--domain", "big2", "plover"], env: d.env).lines.count == 100)
            #expect(try run("fsfind", ["9007199254740993"], env: d.env).lines == ["exact:e1"])
        }
    }

    @Test("F7: queries answer while a client's 21 KB line nested 500 deep and a 15 MB batch are on the socket")
    func queriesDuringHostileAndLargeRequests() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/wren.txt", contents: "a small wren sings\n")
            try d.start()
            try d.waitFor("the file to be indexed") { try run("fsfind-direct", ["wren"], env: d.env).lines.count == 1 }
            let socket = try #require(try Self.controlSocket(d))
            let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
            let hostile = #"{"request":"donate","domain":"notes","items":["#
                + Array(repeating: #"{"uniqueIdentifier":"n","attributes":{"keywords":"# + deep + "}}", count: 20).joined(separator: ",") + "]}"
            // The hostile client and a legitimate large batch, each by socat-like raw writes.
            let text = String(repeating: "finch ", count: 150)
            let batch = #"{"request":"donate","domain":"birds","items":["#
                + (0..<15_000).map { #"{"uniqueIdentifier":"f\#($0)","attributes":{"title":"Finch \#($0)","textContent":"\#(text)"}}"# }.joined(separator: ",") + "]}"
            #expect(batch.utf8.count > 2_000_000)
            let script = #"""
            import socket, sys, time
            def send(line):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(line.encode() + b"\n"); return s
            hostile = send(open(sys.argv[2]).read())
            big = send(open(sys.argv[3]).read())
            for name, s in (("hostile", hostile), ("batch", big)):
                s.settimeout(120); print(name, s.recv(4096).decode().strip(), flush=True)
            """#
            let py = try d.tree.create("client.py", contents: script).string
            let hostileFile = try d.tree.create("hostile.json", contents: hostile).string
            let batchFile = try d.tree.create("batch.json", contents: batch).string
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [py, socket, hostileFile, batchFile]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            // Meanwhile, queries through the daemon keep answering.
            for _ in 0..<5 {
                let r = try run("fsfind", ["wren"], env: d.env.merging(["FSFIND_TRACE": "1"]) { $1 }, timeout: 60)
                #expect(r.lines == [d.root + "/wren.txt"], "\(r.out) \(r.stderr)")
            }
            p.waitUntilExit()
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(said.contains("hostile") && said.contains("nested deeper than 32 levels"), "\(said)")
            #expect(said.contains("donated 15000 items to birds"), "\(said)")
        }
    }

    @Test("F18: fsfinds killed while their reader never reads do not hold the daemon's query slots")
    func killedClientsFreeTheirSlots() async throws {
        try await offPool {
            let d = try DaemonFixture()
            for i in 0..<1000 { try d.tree.create("root/many/f\(i).txt", contents: "budget line \(i)\n") }
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["--count", "budget"], env: d.env).out == "1000\n" }
            // Six fsfinds (more than the daemon's 4 slots) whose stdout is a pipe nobody reads:
            // each answer (250 KB) fills the pipe; then the fsfinds are killed, the pipes stay open.
            let script = #"""
            import os, signal, subprocess, sys, time
            readers, procs = [], []
            for _ in range(6):
                r, w = os.pipe()
                procs.append(subprocess.Popen([sys.argv[1], "--json", "budget"], stdout=w))
                os.close(w); readers.append(r)
            time.sleep(3)
            for p in procs: p.send_signal(signal.SIGKILL)
            for p in procs: p.wait()
            print("killed", flush=True)
            time.sleep(30)   # the read ends stay open, unread
            """#
            let py = try d.tree.create("stuck.py", contents: script).string
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [py, Binaries.directory.appendingPathComponent("fsfind").path]
            var e = ProcessInfo.processInfo.environment
            for (k, v) in d.env { e[k] = v }
            p.environment = e
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            defer { p.terminate(); p.waitUntilExit() }
            _ = out.fileHandleForReading.availableData   // "killed"
            var answered = false
            try d.waitFor("a query answered by fsindexd after its clients were killed", seconds: 20) {
                let r = try run("fsfind", ["--count", "budget"], env: d.env.merging(["FSFIND_TRACE": "1"]) { $1 }, timeout: 30)
                answered = r.stderr.contains("answered by fsindexd") && r.out == "1000\n"
                return answered
            }
            #expect(answered)
        }
    }

    /// The control socket's path, as `fsindex status --json` names it.
    static func controlSocket(_ d: DaemonFixture) throws -> String? {
        let r = try d.fsindex("status", "--json")
        let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        return obj?["socket"] as? String
    }
}
