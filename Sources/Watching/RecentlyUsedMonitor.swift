import Dispatch
import SystemPackage
import Glibc

/// Wakes fsindexd when the desktop's recently-used list is written, so that a file opened in an
/// editor is a use a moment later, without any polling.
///
/// A key design decision: the watch is on the list's folder, not on the file. GTK saves the
/// list with `g_file_set_contents`, which writes a temporary file and renames it over the old
/// one, so a watch on the file itself would follow the old inode into oblivion after the first
/// save. The folder's `IN_MOVED_TO` (GTK, KDE) and `IN_CLOSE_WRITE` (programs that write in
/// place) are filtered by name; the rest of a busy `~/.local/share` costs one `read` per wakeup.
/// Like `IndexFileMonitor`, this only wakes: the daemon's writer reads and applies the list.
/// Sendable: its one state is a dispatch source, whose `cancel()` is safe from any thread.
package final class RecentlyUsedMonitor: @unchecked Sendable {
    private let source: any DispatchSourceRead
    package let file: FilePath

    /// Starts watching `file`'s folder; throws when the folder cannot be watched (it does not
    /// exist: the desktop never wrote a list; or inotify is unavailable).
    package init(file: FilePath, onChange: @escaping @Sendable () -> Void) throws(Errno) {
        self.file = file
        let name = Array(file.lastComponent?.string.utf8 ?? "".utf8)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR)
        guard file.removingLastComponent().withPlatformString({ inotify_add_watch(fd, $0, mask) }) >= 0 else {
            let e = Errno(rawValue: errno)
            close(fd)
            throw e
        }
        // A serial queue of its own, not `.global()`: the global queue's first thread starts
        // libdispatch's once-a-second workqueue monitor (issue 14; CGlobalExecutor).
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "fsindex.recently-used-monitor"))
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            var wake = false
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                wake = wake || Self.names(in: buffer[..<n]).contains(name)
            }
            if wake { onChange() }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    /// The names in a buffer of `struct inotify_event`s (4 + 4 + 4 + 4 bytes, then `len` bytes
    /// of NUL-padded name).
    static func names(in buffer: ArraySlice<UInt8>) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var k = buffer.startIndex
        while k + 16 <= buffer.endIndex {
            let len = buffer[(k + 12)..<(k + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            let start = k + 16, end = min(buffer.endIndex, start + Int(len))
            out.append(Array(buffer[start..<end].prefix { $0 != 0 }))
            k = end
        }
        return out
    }

    package func stop() { source.cancel() }

    deinit { source.cancel() }
}
