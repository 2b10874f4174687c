import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

// Child processes, in `SystemCall`'s convention. Starting one is `Spawn`.

extension SystemCall {
    /// `waitpid(2)`, EINTR retried: the pid reaped (0 with `WNOHANG` when the child still runs),
    /// its wait status in `status`.
    public static func waitpid(_ pid: pid_t, status: inout Int32, options: Int32 = 0) -> Result<pid_t, Errno> {
        retrying { Glibc.waitpid(pid, &status, options) }
    }
}
