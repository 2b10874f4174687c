import Foundation
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// Runs the built `fsindex` / `fsfind` binaries as a user would, and captures what they print.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
    var lines: [String] { out.split(separator: "\n").map(String.init) }
}

enum Binaries {
    /// The folder with the built executables: beside the test bundle, or `FSINDEX_BIN_DIR`.
    static var directory: URL {
        if let d = ProcessInfo.processInfo.environment["FSINDEX_BIN_DIR"] { return URL(fileURLWithPath: d) }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // swift-testing on Linux runs <build>/debug/FSIndexPackageTests.xctest
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("fsindex").path), url.path != "/" {
            url = url.deletingLastPathComponent()
        }
        return url
    }

    /// `executable` as a path another user can run: itself when every folder above it lets
    /// others through, else its twin in a folder of links to the built tools (copies across
    /// file systems) that anyone may enter. A clone in a home of mode 0700 (root's) keeps the
    /// built tools from every other user, and the tests that run them as `nobody` or a made-up
    /// uid would fail for a reason no user meets: an installed fsindex is in /usr/bin. The
    /// twins sit side by side, so a tool still finds fsindex-worker beside itself.
    static func forOtherUsers(_ executable: String) throws -> String {
        let built = directory.path
        guard executable.hasPrefix(built + "/"), !reachableByOthers(executable) else { return executable }
        return try sharedCopy.get() + "/" + URL(fileURLWithPath: executable).lastPathComponent
    }

    /// Whether a user who is neither the owner nor in the group can search every folder above
    /// `path` and run it.
    static func reachableByOthers(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path)
        var st = stat()
        guard stat(url.path, &st) == 0, st.st_mode & 0o001 != 0 else { return false }
        while url.path != "/" {
            url = url.deletingLastPathComponent()
            guard stat(url.path, &st) == 0, st.st_mode & 0o001 != 0 else { return false }
        }
        return true
    }

    /// Made once per test process, in a fresh folder of its own (mkdtemp: no other user can
    /// have put anything there first); removed when the process ends.
    private static let sharedCopy: Result<String, any Error> = Result {
        var template = Array((NSTemporaryDirectory() + "/fsindex-tools-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CopyFailed(what: "mkdtemp: errno \(errno)") }
        let folder = String(cString: made)
        guard chmod(folder, 0o755) == 0 else { throw CopyFailed(what: "chmod \(folder): errno \(errno)") }
        let fm = FileManager.default
        for name in try fm.contentsOfDirectory(atPath: directory.path) {
            let source = directory.appendingPathComponent(name).path
            var st = stat()
            guard stat(source, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o100 != 0 else { continue }
            let target = folder + "/" + name
            if link(source, target) != 0 {
                try fm.copyItem(atPath: source, toPath: target)
            }
            guard chmod(target, 0o755) == 0 else { throw CopyFailed(what: "chmod \(target): errno \(errno)") }
        }
        sharedCopyFolder = folder
        atexit { if let folder = sharedCopyFolder { try? FileManager.default.removeItem(atPath: folder) } }
        return folder
    }
    nonisolated(unsafe) private static var sharedCopyFolder: String?

    struct CopyFailed: Error, CustomStringConvertible {
        var what: String
        var description: String { "could not make the built tools reachable for another user: \(what)" }
    }
}

/// A command that did not finish within its timeout; it was killed with SIGKILL.
struct CommandTimedOut: Error, CustomStringConvertible {
    var command: [String]
    var timeout: TimeInterval
    var stderr: String
    var description: String {
        "timed out after \(timeout) s, killed with SIGKILL: \(command.joined(separator: " "))"
            + (stderr.isEmpty ? "" : "\nits stderr so far:\n\(stderr)")
    }
}

/// Runs one of the built tools and waits; `asUser` runs it as another user through setpriv
/// (tests as root).
@discardableResult
func run(_ tool: String, _ args: [String], env: [String: String] = [:], asUser: String? = nil,
         timeout: TimeInterval = 300, cwd: String? = nil) throws -> CommandResult {
    try run(executable: Binaries.directory.appendingPathComponent(tool).path, args, env: env, asUser: asUser, timeout: timeout, cwd: cwd)
}

/// Runs an executable given by its absolute path and waits at most `timeout` seconds: a command
/// still running then is killed (SIGKILL, its process group too) and `CommandTimedOut` is
/// thrown, so that a hung binary fails its own test, not the whole run.
@discardableResult
func run(executable: String, _ args: [String], env: [String: String] = [:], asUser: String? = nil,
         timeout: TimeInterval, cwd: String? = nil) throws -> CommandResult {
    let p = Process()
    if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    try p.setCommand(executable, args, asUser: asUser)
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    if asUser != nil {
        // Another user has a home of their own, not ours (whose config they could not read):
        // nobody's is /nonexistent, as in /etc/passwd.
        environment["HOME"] = "/nonexistent"
        for k in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] { environment[k] = nil }
    }
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let pid = p.processIdentifier
    let deadline = Date().addingTimeInterval(timeout)
    // Read both pipes in one poll loop, so a chatty child cannot block and a silent one cannot
    // hold the test past its deadline.
    var streams: [(fd: Int32, data: Data, open: Bool)] = [
        (out.fileHandleForReading.fileDescriptor, Data(), true),
        (err.fileHandleForReading.fileDescriptor, Data(), true),
    ]
    var timedOut = false
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var limit = deadline
    while streams.contains(where: \.open) {
        var remaining = limit.timeIntervalSinceNow
        if remaining <= 0 {
            // Killed, and still no end-of-file after a grace period (a grandchild holds a pipe):
            // give up on the rest of the output.
            if timedOut { break }
            timedOut = true
            kill(-pid, SIGKILL)   // the group, if it has one of its own (workers too)
            kill(pid, SIGKILL)
            limit = Date().addingTimeInterval(2)
            remaining = 2
        }
        var fds = streams.filter(\.open).map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1000))
        if ready < 0 && errno != EINTR { break }
        for f in fds where f.revents != 0 {
            let i = streams.firstIndex { $0.fd == f.fd }!
            let n = buffer.withUnsafeMutableBytes { read(f.fd, $0.baseAddress, $0.count) }
            if n > 0 { streams[i].data.append(contentsOf: buffer[0..<n]) } else if n == 0 || errno != EINTR { streams[i].open = false }
        }
    }
    if !timedOut && p.isRunning {
        // Both pipes closed but the process lives on (it closed them itself): wait the rest.
        // (Foundation's `isRunning` turns false a moment after the exit: the kernel's word counts.)
        if !SystemCall.awaitExit(pid, milliseconds: Int32(clamping: Int(max(0, deadline.timeIntervalSinceNow * 1000)))) {
            timedOut = true
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
        }
    }
    p.waitUntilExit()
    let stderr = String(decoding: streams[1].data, as: UTF8.self)
    if timedOut {
        throw CommandTimedOut(command: [executable] + args, timeout: timeout, stderr: stderr)
    }
    return CommandResult(status: p.terminationStatus, stdout: streams[0].data, stderr: stderr)
}

/// A tree and an index folder for one CLI test.
struct CLIFixture {
    let tree: TemporaryTree
    var root: String { tree.path("root").string }
    var index: String { tree.path("index").string }

    init() throws {
        tree = try TemporaryTree(prefix: "fsindex-cli")
        try tree.createDirectory("root")
    }

    @discardableResult
    func fsindex(_ args: String...) throws -> CommandResult { try run("fsindex", Array(args), env: ["FSINDEX_INDEX_DIR": index]) }
    @discardableResult
    func fsfind(_ args: String...) throws -> CommandResult { try run("fsfind", Array(args), env: ["FSINDEX_INDEX_DIR": index]) }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of Swift's
/// cooperative pool. The harness and daemon tests wait minutes for processes; run from a test
/// function, such a wait holds one of the pool's few threads (two on a 2-core machine), and two
/// at once starved every async test of the suite (the watcher's daemon published nothing for a
/// minute). The body runs as part of the test's own task (a task executor preference), so its
/// expectations are the test's.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try body() }
}

/// Starts a long-running program (an fsindexd) with its output in `log`, as another user
/// through setpriv when `asUser` is given; the caller stops it.
func startLogged(_ executable: String, _ args: [String], environment: [String: String], log: String,
                 asUser: uid_t? = nil) throws -> Process {
    let p = Process()
    try p.setCommand(executable, args, asUser: asUser.map { "\($0)" })
    p.environment = environment
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    p.standardOutput = handle
    p.standardError = handle
    try p.run()
    return p
}

extension Process {
    /// `executable args`, run as `asUser` (a uid or name) through setpriv when given.
    /// A built tool is run from where that user can reach it (`Binaries.forOtherUsers`).
    func setCommand(_ executable: String, _ args: [String], asUser: String?) throws {
        if let asUser {
            executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            arguments = ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", "--", try Binaries.forOtherUsers(executable)] + args
        } else {
            executableURL = URL(fileURLWithPath: executable)
            arguments = args
        }
    }
}
