import FoundationEssentials
import SystemCalls
import SystemPackage
import Glibc

/// Stops a command and every process it started, found through `/proc`.
///
/// Why not its process group or session alone: a child that calls `setsid` (a provider that
/// starts a helper with `setsid sleep 1000 &`) leaves both, and survived the time-out (issue 22,
/// F18). Its parent is still in the tree, though, so it is found by parent pid. Each process
/// found is stopped (SIGSTOP) before the next look, so none can fork or exit, handing its
/// children to init, while the tree is walked; then all are killed.
///
/// Why not a cgroup: fsindexd runs as a user whose cgroup is rarely delegated (writable), and
/// `PR_SET_CHILD_SUBREAPER` would make every orphan of fsindexd's other children (extraction
/// workers) its own to reap. The limit that remains: a process whose parent exited before the
/// time-out (a double fork) has been handed to init and is no longer found.
enum ProcessTree {
    /// Kills `leader` (a session leader, `Spawn(newSession: true)`) and every descendant.
    static func kill(leader: pid_t) {
        var stopped: Set<pid_t> = [leader]
        SystemCall.kill(-leader, SIGSTOP)
        SystemCall.kill(leader, SIGSTOP)
        while true {
            let found = descendants(of: leader).subtracting(stopped)
            if found.isEmpty { break }
            for p in found { SystemCall.kill(p, SIGSTOP) }
            stopped.formUnion(found)
        }
        SystemCall.kill(-leader, SIGKILL)
        for p in stopped { SystemCall.kill(p, SIGKILL) }
    }

    /// Every process below `root`, by the parent pids in `/proc/<pid>/stat`.
    static func descendants(of root: pid_t) -> Set<pid_t> {
        var children: [pid_t: [pid_t]] = [:]
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), let ppid = parent(of: pid) else { continue }
            children[ppid, default: []].append(pid)
        }
        var out: Set<pid_t> = []
        var queue = [root]
        while let p = queue.popLast() {
            for c in children[p] ?? [] where out.insert(c).inserted { queue.append(c) }
        }
        return out
    }

    /// The parent pid in `/proc/<pid>/stat`: the fourth field, after the name in parentheses
    /// (which may hold spaces and parentheses itself, hence the last `)`).
    static func parent(of pid: pid_t) -> pid_t? {
        guard case .success(let buffer) = SystemCall.readFile("/proc/\(pid)/stat", limit: 4096),
              let close = buffer.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}

/// The last bytes a child wrote to a pipe, at most `limit` of them (with up to as many again
/// while reading), however much it writes.
struct OutputTail {
    let limit: Int
    private var bytes: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(limit: Int) { self.limit = limit }

    /// Reads what `fd` (non-blocking) has now; false at its end or on an error.
    mutating func read(_ fd: Int32) -> Bool {
        while true {
            switch chunk.withUnsafeMutableBytes({ SystemCall.read(fd, into: $0) }) {
            case .success(0): return false
            case .success(let n):
                bytes.append(contentsOf: chunk[..<n])
                if bytes.count > 2 * limit { bytes.removeFirst(bytes.count - limit) }
            case .failure(let e): return e == .resourceTemporarilyUnavailable || e == .wouldBlock
            }
        }
    }

    /// The last `limit` bytes, as text.
    var text: String { String(decoding: bytes.suffix(limit), as: UTF8.self) }
}
