import Glibc

/// One record read from an inotify descriptor: `struct inotify_event` with its name as bytes.
struct RawInotifyEvent: Sendable, Hashable {
    /// The watch descriptor; -1 for `IN_Q_OVERFLOW`.
    var wd: Int32
    var mask: UInt32
    /// Pairs an `IN_MOVED_FROM` with its `IN_MOVED_TO`; 0 otherwise.
    var cookie: UInt32
    /// The entry's name inside the watched folder, without the NUL padding; empty for events about
    /// the watched folder itself (`IN_DELETE_SELF`, `IN_MOVE_SELF`, `IN_IGNORED`, ...).
    var name: [UInt8]

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
}

enum InotifyMask {
    /// What every folder is watched for. `IN_ONLYDIR` and `IN_DONT_FOLLOW` make sure a symlink or
    /// a file put in a folder's place is never watched; `IN_EXCL_UNLINK` stops events for files
    /// already unlinked but still open. `IN_UNMOUNT`, `IN_IGNORED` and `IN_Q_OVERFLOW` arrive anyway.
    static let folder = UInt32(bitPattern: IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB
        | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
        | IN_EXCL_UNLINK)
}

extension RawInotifyEvent {
    /// The size of `struct inotify_event` without its name (16); `char name[]` is not imported.
    static let headerSize = MemoryLayout<inotify_event>.size

    /// Decodes a buffer filled by `read(2)`. The kernel only returns whole records, so a record
    /// cut short can only come from a caller's mistake; it ends the decoding instead of trapping.
    ///
    /// For example, a buffer with one `IN_CREATE` for `a.txt` on watch 1 decodes to
    /// `[RawInotifyEvent(wd: 1, mask: IN_CREATE, cookie: 0, name: Array("a.txt".utf8))]`.
    static func decode(_ buffer: UnsafeRawBufferPointer) -> [RawInotifyEvent] {
        var out: [RawInotifyEvent] = []
        var offset = 0
        while offset + headerSize <= buffer.count {
            let header = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let length = Int(header.len)
            guard offset + headerSize + length <= buffer.count else { break }
            var name = Array(buffer[(offset + headerSize) ..< (offset + headerSize + length)])
            if let nul = name.firstIndex(of: 0) { name.removeSubrange(nul...) }
            out.append(RawInotifyEvent(wd: header.wd, mask: header.mask, cookie: header.cookie, name: name))
            offset += headerSize + length
        }
        return out
    }

    /// Encodes records the way the kernel lays them out (names NUL-padded to 16 bytes): the
    /// inverse of `decode`, for tests that feed the watcher synthetic buffers.
    static func encode(_ events: [RawInotifyEvent]) -> [UInt8] {
        var out: [UInt8] = []
        for e in events {
            let padded = e.name.isEmpty ? 0 : (e.name.count + 1 + 15) / 16 * 16
            var header = inotify_event()
            header.wd = e.wd
            header.mask = e.mask
            header.cookie = e.cookie
            header.len = UInt32(padded)
            withUnsafeBytes(of: &header) { out.append(contentsOf: $0) }
            out.append(contentsOf: e.name)
            out.append(contentsOf: repeatElement(0, count: padded - e.name.count))
        }
        return out
    }
}
