import Foundation
import QueryWire
import SystemPackage
import TestSupport
import Testing

/// Issue 22, F1: a client hands fsindexd its terminal (SCM_RIGHTS), its arguments, its working
/// folder and its environment. When `XDG_RUNTIME_DIR` is unset (su, sudo, cron), the socket's
/// folder is `/tmp/fsindex-<uid>`, which another user can create first. Nothing may be sent to a
/// folder that is not the user's alone, nor to a process of another user's. These run the real
/// binaries as two made-up users (uids without a passwd entry: setpriv takes any number), one of
/// them listening with a real socket.
@Suite("Socket clients send nothing to another user's socket", .blocking, .serialized, .needsRoot)
struct SocketTrustTests {
    static let victim: uid_t = 62_001
    static let attacker: uid_t = 62_002

    /// A listener run as the attacker: binds each name in `folder` (which the attacker owns), says
    /// it is ready, and reports what each connection sent.
    static let listener = #"""
    import os, socket, select, sys, time
    folder, log, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    names = sys.argv[4:]
    socks = []
    for n in names:
        s = socket.socket(socket.AF_UNIX)
        p = os.path.join(folder, n)
        s.bind(p); os.chmod(p, 0o777); s.listen(8); socks.append(s)
    with open(log + ".ready", "w") as f: f.write("ready")
    report = []
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select(socks, [], [], max(0.0, end - time.time()))
        for s in ready:
            c, _ = s.accept()
            c.settimeout(1.0)
            got = 0
            try:
                while True:
                    b = c.recv(65536)
                    if not b: break
                    got += len(b)
            except Exception: pass
            report.append("connection %d bytes" % got)
            c.close()
    with open(log, "w") as f: f.write("\n".join(report) or "nothing")
    """#

    struct Listener {
        let process: Process
        let log: String
        /// What the listener saw, once it has finished.
        func report() -> String {
            process.waitUntilExit()
            return (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no report)"
        }
    }

    /// Starts the listener in `folder`, made first as the attacker's own, world-writable (as the
    /// attacker would make it in a /tmp open to all; root makes it here, since /tmp may not be).
    static func startListener(in folder: String, names: [String], scratch: TemporaryTree, seconds: Double = 6,
                              as attacker: uid_t = attacker) throws -> Listener {
        _ = mkdir(folder, 0o777)
        #expect(chown(folder, attacker, attacker) == 0 && posixChmod(folder, 0o777) == 0)
        let script = try scratch.create("listener.py", contents: listener).string
        // Modes set outright: the test process's umask is not ours to rely on (IndexStore narrows
        // it to 077 while it opens a database, on any thread).
        _ = posixChmod(script, 0o644)
        _ = try scratch.createDirectory("out")
        try scratch.chmod("out", 0o777)
        _ = posixChmod(scratch.root.string, 0o755)
        let log = scratch.path("out/report").string
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(attacker)", "--regid=\(attacker)", "--clear-groups", "--", "/usr/bin/python3", script, folder, log, "\(seconds)"] + names
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        _ = eventually(30, every: .milliseconds(20)) { FileManager.default.fileExists(atPath: log + ".ready") || !p.isRunning }
        if !FileManager.default.fileExists(atPath: log + ".ready") {
            p.terminate()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("the listener did not start: \(said)")
        }
        return Listener(process: p, log: log)
    }

    static func names(forIndex index: String) -> [String] {
        let base = FindWire.socketName(forIndexDirectory: Array(index.utf8))
        return [base + ".find.sock", base + ".sock"]
    }

    @Test("a /tmp/fsindex-<uid> planted by another user gets no connection; fsfind and fsindex work without it and say why")
    func plantedFolder() async throws {
        try await offPool {
            let folder = "/tmp/fsindex-\(Self.victim)"
            _ = try? FileManager.default.removeItem(atPath: folder)
            defer { _ = try? FileManager.default.removeItem(atPath: folder) }
            let scratch = try TemporaryTree(prefix: "fsindex-plant")
            let index = scratch.path("no-index").string
            let listener = try Self.startListener(in: folder, names: Self.names(forIndex: index), scratch: scratch)
            let env = ["FSINDEX_INDEX_DIR": index, "FSFIND_TRACE": "1"]
            let find = try run("fsfind", ["budget"], env: env, asUser: "\(Self.victim)")
            #expect(find.stderr.contains("warning: not asking fsindexd through \(folder): it belongs to uid \(Self.attacker), not to you (uid \(Self.victim))"), "\(find.stderr)")
            #expect(!find.stderr.contains("answered by fsindexd"))
            #expect(find.status == 2 && find.stderr.contains("no index"), "\(find.status) \(find.stderr)")
            let status = try run("fsindex", ["pause"], env: env, asUser: "\(Self.victim)")
            #expect(status.stderr.contains("warning: not talking to fsindexd"), "\(status.stderr)")
            #expect(status.stderr.contains("belongs to uid \(Self.attacker)"), "\(status.stderr)")
            #expect(listener.report() == "nothing")
        }
    }

    @Test("a socket served by another user in the user's own folder is connected to, but sent nothing")
    func foreignPeer() async throws {
        try await offPool {
            let victim = Self.victim + 2
            let folder = "/tmp/fsindex-\(victim)"
            _ = try? FileManager.default.removeItem(atPath: folder)
            defer { _ = try? FileManager.default.removeItem(atPath: folder) }
            #expect(mkdir(folder, 0o700) == 0 && chown(folder, victim, victim) == 0)
            let scratch = try TemporaryTree(prefix: "fsindex-peer")
            let index = scratch.path("no-index").string
            let names = Self.names(forIndex: index)
            // The attacker listens in a folder of their own; root (standing for any way a socket
            // can come to be there) moves the socket into the victim's private folder.
            let listener = try Self.startListener(in: scratch.path("att").string, names: names, scratch: scratch)
            for name in names { #expect(rename(scratch.path("att/\(name)").string, "\(folder)/\(name)") == 0) }
            let env = ["FSINDEX_INDEX_DIR": index, "FSFIND_TRACE": "1"]
            let find = try run("fsfind", ["budget"], env: env, asUser: "\(victim)")
            #expect(find.stderr.contains("is served by uid \(Self.attacker), not by you (uid \(victim))"), "\(find.stderr)")
            #expect(find.status == 2 && find.stderr.contains("no index"), "\(find.status) \(find.stderr)")
            let status = try run("fsindex", ["pause"], env: env, asUser: "\(victim)")
            #expect(status.status == 2 && status.stderr.contains("uid \(Self.attacker)"), "\(status.stderr)")
            let report = listener.report()
            #expect(report.split(separator: "\n").allSatisfy { $0 == "connection 0 bytes" }, "\(report)")
            #expect(report.contains("connection 0 bytes"), "\(report)")
        }
    }

    @Test("the socket folder is $XDG_RUNTIME_DIR's, else /run/user/<uid>'s, and /tmp only without either")
    func folderOrder() throws {
        let uid = Self.victim + 4
        let run = "/run/user/\(uid)"
        _ = try? FileManager.default.removeItem(atPath: run)
        defer { _ = try? FileManager.default.removeItem(atPath: run) }
        #expect(String(decoding: FindWire.runtimeDirectory(runtime: nil, owner: uid), as: UTF8.self) == "/tmp/fsindex-\(uid)")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        #expect(chown(run, uid, uid) == 0 && posixChmod(run, 0o700) == 0)
        #expect(String(decoding: FindWire.runtimeDirectory(runtime: nil, owner: uid), as: UTF8.self) == run + "/fsindex")
        // A variable naming a folder that is not the user's is passed over for /run/user.
        #expect(String(decoding: FindWire.runtimeDirectory(runtime: Array("/tmp".utf8), owner: uid), as: UTF8.self) == run + "/fsindex")
        // A /run/user folder others may write is not used.
        #expect(posixChmod(run, 0o777) == 0)
        #expect(String(decoding: FindWire.runtimeDirectory(runtime: nil, owner: uid), as: UTF8.self) == "/tmp/fsindex-\(uid)")
    }
}

/// chmod(2) under a name that does not collide with TemporaryTree's method.
func posixChmod(_ path: String, _ mode: mode_t) -> Int32 { chmod(path, mode) }
