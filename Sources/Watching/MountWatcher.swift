import SystemCalls
import Glibc

/// Wakes fsindexd when a file system is mounted or unmounted anywhere in its mount namespace.
///
/// A key design decision: the kernel says so itself. `/proc/self/mountinfo` reports
/// `POLLPRI | POLLERR` to poll(2) after each change of the mount table (proc(5)), so one thread
/// blocked in `poll` on it costs nothing while nothing is mounted, with no timer and no udev or
/// D-Bus client: a disk image, a tmpfs or a share mounted by hand is seen like a USB drive
/// mounted by the desktop. A pipe beside it ends the thread. `poll` only wakes: what changed is
/// found by reading the table again and comparing (`VolumeIndexer`).
package final class MountWatcher: Sendable {
    private let stopWrite: Int32
    private let thread: pthread_t

    /// Starts the thread; `onChange` runs on it after each change (a burst of mounts may
    /// wake it once). Nil when `/proc/self/mountinfo` or a thread is unavailable.
    package init?(path: String = "/proc/self/mountinfo", onChange: @escaping @Sendable () -> Void) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard case .success(let ends) = SystemCall.pipe() else {
            close(fd)
            return nil
        }
        let stopRead = ends.read, writeEnd = ends.write
        let started = SystemCall.startThread {
            defer {
                close(fd)
                close(stopRead)
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLPRI), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
            // The kernel compares the table's event count with the one seen at open, then at each poll.
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                guard case .success = SystemCall.poll(&fds, timeout: -1) else { return }
                if fds[1].revents != 0 { return }
                if fds[0].revents & Int16(POLLPRI | POLLERR) != 0 { onChange() }
            }
        }
        guard case .success(let t) = started else {
            close(fd)
            close(stopRead)
            close(writeEnd)
            return nil
        }
        stopWrite = writeEnd
        thread = t
    }

    /// Ends the thread and waits for it; `onChange` is not called after this returns.
    package func stop() {
        var byte: UInt8 = 1
        _ = write(stopWrite, &byte, 1)
        pthread_join(thread, nil)
        close(stopWrite)
    }
}
