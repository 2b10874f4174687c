import CSysShims
import SystemPackage
import Glibc

// Child processes and the pipes to them, in `SystemCall`'s convention. Starting one is `Spawn`.

extension SystemCall {
    /// `waitpid(2)`, EINTR retried: the pid reaped (0 with `WNOHANG` when the child still runs),
    /// its wait status in `status`.
    package static func waitpid(_ pid: pid_t, status: inout Int32, options: Int32 = 0) -> Result<pid_t, Errno> {
        retrying { Glibc.waitpid(pid, &status, options) }
    }

    /// Waits up to `milliseconds` (-1: for as long as it takes) for process `pid` to end, and
    /// says whether it did (a zombie not yet reaped has ended; a pid that is gone too). A
    /// process has no clock to inject, so the wait is the kernel's: `poll` on a pidfd, woken by
    /// the exit itself, never a loop of sleeps. Where pidfds are missing (Linux before 5.3) the
    /// answer is false after a pause of at most 20 ms, and callers poll again or do what they
    /// do at their deadline.
    package static func awaitExit(_ pid: pid_t, milliseconds: Int32) -> Bool {
        let fd = retrying { shim_pidfd_open(pid) }
        switch fd {
        case .failure(.noSuchProcess): return true
        case .failure:
            // No pidfd (Linux before 5.3, or no descriptor left): a short pause instead, so that
            // a caller's loop polls as it did before rather than spinning.
            usleep(useconds_t(max(0, min(milliseconds < 0 ? 20 : milliseconds, 20))) * 1000)
            return false
        case .success(let fd):
            defer { close(fd) }
            // A signal restarts the wait with its full time: at worst a little longer.
            guard case .success(let revents) = poll(fd, events: Int16(POLLIN), timeout: milliseconds) else { return false }
            return revents != 0
        }
    }

    /// `kill(2)`: sends `signal` to `pid` (to its process group when `pid` is negative).
    @discardableResult
    package static func kill(_ pid: pid_t, _ signal: Int32) -> Result<Void, Errno> {
        Glibc.kill(pid, signal) == 0 ? .success(()) : .failure(Errno(rawValue: errno))
    }

    /// Whether `path` names a file this process may execute (`access(X_OK)`).
    package static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// `pipe2(O_CLOEXEC)`: its read and write ends.
    package static func pipe() -> Result<(read: Int32, write: Int32), Errno> {
        var fds: [Int32] = [-1, -1]
        return retrying { shim_pipe_cloexec(&fds) }.map { _ in (fds[0], fds[1]) }
    }

    /// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`, blocking: a channel that can carry
    /// descriptors (the extraction worker's requests).
    package static func streamPair() -> Result<(Int32, Int32), Errno> {
        var fds: [Int32] = [-1, -1]
        return retrying { shim_socketpair_cloexec(&fds) }.map { _ in (fds[0], fds[1]) }
    }
}
