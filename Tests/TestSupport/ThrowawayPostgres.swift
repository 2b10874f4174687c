import Foundation
import Synchronization
import SystemCalls
#if canImport(Testing)
import Testing
#endif
import Glibc

/// A real PostgreSQL server for the shared-index tests: a throwaway cluster in a temporary
/// folder, listening only on a Unix socket there, made with Debian's `initdb` and started with
/// `pg_ctl` as an unprivileged user (`postgres` when the tests run as root, which initdb
/// refuses to be). One cluster serves the whole test process; each test makes its own database.
/// It is stopped when the process exits.
///
/// Authentication: the role `fsindex` (the watchers') is trusted on the socket; every other
/// role must be the OS user of the same name (peer), so the two-user test is real.
package final class ThrowawayPostgres: @unchecked Sendable {
    package let folder: String
    package let port: Int
    package let bin: String
    let runAs: String?
    /// Guards `started`, `counter` and `others`.
    private static let lock = Mutex<Void>(())
    nonisolated(unsafe) private static var started: Result<ThrowawayPostgres, Unavailable>?
    nonisolated(unsafe) private static var counter = 0

    package struct Unavailable: Error, CustomStringConvertible { public var description: String }

    package static let skipReason = "needs a PostgreSQL 15+ server with pg_trgm (Debian: apt install postgresql postgresql-contrib)"

    /// The PostgreSQL binaries, newest first, if version 15 or later and pg_trgm are installed.
    static func binaries() -> (bin: String, version: Int)? {
        guard let versions = try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql") else { return nil }
        for v in versions.compactMap({ Int($0) }).sorted(by: >) where v >= 15 {
            let bin = "/usr/lib/postgresql/\(v)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb"),
               FileManager.default.fileExists(atPath: "/usr/share/postgresql/\(v)/extension/pg_trgm.control") {
                return (bin, v)
            }
        }
        return nil
    }

    package static var isAvailable: Bool {
        guard binaries() != nil else { return false }
        return geteuid() != 0 || getpwnam("postgres") != nil
    }

    /// The process's cluster, started on first use.
    /// Whether the server has the rum extension (Debian: postgresql-N-rum), for the tests of
    /// the ranked word index; they are skipped with `rumReason` without it.
    package static let rumAvailable: Bool = {
        guard let pg = try? ThrowawayPostgres.shared(),
              let n = try? pg.psql("postgres", "SELECT count(*) FROM pg_available_extensions WHERE name = 'rum'") else { return false }
        return n.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }()
    #if canImport(Testing)
    package static let rumReason = Comment(rawValue: "needs the rum extension on the test server (Debian: apt install postgresql-15-rum)")
    #endif

    package static func shared() throws -> ThrowawayPostgres {
        try lock.withLock { _ throws -> ThrowawayPostgres in try startShared() }
    }

    private static func startShared() throws -> ThrowawayPostgres {
        if let started { return try started.get() }
        let result: Result<ThrowawayPostgres, Unavailable>
        do { result = .success(try ThrowawayPostgres()) } catch let e as Unavailable { result = .failure(e) } catch {
            result = .failure(Unavailable(description: "\(error)"))
        }
        started = result
        if case .success(let pg) = result {
            current = pg
            atexit {
                for pg in [ThrowawayPostgres.current].compactMap({ $0 }) + ThrowawayPostgres.others {
                    pg.stop(immediate: true)
                    try? FileManager.default.removeItem(atPath: pg.folder)
                }
            }
        }
        return try result.get()
    }
    nonisolated(unsafe) static var current: ThrowawayPostgres?
    nonisolated(unsafe) static var others: [ThrowawayPostgres] = []

    /// A cluster of its own, for a test that stops and starts the server (the shared one serves
    /// other tests meanwhile). Stopped when the process exits.
    package static func dedicated() throws -> ThrowawayPostgres {
        _ = try shared()
        return try lock.withLock { _ throws -> ThrowawayPostgres in
            let pg = try ThrowawayPostgres(portOffset: 500 + others.count + 1)
            others.append(pg)
            return pg
        }
    }

    private init(portOffset: Int = 0) throws {
        guard let (bin, _) = Self.binaries() else { throw Unavailable(description: Self.skipReason) }
        self.bin = bin
        runAs = geteuid() == 0 ? "postgres" : nil
        Self.removeAbandoned(bin: bin, runAs: runAs)
        var template = Array("/tmp/fsindex-pg-\(getpid())-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Unavailable(description: "mkdtemp failed") }
        folder = String(cString: made)
        chmod(folder, 0o755)
        if runAs != nil, let pw = getpwnam("postgres") { chown(folder, pw.pointee.pw_uid, pw.pointee.pw_gid) }
        port = 54_400 + Int(getpid() % 500) + portOffset
        try run(bin + "/initdb", ["-D", folder + "/data", "-U", "fsindex", "--locale=C.UTF-8", "-E", "UTF8", "-A", "peer", "--auth-local=peer"])
        let hba = "local all fsindex trust\nlocal all all peer\n"
        try writeAsOwner(folder + "/data/pg_hba.conf", hba)
        try start()
        try psql("postgres", "SELECT 1")
    }

    /// Stops and removes the clusters of test processes that are gone (a crash, or an exit
    /// that skipped `atexit`), so none is left running.
    static func removeAbandoned(bin: String, runAs: String?) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/tmp") else { return }
        for name in names where name.hasPrefix("fsindex-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 4, let pid = Int32(parts[2]), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            cleanup(folder: "/tmp/" + name, bin: bin, runAs: runAs)
        }
    }

    private static func cleanup(folder: String, bin: String, runAs: String?) {
        var argv = [bin + "/pg_ctl", "-D", folder + "/data", "-m", "immediate", "stop"]
        if let runAs { argv = ["/usr/sbin/runuser", "-u", runAs, "--"] + argv }
        _ = try? runAndWait(argv, output: "/dev/null")
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts the server (again, after `stop`).
    package func start() throws {
        try run(bin + "/pg_ctl", ["-D", folder + "/data", "-w", "-t", "60", "-l", folder + "/log",
                                  "-o", "-k \(folder) -c listen_addresses='' -p \(port) -c fsync=off -c max_connections=200", "start"])
    }

    /// Stops the server: `immediate` is a crash for the clients (connections cut mid-request).
    package func stop(immediate: Bool = false) {
        _ = try? run(bin + "/pg_ctl", ["-D", folder + "/data", "-w", "-m", immediate ? "immediate" : "fast", "stop"])
    }

    /// A new, empty database with pg_trgm, and its URL for the `fsindex` role.
    package func makeDatabase() throws -> String {
        url(database: try makeDatabaseNamed())
    }

    /// A new, empty database with pg_trgm; its name.
    package func makeDatabaseNamed() throws -> String {
        let name = Self.lock.withLock { _ in
            Self.counter += 1
            return "t\(getpid())_\(Self.counter)"
        }
        try psql("postgres", "CREATE DATABASE \(name)")
        try psql(name, "CREATE EXTENSION pg_trgm")
        return name
    }

    package func url(database: String, user: String = "fsindex") -> String {
        "postgresql://\(user)@/\(database)?host=\(folder)&port=\(port)"
    }

    /// Runs SQL as the `fsindex` role; returns psql's unaligned output.
    @discardableResult
    package func psql(_ database: String, _ sql: String) throws -> String {
        try run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", folder, "-p", String(port), "-U", "fsindex", "-d", database, "-c", sql], asOwner: false)
    }

    /// Runs a tool and waits for it, its output in a file. `Spawn` and waitpid, not
    /// Foundation's Process: the server pg_ctl starts would inherit the descriptor Process
    /// watches for the child's end (and a pipe), and the wait would never end.
    @discardableResult
    func run(_ tool: String, _ arguments: [String], asOwner: Bool = true) throws -> String {
        let argv = (asOwner && runAs != nil) ? ["/usr/sbin/runuser", "-u", runAs!, "--", tool] + arguments : [tool] + arguments
        let outputPath = folder + "/tool-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out"
        defer { unlink(outputPath) }
        let exited = try Self.runAndWait(argv, output: outputPath)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard exited == 0 else {
            throw Unavailable(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(exited)): \(text)")
        }
        return text
    }

    /// Starts `argv` with stdin from /dev/null and stdout and stderr into `output`; its exit status.
    static func runAndWait(_ argv: [String], output: String) throws -> Int32 {
        let spawn = Spawn(executable: argv[0], arguments: argv, actions: [
            .open(fd: 0, path: "/dev/null", flags: O_RDONLY, mode: 0),
            .open(fd: 1, path: output, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644),
            .dup(1, 2),
        ])
        let pid: pid_t
        switch spawn.run() {
        case .success(let p): pid = p
        case .failure(let e): throw Unavailable(description: "cannot start \(argv[0]): \(e)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    private func writeAsOwner(_ path: String, _ text: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        if runAs != nil, let pw = getpwnam("postgres") { chown(path, pw.pointee.pw_uid, pw.pointee.pw_gid) }
    }
}

#if canImport(Testing)
extension Trait where Self == ConditionTrait {
    /// For a test that needs a real PostgreSQL server: skipped, with the reason, where Debian's
    /// postgresql and postgresql-contrib are not installed. `.ci/run` installs them and fails
    /// when these tests were skipped.
    package static var postgres: Self {
        .enabled(if: ThrowawayPostgres.isAvailable, Comment(rawValue: ThrowawayPostgres.skipReason))
    }
}
#endif
