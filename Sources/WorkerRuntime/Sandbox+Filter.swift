import CSeccomp
import Glibc

/// The seccomp filter: which system calls a worker may make, and with which arguments.
///
/// A key design decision: the filter is an allow-list, and its default answer is `EPERM`, not
/// death. Parsers are big C libraries that probe the system in ways nobody lists (a `sysinfo`
/// from qsort, an `ioctl` from isatty): an unexpected call should fail like any refused call,
/// not turn a good file into a failure. The calls that only an attack would make (exec,
/// sockets, fork, ptrace, a signal to another process) kill the worker outright, so the parent
/// records them.
///
/// Calls that name a process are allowed only when they name the worker itself: the pid
/// argument must equal the worker's pid (compared with SCMP_CMP_EQ: a 64-bit comparison, so no
/// truncated or sign-extended value slips through), or 0 where 0 means "the caller" (not for
/// `kill`, where it means the whole process group). The uid change and Landlock's signal scope
/// refuse the same things again; each layer holds by itself.
extension Sandbox {
    /// The system calls a parser needs, whatever their arguments. Everything else fails with
    /// EPERM, except `killed` and the calls with argument rules in `installFilter`.
    static let allowed = [
        "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64",
        "close", "fstat", "newfstatat", "stat", "lstat", "statx", "lseek", "fstatfs", "statfs",
        "mmap", "mprotect", "munmap", "mremap", "madvise", "brk", "mincore", "msync",
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "getpid", "gettid",
        "futex", "futex_waitv", "set_robust_list", "rseq", "set_tid_address", "membarrier",
        "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
        "getuid", "geteuid", "getgid", "getegid", "getppid", "getresuid", "getresgid", "getgroups",
        "getrandom", "exit", "exit_group", "sched_yield", "sched_getaffinity", "getcpu",
        "getcwd", "readlink", "readlinkat", "getdents64", "fcntl", "dup", "dup2", "dup3",
        "getrlimit", "setrlimit", "getrusage", "uname", "sysinfo", "poll", "ppoll", "capget",
        "access", "faccessat", "faccessat2", "eventfd2", "pipe2", "pipe", "getpriority", "umask",
        "arch_prctl", "prctl", "sched_getparam", "sched_getscheduler", "restart_syscall",
    ]
    /// Calls only an exploited parser would make: the worker dies (SIGSYS) and the file is
    /// recorded as a failure. (Signals to other processes join these in `installFilter`.)
    static let killed = [
        "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",
        "pidfd_getfd", "pidfd_send_signal", "process_madvise", "kcmp",
    ]
    /// Refused with EACCES rather than fatal: glibc's name lookups (`getpwuid` for the owner's
    /// name) try nscd's Unix socket first and fall back to /etc/passwd when that fails.
    static let refused = ["socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
                          "sendto", "sendmsg", "recvfrom"]
    /// Signals: allowed to the worker itself (`raise`, `abort`), fatal to anyone else.
    static let signalling = ["kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"]
    /// Calls whose first argument is a pid, 0 meaning the caller: allowed on the worker only,
    /// EPERM on others (a library may lower its own priority or pin its own threads).
    static let ownProcessOnly = ["prlimit64", "sched_setaffinity", "sched_setparam", "sched_setscheduler", "sched_setattr",
                                 "pidfd_open"]

    /// Installs the filter for the worker whose pid is `me`. Must come after everything that
    /// needs more.
    static func installFilter(me: pid_t) throws(SandboxError) {
        guard let ctx = seccomp_init(errnoAction(EPERM)) else { throw .call("seccomp_init", ENOMEM) }
        defer { seccomp_release(ctx) }
        func rule(_ action: UInt32, _ name: String, _ cmps: [scmp_arg_cmp] = []) throws(SandboxError) {
            let nr = seccomp_syscall_resolve_name(name)
            guard nr != __NR_SCMP_ERROR else { return }   // not a call on this architecture
            let rc = cmps.withUnsafeBufferPointer { seccomp_rule_add_array(ctx, action, nr, UInt32($0.count), $0.baseAddress) }
            guard rc == 0 else { throw .call("seccomp_rule_add(\(name))", -rc) }
        }
        func arg(_ index: UInt32, _ op: scmp_compare, _ value: UInt64) -> scmp_arg_cmp {
            scmp_arg_cmp(arg: index, op: op, datum_a: value, datum_b: 0)
        }
        let allow = UInt32(0x7fff_0000)         // SCMP_ACT_ALLOW
        let killProcess = UInt32(0x8000_0000)   // SCMP_ACT_KILL_PROCESS
        let myself = UInt64(UInt32(bitPattern: me))
        for name in allowed { try rule(allow, name) }
        for name in killed { try rule(killProcess, name) }
        for name in refused { try rule(errnoAction(EACCES), name) }
        for name in signalling {
            try rule(allow, name, [arg(0, SCMP_CMP_EQ, myself)])
            try rule(killProcess, name, [arg(0, SCMP_CMP_NE, myself)])
        }
        for name in ownProcessOnly {
            try rule(allow, name, [arg(0, SCMP_CMP_EQ, myself)])
            if name != "pidfd_open" { try rule(allow, name, [arg(0, SCMP_CMP_EQ, 0)]) }
        }
        // Priorities: PRIO_PROCESS (0) of the caller only; I/O priority: IOPRIO_WHO_PROCESS (1).
        try rule(allow, "setpriority", [arg(0, SCMP_CMP_EQ, 0), arg(1, SCMP_CMP_EQ, 0)])
        try rule(allow, "setpriority", [arg(0, SCMP_CMP_EQ, 0), arg(1, SCMP_CMP_EQ, myself)])
        try rule(allow, "ioprio_set", [arg(0, SCMP_CMP_EQ, 1), arg(1, SCMP_CMP_EQ, 0)])
        // Requests (and the descriptors of the files to extract) arrive on standard input, a
        // Unix socket; no other socket can exist.
        try rule(allow, "recvmsg", [arg(0, SCMP_CMP_EQ, 0)])
        // Opens: read-only, never creating or truncating anything (Landlock limits where).
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
