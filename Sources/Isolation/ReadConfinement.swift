import CSysShims
import Glibc

/// Whether extraction workers can confine their reads with Landlock on this kernel: asked of
/// the kernel the same way the worker asks it, so `fsindex status` tells the truth about the
/// workers it would start.
///
/// Where Landlock is missing, a worker still has its other layers (seccomp, no capabilities,
/// `nobody` when started by root), but an exploited parser could read any file its user can:
/// that must be said, not silently accepted.
package enum ReadConfinement: Sendable, Hashable, CustomStringConvertible {
    /// Landlock with this ABI version: a worker reads only the libraries' data and the file it
    /// is given.
    case available(abi: Int32)
    /// No Landlock: the kernel lacks it (ENOSYS) or it is built in but not enabled (EOPNOTSUPP).
    case unavailable(errno: Int32)

    package static var current: ReadConfinement {
        let abi = shim_landlock_abi()
        return abi > 0 ? .available(abi: abi) : .unavailable(errno: errno)
    }

    package var description: String {
        switch self {
        case let .available(abi):
            "Landlock ABI \(abi): workers read only library data and the file they are given"
        case let .unavailable(e) where e == EOPNOTSUPP:
            "no Landlock (built into the kernel but not enabled: add landlock to the lsm= boot parameter); workers can read any file their user can"
        case .unavailable:
            "no Landlock (this kernel lacks it; Linux 5.13 or later has it); workers can read any file their user can"
        }
    }
}
