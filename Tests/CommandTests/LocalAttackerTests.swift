import Foundation
import QueryWire
import SystemPackage
import TestSupport
import Testing

/// Issue 40: what another local user can plant, tried with real users (nobody, and a user made
/// here with a home of its own) and the real binaries.
@Suite("Another local user plants settings, sockets and folders", .blocking, .serialized, .needsRoot)
struct LocalAttackerTests {
    /// A1: `fsfind --config=/tmp/evil.toml --open=1 x`, the command line a bus caller could make
    /// before terms came after `--`: the file belongs to nobody, so its `open_command` never runs.
    @Test("fsfind --config naming another user's file: not read, the warning names it, its open_command never runs")
    func plantedSettings() throws {
        let tree = try TemporaryTree(prefix: "fsindex-planted-settings")
        let pwned = tree.path("pwned").string
        try tree.create("docs/quokka.txt", contents: "the quokka file")
        let env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "XDG_CONFIG_HOME": tree.path("config").string]
        #expect(try run("fsindex", ["index", tree.path("docs").string], env: env).status == 0)
        let evil = try tree.create("evil.toml", contents: "[desktop]\nopen_command = [\"/bin/sh\", \"-c\", \"touch \(pwned)\", \"sh\"]\n")
        #expect(chmod(evil.string, 0o644) == 0 && chown(evil.string, 65534, 65534) == 0)
        let r = try run("fsfind", ["--config=\(evil.string)", "--open=1", "quokka"], env: env)
        #expect(r.stderr.contains("warning: ignoring settings file \(evil.string): it belongs to user nobody (uid 65534), not to you (uid 0); using the defaults"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: pwned))
        // The same file, the user's own and private: read, and its command runs (the test's proof
        // that the refusal, not a broken setting, kept it from running above).
        #expect(chown(evil.string, 0, 0) == 0 && chmod(evil.string, 0o600) == 0)
        _ = try run("fsfind", ["--config=\(evil.string)", "--open=1", "quokka"], env: env)
        #expect(FileManager.default.fileExists(atPath: pwned))
    }

    /// The socket folder's fallback: with neither `XDG_RUNTIME_DIR` nor `/run/user/<uid>`, it was
    /// `/tmp/fsindex-<uid>`, which another user could make first and so keep fsindexd from
    /// starting. Now it is in the user's home; `/tmp` only for a user without one.
    @Test("a /tmp/fsindex-<uid> planted by nobody does not keep a real user's fsindexd from starting, nor get any connection")
    func plantedRuntimeFallback() async throws {
        try await offPool {
            let user = try TestUser.ensure("fsindex-t40")
            let runUser = "/run/user/\(user.uid)"
            _ = try? FileManager.default.removeItem(atPath: runUser)
            let planted = "/tmp/fsindex-\(user.uid)"
            _ = try? FileManager.default.removeItem(atPath: planted)
            defer { _ = try? FileManager.default.removeItem(atPath: planted) }
            let scratch = try TemporaryTree(prefix: "fsindex-plant-home")
            let index = user.home + "/t40-index"
            let docs = user.home + "/t40-docs"
            defer { _ = try? FileManager.default.removeItem(atPath: index); _ = try? FileManager.default.removeItem(atPath: docs) }
            #expect(String(decoding: FindWire.runtimeDirectory(runtime: nil, owner: user.uid), as: UTF8.self) == user.home + "/.cache/fsindex/run")
            let listener = try SocketTrustTests.startListener(in: planted, names: SocketTrustTests.names(forIndex: index), scratch: scratch,
                                                             seconds: 40, as: 65534)
            let env = ["HOME": user.home, "FSINDEX_INDEX_DIR": index, "FSFIND_TRACE": "1"]
            _ = try run(executable: "/bin/sh", ["-c", "mkdir -p \(docs) && echo 'the wombat note' > \(docs)/note.txt"], asUser: "\(user.uid)", timeout: 60)
            var e = ProcessInfo.processInfo.environment
            for k in ["XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] { e[k] = nil }
            for (k, v) in env { e[k] = v }
            let log = scratch.path("daemon.log").string
            let daemon = try startLogged(Binaries.directory.appendingPathComponent("fsindexd").path, ["--foreground", "--root", docs],
                                         environment: e, log: log, asUser: user.uid)
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGTERM); daemon.waitUntilExit() } }
            var answered = ""
            _ = try eventually(60, every: .milliseconds(200)) {
                let r = try run("fsfind", ["wombat"], env: env, asUser: "\(user.uid)")
                answered = r.out + r.stderr
                return (r.out.contains(docs + "/note.txt") && r.stderr.contains("answered by fsindexd")) || !daemon.isRunning
            }
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(daemon.isRunning, "fsindexd stopped: \(said)")
            #expect(answered.contains("answered by fsindexd"), "\(answered)\n\(said)")
            #expect(FileManager.default.fileExists(atPath: user.home + "/.cache/fsindex/run"))
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
            #expect(listener.report() == "nothing")
        }
    }

    /// libpq's `requirepeer`: a socket at the server's path served by another user gets no
    /// startup message (our role's name) and no password.
    @Test("the shared index's Unix socket served by nobody: refused before a byte is sent; requirepeer names the user to accept")
    func postgresPeer() async throws {
        try await offPool {
            let scratch = try TemporaryTree(prefix: "fsindex-pg-peer")
            let folder = scratch.path("pgsock").string
            let listener = try SocketTrustTests.startListener(in: folder, names: [".s.PGSQL.5432"], scratch: scratch, seconds: 8, as: 65534)
            let url = "postgresql://fsindex:secret@/fsindex?host=\(folder)&port=5432"
            let r = try run("fsindex", ["status", "--index-url", url])
            #expect(r.status == 2, "\(r.out)\(r.stderr)")
            #expect(r.stderr.contains("refused to talk to the socket of postgresql://fsindex:***@/fsindex?host=\(folder)&port=5432"), "\(r.stderr)")
            #expect(r.stderr.contains("is served by user nobody (uid 65534), not postgres, root or you; if that is your server, add requirepeer=nobody to the URL"), "\(r.stderr)")
            #expect(r.stderr.contains("nothing was sent to it"))
            let report = listener.report()
            #expect(report.split(separator: "\n").allSatisfy { $0 == "connection 0 bytes" } && report.contains("connection 0 bytes"), "\(report)")
        }
    }
}

/// A real local user with a home of its own, made with useradd once (kept for later runs).
struct TestUser {
    let uid: uid_t
    let home: String

    static func ensure(_ name: String) throws -> TestUser {
        if getpwnam(name) == nil {
            let r = try run(executable: "/usr/sbin/useradd", ["--create-home", "--shell", "/bin/sh", name], timeout: 60)
            try #require(r.status == 0, "useradd: \(r.stderr)")
        }
        let pw = try #require(getpwnam(name))
        return TestUser(uid: pw.pointee.pw_uid, home: String(cString: pw.pointee.pw_dir))
    }
}
