import CSeccomp
import Isolation
import CSysShims
#if canImport(Glibc)
import Glibc
#endif

/// What a worker process does to itself before it reads any file: resource limits, no new
/// privileges, death with its parent, and a seccomp filter.
///
/// A key design decision: the seccomp filter is an allow-list, and its default answer is
/// `EPERM`, not death. Parsers are big C libraries that probe the system in ways nobody lists
/// (a `sysinfo` from qsort, an `ioctl` from isatty): an unexpected call should fail like any
/// refused call, not turn a good file into a failure. The calls that only an attack would make
/// (exec, sockets, fork, ptrace) kill the worker outright, so the parent records them.
enum Sandbox {
    /// RLIMIT numbers (the Glibc module's enum does not import as plain ints).
    static let rlimitCPU: Int32 = 0, rlimitFSize: Int32 = 1, rlimitCore: Int32 = 4, rlimitNoFile: Int32 = 7, rlimitAS: Int32 = 9

    /// Applies the limits that hold for the worker's whole life.
    static func applyLimits(_ limits: WorkerLimits) throws(SandboxError) {
        _ = shim_not_dumpable()
        try set(rlimitAS, limits.addressSpaceBytes, limits.addressSpaceBytes, "address space")
        try set(rlimitNoFile, limits.openFiles, limits.openFiles, "open files")
        try set(rlimitCore, 0, 0, "core dumps")
        // Writing to a file raises SIGXFSZ: a worker only ever writes to its pipes.
        try set(rlimitFSize, 0, 0, "file size")
        guard shim_no_new_privs() == 0 else { throw .call("prctl(PR_SET_NO_NEW_PRIVS)", errno) }
    }

    /// Re-arms the CPU limit for the next file: the soft limit is the CPU time used so far plus
    /// one file's budget (SIGXCPU when reached); the hard limit, one second later, is SIGKILL.
    static func armCPULimit(secondsPerFile: UInt64) {
        let used = UInt64(max(0, shim_cpu_micros()) / 1_000_000)
        _ = shim_setrlimit(rlimitCPU, used + secondsPerFile, UInt64.max)
    }

    static func set(_ resource: Int32, _ soft: UInt64, _ hard: UInt64, _ what: String) throws(SandboxError) {
        guard shim_setrlimit(resource, soft, hard) == 0 else { throw .call("setrlimit(\(what))", errno) }
    }

    /// The system calls a parser needs. Everything else fails with EPERM, except `killed`.
    static let allowed = [
        "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64",
        "close", "fstat", "newfstatat", "stat", "lstat", "statx", "lseek", "fstatfs", "statfs",
        "mmap", "mprotect", "munmap", "mremap", "madvise", "brk", "mincore", "msync",
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "tgkill", "tkill", "getpid", "gettid",
        "futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "membarrier",
        "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
        "getuid", "geteuid", "getgid", "getegid", "getppid", "getresuid", "getresgid", "getgroups",
        "getrandom", "exit", "exit_group", "sched_yield", "sched_getaffinity", "getcpu",
        "getcwd", "readlink", "readlinkat", "getdents64", "fcntl", "dup", "dup2", "dup3",
        "prlimit64", "getrlimit", "setrlimit", "getrusage", "uname", "sysinfo", "poll", "ppoll",
        "access", "faccessat", "faccessat2", "eventfd2", "pipe2", "pipe", "getpriority", "umask",
        "arch_prctl", "prctl", "sched_getparam", "sched_getscheduler", "restart_syscall",
    ]
    /// Calls only an exploited parser would make: the worker dies (SIGSYS) and the file is
    /// recorded as a failure.
    static let killed = [
        "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "kill",
    ]
    /// Refused with EACCES rather than fatal: glibc's name lookups (`getpwuid` for the owner's
    /// name) try nscd's Unix socket first and fall back to /etc/passwd when that fails.
    static let refused = ["socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
                          "sendto", "sendmsg", "recvfrom", "recvmsg"]

    /// Installs the filter. Must come after everything that needs more (loading libmagic's
    /// database is a read-only open, so even that could come later).
    static func installFilter() throws(SandboxError) {
        guard let ctx = seccomp_init(errnoAction(EPERM)) else { throw .call("seccomp_init", ENOMEM) }
        defer { seccomp_release(ctx) }
        func rule(_ action: UInt32, _ name: String, _ cmps: [scmp_arg_cmp] = []) throws(SandboxError) {
            let nr = seccomp_syscall_resolve_name(name)
            guard nr != __NR_SCMP_ERROR else { return }   // not a call on this architecture
            let rc = cmps.withUnsafeBufferPointer { seccomp_rule_add_array(ctx, action, nr, UInt32($0.count), $0.baseAddress) }
            guard rc == 0 else { throw .call("seccomp_rule_add(\(name))", -rc) }
        }
        let allow = UInt32(0x7fff_0000)         // SCMP_ACT_ALLOW
        let killProcess = UInt32(0x8000_0000)   // SCMP_ACT_KILL_PROCESS
        for name in allowed { try rule(allow, name) }
        for name in killed { try rule(killProcess, name) }
        for name in refused { try rule(errnoAction(EACCES), name) }
        // Opens: read-only, never creating or truncating anything.
        let writeFlags = UInt64(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | 0o20000000 /* O_TMPFILE */)
        try rule(allow, "openat", [scmp_arg_cmp(arg: 2, op: SCMP_CMP_MASKED_EQ, datum_a: writeFlags, datum_b: 0)])
        try rule(allow, "open", [scmp_arg_cmp(arg: 1, op: SCMP_CMP_MASKED_EQ, datum_a: writeFlags, datum_b: 0)])
        // Threads yes (GLib may start one), new processes no: clone must carry CLONE_THREAD, and
        // clone3, whose flags a filter cannot read, answers ENOSYS so that glibc falls back to clone.
        let cloneThread = UInt64(0x0001_0000)
        try rule(allow, "clone", [scmp_arg_cmp(arg: 0, op: SCMP_CMP_MASKED_EQ, datum_a: cloneThread, datum_b: cloneThread)])
        try rule(killProcess, "clone", [scmp_arg_cmp(arg: 0, op: SCMP_CMP_MASKED_EQ, datum_a: cloneThread, datum_b: 0)])
        try rule(errnoAction(ENOSYS), "clone3")
        // isatty and friends: terminal queries only.
        try rule(allow, "ioctl", [scmp_arg_cmp(arg: 1, op: SCMP_CMP_EQ, datum_a: 0x5401 /* TCGETS */, datum_b: 0)])
        let rc = seccomp_load(ctx)
        guard rc == 0 else { throw .call("seccomp_load", -rc) }
    }

    static func errnoAction(_ e: Int32) -> UInt32 { 0x0005_0000 | (UInt32(e) & 0xFFFF) }   // SCMP_ACT_ERRNO(e)
}

enum SandboxError: Error, CustomStringConvertible {
    case call(String, Int32)
    var description: String {
        switch self {
        case let .call(what, e): "\(what) failed: \(String(cString: strerror(e)))"
        }
    }
}
