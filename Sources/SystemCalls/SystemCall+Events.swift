import CSysShims
import SystemPackage
import Glibc

// Waiting: poll, inotify, eventfd and the monotonic clock, in `SystemCall`'s convention.

extension SystemCall {
    /// `poll(2)`; `timeout` in milliseconds, -1 for none. EINTR is returned as zero ready
    /// descriptors (every `revents` cleared), so that a caller looping on its own deadline
    /// recomputes the time left instead of waiting the whole timeout again.
    package static func poll(_ fds: inout [pollfd], timeout: Int32) -> Result<Int32, Errno> {
        let rc = Glibc.poll(&fds, nfds_t(fds.count), timeout)
        if rc == -1 && errno == EINTR {
            for i in fds.indices { fds[i].revents = 0 }
            return .success(0)
        }
        return rc == -1 ? .failure(Errno(rawValue: errno)) : .success(rc)
    }

    /// `poll(2)` of one descriptor for `events`: its `revents` (0 when the time ran out or a
    /// signal came).
    package static func poll(_ fd: Int32, events: Int16, timeout: Int32) -> Result<Int16, Errno> {
        var fds = [pollfd(fd: fd, events: events, revents: 0)]
        return poll(&fds, timeout: timeout).map { _ in fds[0].revents }
    }

    /// `poll(2)` for input on `fds`, EINTR retried (with the whole `timeout` again); the
    /// `revents`, in order. For the watcher's thread, whose loop computes no deadline of its own.
    package static func pollReadable(_ fds: [Int32], timeout: Int32) -> Result<[Int16], Errno> {
        var pfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        return retrying { Glibc.poll(&pfds, nfds_t(pfds.count), timeout) }.map { _ in pfds.map(\.revents) }
    }

    // MARK: inotify

    /// Wraps `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    package static func inotifyInit() -> Result<Int32, Errno> {
        retrying { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    /// Wraps `inotify_add_watch(2)`. Adding a watch for an inode already watched returns the same
    /// descriptor (and replaces its mask).
    package static func inotifyAddWatch(_ fd: Int32, _ path: FilePath, mask: UInt32) -> Result<Int32, Errno> {
        retrying { path.withPlatformString { inotify_add_watch(fd, $0, mask) } }
    }

    /// Wraps `inotify_rm_watch(2)`. EINVAL (the watch is already gone) is not an error worth reporting.
    @discardableResult
    package static func inotifyRemoveWatch(_ fd: Int32, _ wd: Int32) -> Result<Void, Errno> {
        inotify_rm_watch(fd, wd) == 0 ? .success(()) : .failure(Errno(rawValue: errno))
    }

    // MARK: eventfd, to wake a thread blocked in poll

    /// An `eventfd(2)` (close-on-exec, non-blocking) to wake a thread blocked in `poll`.
    package static func eventFD() -> Result<Int32, Errno> {
        let fd = shim_eventfd()
        return fd >= 0 ? .success(fd) : .failure(Errno(rawValue: errno))
    }

    /// Adds one to an eventfd counter (wakes its poller).
    package static func signal(eventFD fd: Int32) {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(fd, $0) }
    }

    /// Resets an eventfd counter after a wake-up.
    package static func drain(eventFD fd: Int32) {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(fd, into: $0) }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: deadlines for pending moves, debounces and polling.
    package static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
