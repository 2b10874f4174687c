import CSeccomp
import CSysShims
import Glibc

/// The sandbox self-test: an exploited parser's moves, made from inside a running, sandboxed
/// worker. Each probe tries one thing and says how it went: `allowed`, or `refused: <errno>`.
/// Calls the filter answers with death never return, so the parent sees the worker die
/// (`WorkerFailure.forbiddenCall`) instead.
///
/// The attacks on the parent are made harmless *if they succeed*, so that a test run against a
/// weak sandbox fails instead of hanging or crippling the test runner: a SIGSTOP is followed by
/// SIGCONT, rlimits and priorities are set to the values they already have, memory is written
/// at address 0 (EFAULT once the permission check has passed), ptrace seizes without stopping
/// and detaches.
enum Probes {
    static func answer(_ what: String) -> String {
        let parts = what.split(separator: ":", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1] : ""
        let parent = getppid()
        switch parts[0] {
        case "write-file":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) })
        case "read-file":   // library data: what parsers must still read
            return outcome("/usr/lib/os-release".withCString { open($0, O_RDONLY | O_CLOEXEC) })
        case "read":
            return outcome(argument.withCString { open($0, O_RDONLY | O_CLOEXEC) })
        case "parent-memory":
            return outcome("/proc/\(parent)/mem".withCString { open($0, O_RDONLY | O_CLOEXEC) })
        case "mkdir":
            return outcome("/tmp/fsindex-sandbox-probe-dir".withCString { mkdir($0, 0o700) })
        case "unlink":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { unlink($0) })
        case "socket":
            return outcome(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        case "exec":
            return outcome(Faults.exec())
        case "fork":
            return outcome(fork())
        case "thread":
            var t = pthread_t()
            let rc = pthread_create(&t, nil, { _ in nil }, nil)
            if rc == 0 { pthread_join(t, nil); return "allowed" }
            return "refused: \(String(cString: strerror(rc)))"
        case "signal-parent":
            return signal(parent, with: argument)
        case "prlimit-parent":
            var old = [UInt64](repeating: 0, count: 2)   // struct rlimit64
            let got = old.withUnsafeMutableBytes { call("prlimit64", Int(parent), 1 /* RLIMIT_FSIZE */, 0, Int(bitPattern: $0.baseAddress)) }
            guard got == 0 else { return outcome(Int32(got)) }
            return outcome(Int32(old.withUnsafeBytes { call("prlimit64", Int(parent), 1, Int(bitPattern: $0.baseAddress), 0) }))
        case "setpriority-parent":
            errno = 0
            let nice = getpriority(__priority_which_t(0), id_t(parent))
            return outcome(Int32(call("setpriority", 0 /* PRIO_PROCESS */, Int(parent), Int(nice), 0)))
        case "sched-parent":
            var mask = [UInt64](repeating: 0, count: 16)
            let n = mask.withUnsafeMutableBytes { call("sched_getaffinity", Int(parent), $0.count, Int(bitPattern: $0.baseAddress), 0) }
            guard n > 0 else { return outcome(Int32(n)) }
            return outcome(Int32(mask.withUnsafeBytes { call("sched_setaffinity", Int(parent), n, Int(bitPattern: $0.baseAddress), 0) }))
        case "ptrace-parent":
            let rc = call("ptrace", 0x4206 /* PTRACE_SEIZE */, Int(parent), 0, 0)
            if rc == 0 { _ = call("ptrace", 17 /* PTRACE_DETACH */, Int(parent), 0, 0) }
            return outcome(Int32(rc))
        case "vm-write-parent":
            let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
            let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: 2)
            defer { byte.deallocate(); vectors.deallocate() }
            vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(byte), iov_len: 1)   // ours
            vectors[1] = iovec(iov_base: nil, iov_len: 1)                              // theirs, at address 0
            let nr = Int(seccomp_syscall_resolve_name("process_vm_writev"))
            let rc = shim_syscall6(nr, Int(parent), Int(bitPattern: vectors), 1, Int(bitPattern: vectors + 1), 1, 0)
            return rc >= 0 || errno == EFAULT ? "allowed" : "refused: \(String(cString: strerror(errno)))"
        case "pidfd-parent":
            return outcome(Int32(call("pidfd_open", Int(parent), 0, 0, 0)))
        case "identity":
            var e: UInt64 = 0, p: UInt64 = 0, i: UInt64 = 0, b: UInt64 = 0
            let caps = shim_capabilities(&e, &p, &i, &b) == 0
                ? "effective=\(e) permitted=\(p) inheritable=\(i) bounding=\(b)" : "capget refused"
            return "uid=\(getuid()) euid=\(geteuid()) gid=\(getgid()) groups=\(getgroups(0, nil)) \(caps)"
        case "cpu-limit":
            var soft: UInt64 = 0, hard: UInt64 = 0
            return shim_getrlimit(0 /* RLIMIT_CPU */, &soft, &hard) == 0 ? "soft=\(soft) hard=\(hard)" : "refused"
        default:
            return "unknown probe"
        }
    }

    static func outcome(_ rc: Int32) -> String { rc >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))" }

    /// The raw system call `name` (numbered for this architecture by libseccomp).
    static func call(_ name: String, _ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Int {
        shim_syscall4(Int(seccomp_syscall_resolve_name(name)), a, b, c, d)
    }

    /// Sends SIGSTOP to `pid` with the named call and, if that worked, SIGCONT the same way.
    static func signal(_ pid: pid_t, with name: String) -> String {
        func send(_ sig: Int32) -> Int {
            switch name {
            case "kill": return call("kill", Int(pid), Int(sig), 0, 0)
            case "tkill": return call("tkill", Int(pid), Int(sig), 0, 0)
            case "tgkill": return call("tgkill", Int(pid), Int(pid), Int(sig), 0)
            case "rt_sigqueueinfo", "rt_tgsigqueueinfo":
                var info = [Int32](repeating: 0, count: 32)   // siginfo_t: 128 bytes
                info[0] = sig
                info[2] = -1   // SI_QUEUE: what a process may send another
                info[4] = getpid()
                info[5] = Int32(bitPattern: getuid())
                return info.withUnsafeBytes { b in
                    name == "rt_sigqueueinfo"
                        ? call(name, Int(pid), Int(sig), Int(bitPattern: b.baseAddress), 0)
                        : call(name, Int(pid), Int(pid), Int(sig), Int(bitPattern: b.baseAddress))
                }
            default: errno = EINVAL; return -1
            }
        }
        let rc = send(SIGSTOP)
        if rc == 0 { _ = send(SIGCONT); return "allowed" }
        return "refused: \(String(cString: strerror(errno)))"
    }
}
