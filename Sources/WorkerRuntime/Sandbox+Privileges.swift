import CSysShims
import Glibc

extension Sandbox {
    /// Leaves the worker without any privilege: every capability out of the bounding set (while
    /// it still has CAP_SETPCAP to do so), then, when started by root, `user`'s uid and gid with
    /// no supplementary groups, then empty ambient, effective, permitted and inheritable sets.
    /// Checked afterwards: a worker that could still become root refuses to start.
    ///
    /// Why both: dropping capabilities alone would leave uid 0, which owns most of the system's
    /// files and processes; changing the uid alone would leave the bounding set, through which a
    /// later exec of a privileged program could regain capabilities (seccomp forbids exec, but
    /// each layer should hold by itself). The files a root-run worker extracts, even those only
    /// root may read, come as descriptors its parent opened, so `nobody` loses nothing it needs.
    static func dropPrivileges(user: String) throws(SandboxError) {
        var target: (uid: uid_t, gid: gid_t)?
        if geteuid() == 0 {
            guard let entry = user.withCString({ getpwnam($0) }) else { throw .noSuchUser(user) }
            target = (entry.pointee.pw_uid, entry.pointee.pw_gid)
            guard target!.uid != 0 else {
                throw .stillPrivileged("runs as root: `worker_user` (\(user)) names a user with uid 0")
            }
        }
        guard shim_drop_bounding_set() == 0 else { throw .call("prctl(PR_CAPBSET_DROP)", errno) }
        if let target {
            guard shim_become_user(target.uid, target.gid) == 0 else { throw .call("setuid(\(user))", errno) }
        }
        guard shim_clear_capabilities() == 0 else { throw .call("capset", errno) }
        _ = shim_not_dumpable()   // a change of credentials resets it

        if target != nil {
            guard getuid() != 0, geteuid() != 0, getgid() != 0, getegid() != 0 else { throw .stillPrivileged("has uid or gid 0") }
            guard setuid(0) != 0 else { throw .stillPrivileged("can become root again") }
        }
        var effective: UInt64 = 0, permitted: UInt64 = 0, inheritable: UInt64 = 0, bounding: UInt64 = 0
        guard shim_capabilities(&effective, &permitted, &inheritable, &bounding) == 0 else { throw .call("capget", errno) }
        guard effective == 0, permitted == 0, inheritable == 0 else { throw .stillPrivileged("holds capabilities") }
    }
}
