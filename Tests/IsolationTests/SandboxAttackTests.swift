import Attributes
import Crawling
import ExtractionModel
import SystemPackage
import Testing
import TestSupport
@testable import Isolation
import Glibc

/// Issue 11, finding 3: an exploited parser, played by the test worker's probes from inside a
/// running, sandboxed worker, tries to reach its parent (this test process), read secrets, and
/// keep privileges. Every attempt must be refused (`refused: …`, or the worker killed for a
/// forbidden call), the parent must not have been touched, and the same `ExtractionWorker`
/// must go on serving files.
@Suite("Sandbox against an exploited parser", .blocking)
struct SandboxAttackTests {
    /// A refused attempt: an error, or death by SIGSYS. "allowed" (or anything else) is not.
    static func refused(_ answer: Result<String, WorkerFailure>) -> Bool {
        switch answer {
        case .success(let text): text.hasPrefix("refused")
        case .failure(let failure): failure == .forbiddenCall
        }
    }

    /// The parent still works and the worker object serves the next file.
    static func stillServing(_ worker: ExtractionWorker, _ tree: TemporaryTree) throws {
        #expect(Self.state(of: getpid()) != "T", "the parent was stopped")
        let good = try tree.create("good-\(UInt32.random(in: 0...UInt32.max)).txt", contents: "an ordinary wombat")
        let r = worker.extract(try FileFacts.read(good), textCap: 100)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent == "an ordinary wombat")
    }

    /// The state letter of a process in /proc/PID/stat ("R", "S", "T" stopped, ...).
    static func state(of pid: pid_t) -> String {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 512) }
        guard n > 0, let close = buffer[0..<n].lastIndex(of: UInt8(ascii: ")")), close + 2 < n else { return "?" }
        return String(decoding: [buffer[close + 2]], as: UTF8.self)
    }

    @Test("issue 11: a worker cannot stop its parent with any signal call",
          arguments: ["kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"])
    func signals(call: String) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let worker = ExtractionWorker(executable: try testWorkerPath())
        let answer = worker.probe("signal-parent:\(call)")
        #expect(Self.refused(answer), "\(call): \(answer)")
        try Self.stillServing(worker, tree)
    }

    @Test("issue 11: a worker cannot change its parent's limits, priority or CPUs, nor get a pidfd of it",
          arguments: ["prlimit-parent", "setpriority-parent", "sched-parent", "pidfd-parent"])
    func otherProcessCalls(probe: String) throws { try Self.attempt(probe) }

    @Test("issue 11: a worker cannot trace its parent or touch its memory",
          arguments: ["ptrace-parent", "vm-write-parent", "parent-memory"])
    func memory(probe: String) throws { try Self.attempt(probe) }

    /// Runs one attack in a fresh sandboxed worker: it must be refused, and the worker's parent
    /// must still be served.
    static func attempt(_ probe: String) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let worker = ExtractionWorker(executable: try testWorkerPath())
        let answer = worker.probe(probe)
        #expect(refused(answer), "\(probe): \(answer)")
        try stillServing(worker, tree)
    }

    @Test("issue 11: reads are confined: a secret beside the indexed files and /etc/shadow are refused, library data reads",
          .enabled(if: ReadConfinement.current != .unavailable(errno: ENOSYS) && ReadConfinement.current != .unavailable(errno: EOPNOTSUPP),
                   "needs Landlock"))
    func confinedReads() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let secret = try tree.create("home/.ssh/id_rsa", contents: "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        chmod(secret.string, 0o600)
        // Readable by every user: only Landlock stands between the worker and this one.
        let open = try tree.create("home/notes.txt", contents: "the safe's code is 1234\n")
        for dir in [tree.root, open.removingLastComponent()] { chmod(dir.string, 0o755) }
        #expect(access(secret.string, R_OK) == 0, "the parent itself can read it")
        let worker = ExtractionWorker(executable: try testWorkerPath())
        for path in [secret.string, open.string, "/etc/shadow"] {
            let answer = worker.probe("read:\(path)")
            #expect(Self.refused(answer), "\(path): \(answer)")
        }
        #expect(try worker.probe("read-file").get() == "allowed")
        try Self.stillServing(worker, tree)
    }

    @Test("issue 11: a worker started by root runs as nobody with no capability at all", .needsRoot)
    func noPrivileges() throws {
        let worker = ExtractionWorker(executable: try testWorkerPath())
        let identity = try worker.probe("identity").get()
        let nobody = try #require(getpwnam("nobody")).pointee
        #expect(identity.hasPrefix("uid=\(nobody.pw_uid) euid=\(nobody.pw_uid) gid=\(nobody.pw_gid) groups=0 "), "\(identity)")
        #expect(identity.hasSuffix("effective=0 permitted=0 inheritable=0 bounding=0"), "\(identity)")
    }

    @Test("issue 11: the worker user is configurable; one that does not exist stops extraction with a message that says what to do",
          .needsRoot)
    func workerUser() throws {
        var limits = WorkerLimits()
        limits.user = "daemon"
        let daemon = try #require(getpwnam("daemon")).pointee
        let identity = try ExtractionWorker(executable: try testWorkerPath(), limits: limits).probe("identity").get()
        #expect(identity.hasPrefix("uid=\(daemon.pw_uid) "), "\(identity)")
        let tree = try TemporaryTree()
        defer { tree.remove() }
        limits.user = "no-such-user-fsindex"
        let r = ExtractionWorker(executable: try workerPath(), limits: limits)
            .extract(try FileFacts.read(try tree.create("a.txt", contents: "text")), textCap: 100)
        let error = try #require(r.attributes.string(.extractionError))
        #expect(error.contains("the worker user \"no-such-user-fsindex\" does not exist; create it, or set `worker_user`"), "\(error)")
    }

    @Test("issue 11: a file only root can read is still extracted by the nobody worker, through the descriptor", .needsRoot)
    func rootOnlyFile() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.create("private/notes.txt", contents: "the wombat key is under the mat")
        chmod(file.string, 0o600)
        chmod(file.removingLastComponent().string, 0o700)
        let r = ExtractionWorker(executable: try workerPath()).extract(try FileFacts.read(file), textCap: 1000)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.textContent == "the wombat key is under the mat")
    }

    @Test("issue 11: the CPU hard limit is finite (the worker's lifetime budget)")
    func finiteCPULimit() throws {
        var limits = WorkerLimits()
        limits.cpuSecondsPerWorker = 300
        let worker = ExtractionWorker(executable: try testWorkerPath(), limits: limits)
        let answer = try worker.probe("cpu-limit").get()
        #expect(answer == "soft=300 hard=300", "\(answer)")
    }

    @Test("issue 11: a worker whose CPU budget cannot cover another file is replaced, and no file is blamed")
    func retiresAtBudget() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        var limits = WorkerLimits()
        limits.cpuSecondsPerFile = 1
        limits.cpuSecondsPerWorker = 2   // one file's budget plus the margin: retires after each file
        let worker = ExtractionWorker(executable: try workerPath(), limits: limits)
        var pids: [pid_t] = []
        for i in 0..<3 {
            let f = try tree.create("f\(i).txt", contents: "wombat number \(i)")
            let r = worker.extract(try FileFacts.read(f), textCap: 100)
            #expect(r.problems.isEmpty, "\(r.problems)")
            #expect(r.attributes.textContent == "wombat number \(i)")
            if let pid = worker.pid { pids.append(pid) }
        }
        #expect(pids.count == 3 && Set(pids).count == 3, "each file had a fresh worker: \(pids)")
    }
}
