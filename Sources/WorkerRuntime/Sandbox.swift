import CSysShims
import Isolation
import Glibc

/// What a worker process does to itself before it reads any file, in this order: resource
/// limits and no new privileges (`applyLimits`); loading what the parsers need; dropping every
/// capability and, when started by root, becoming an unprivileged user (`dropPrivileges`);
/// confining its reads to the libraries' data with Landlock (`confineReads`); and a seccomp
/// filter (`installFilter`).
///
/// A key design decision: an exploited parser is assumed. It holds only what the worker holds
/// after these steps: no capability, no uid 0, no way to open a file outside the read-only data
/// (the file it extracts comes as a descriptor from the parent), no way to touch another process
/// (signals, rlimits, priorities, ptrace and friends act only on itself), and a finite CPU
/// budget. The isolation tests take control of a running worker and try each of these.
enum Sandbox {
    /// RLIMIT numbers (the Glibc module's enum does not import as plain ints).
    static let rlimitCPU: Int32 = 0, rlimitFSize: Int32 = 1, rlimitCore: Int32 = 4, rlimitNoFile: Int32 = 7, rlimitAS: Int32 = 9

    /// Applies the limits that hold for the worker's whole life. The CPU limit's hard value is
    /// the worker's lifetime budget: finite, and never raised again (that needs
    /// CAP_SYS_RESOURCE, which `dropPrivileges` removes).
    static func applyLimits(_ limits: WorkerLimits) throws(SandboxError) {
        _ = shim_not_dumpable()
        try set(rlimitAS, limits.addressSpaceBytes, limits.addressSpaceBytes, "address space")
        try set(rlimitNoFile, limits.openFiles, limits.openFiles, "open files")
        try set(rlimitCore, 0, 0, "core dumps")
        // Writing to a file raises SIGXFSZ: a worker only ever writes to its pipes.
        try set(rlimitFSize, 0, 0, "file size")
        let budget = max(limits.cpuSecondsPerWorker, limits.cpuSecondsPerFile + 1)
        try set(rlimitCPU, budget, budget, "CPU time")
        guard shim_no_new_privs() == 0 else { throw .call("prctl(PR_SET_NO_NEW_PRIVS)", errno) }
    }

    /// Re-arms the CPU limit for the next file: the soft limit is the CPU time used so far plus
    /// one file's budget (SIGXCPU when reached), below the finite hard limit (SIGKILL). Returns
    /// false when the hard limit leaves less than one file's budget: the worker then ends after
    /// this file (see `FrameKind.retiring`), its soft limit at the hard limit minus a second.
    static func armCPULimit(secondsPerFile: UInt64) -> Bool {
        let used = UInt64(max(0, shim_cpu_micros()) / 1_000_000)
        var soft: UInt64 = 0, hard: UInt64 = 0
        guard shim_getrlimit(rlimitCPU, &soft, &hard) == 0 else { return false }
        let wanted = used + secondsPerFile
        _ = shim_setrlimit(rlimitCPU, min(wanted, hard > 1 ? hard - 1 : hard), hard)
        return wanted + 1 < hard
    }

    static func set(_ resource: Int32, _ soft: UInt64, _ hard: UInt64, _ what: String) throws(SandboxError) {
        guard shim_setrlimit(resource, soft, hard) == 0 else { throw .call("setrlimit(\(what))", errno) }
    }
}

/// Why a worker could not put its sandbox in place; it then refuses to extract anything (exit
/// status 3) and the parent records this message for the file.
enum SandboxError: Error, CustomStringConvertible {
    case call(String, Int32)
    case noSuchUser(String)
    case stillPrivileged(String)

    var description: String {
        switch self {
        case let .call(what, e): "\(what) failed: \(String(cString: strerror(e)))"
        case let .noSuchUser(name):
            "the worker user \"\(name)\" does not exist; create it, or set `worker_user` in the [extraction] section of the config to an unprivileged user"
        case let .stillPrivileged(what): "the worker still \(what) after dropping its privileges; it refuses to parse files"
        }
    }
}
