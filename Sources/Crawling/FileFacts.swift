import MemberwiseInit
import SystemCalls
import SystemPackage

/// A file time as `statx(2)` gives it: whole seconds since 1970 and nanoseconds apart.
///
/// Why not one count of nanoseconds: an `Int64` of them spans only 1677 to 2262, and a file
/// touched to 2300-01-01 was indexed as 1715-06-13 (issue 22, F12). Seconds hold any time a
/// file system can store; `nanosecondsSince1970` is the saturated count that change detection
/// compares (exact inside those years).
@MemberwiseInit
package struct FileTime: Sendable, Hashable {
    package var seconds: Int64
    /// 0 to 999,999,999.
    package var nanoseconds: UInt32

    /// The time of a count of nanoseconds since 1970.
    package init(nanosecondsSince1970 n: Int64) {
        var s = n / 1_000_000_000
        var f = n % 1_000_000_000
        if f < 0 { s -= 1; f += 1_000_000_000 }
        self.init(seconds: s, nanoseconds: UInt32(f))
    }

    /// Nanoseconds since 1970, saturated at `Int64.min` and `Int64.max` outside 1677 to 2262.
    package var nanosecondsSince1970: Int64 {
        let (whole, o1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, o2) = whole.addingReportingOverflow(Int64(nanoseconds))
        if o1 || o2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Seconds since 1970 as a `Double` (the form `Date` takes), without going through an
    /// integer that can overflow.
    package var secondsSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }
}

/// What the file system says about one file, read with `statx(2)` without following symlinks.
///
/// This is the common subset the later stages need; the raw `statx` stays inside `Crawling`.
/// Times are kept as `FileTime` (seconds and nanoseconds apart, exact for any year); the
/// `…Nanos` counts of them are what change detection compares exactly.
@MemberwiseInit
package struct FileFacts: Sendable, Hashable {
    package var path: FilePath
    package var type: FileType
    package var size: Int64
    /// Permission bits (`st_mode & 07777`).
    package var permissions: UInt32
    package var uid: UInt32
    package var gid: UInt32
    package var device: UInt64
    package var inode: UInt64
    package var linkCount: UInt32
    package var accessTime: FileTime
    package var modificationTime: FileTime
    package var changeTime: FileTime
    /// Birth time, where `statx` reports it (`STATX_BTIME`).
    package var birthTime: FileTime?
    /// Allocated bytes (`st_blocks * 512`): far below `size` for a sparse file.
    package var allocatedSize: Int64

    package var accessNanos: Int64 { accessTime.nanosecondsSince1970 }
    package var modificationNanos: Int64 { modificationTime.nanosecondsSince1970 }
    package var changeNanos: Int64 { changeTime.nanosecondsSince1970 }
    package var birthNanos: Int64? { birthTime?.nanosecondsSince1970 }

    /// Facts with times given as nanoseconds since 1970 (tests, fuzzing).
    package init(path: FilePath, type: FileType, size: Int64, permissions: UInt32, uid: UInt32, gid: UInt32,
                device: UInt64, inode: UInt64, linkCount: UInt32, accessNanos: Int64, modificationNanos: Int64,
                changeNanos: Int64, birthNanos: Int64?, allocatedSize: Int64) {
        self.init(path: path, type: type, size: size, permissions: permissions, uid: uid, gid: gid, device: device, inode: inode,
                  linkCount: linkCount, accessTime: FileTime(nanosecondsSince1970: accessNanos),
                  modificationTime: FileTime(nanosecondsSince1970: modificationNanos),
                  changeTime: FileTime(nanosecondsSince1970: changeNanos),
                  birthTime: birthNanos.map(FileTime.init(nanosecondsSince1970:)), allocatedSize: allocatedSize)
    }

    /// The raw bytes of the path (no trailing NUL).
    package var pathBytes: [UInt8] { path.bytes }
}

/// The type of a directory entry. FSIndex opens only `.regular` files; FIFOs, sockets and devices
/// are indexed from their facts alone, and symlinks as links.
package enum FileType: String, Sendable, Hashable, Codable {
    case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, unknown

    package init(mode: UInt32) {
        switch mode & 0o170000 {
        case 0o100000: self = .regular
        case 0o040000: self = .directory
        case 0o120000: self = .symlink
        case 0o010000: self = .fifo
        case 0o140000: self = .socket
        case 0o020000: self = .characterDevice
        case 0o060000: self = .blockDevice
        default: self = .unknown
        }
    }
}
