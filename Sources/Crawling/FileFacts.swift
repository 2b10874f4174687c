// Re-exported: every user of file facts speaks in byte paths (`FilePath.bytes`, `init(bytes:)`).
@_exported import SystemCalls
import SystemPackage

/// What the file system says about one file, read with `statx(2)` without following symlinks.
///
/// This is the common subset the later stages need; the raw `statx` stays inside `Crawling`.
/// Times are nanoseconds since the epoch so that change detection compares them exactly.
public struct FileFacts: Sendable, Hashable {
    public var path: FilePath
    public var type: FileType
    public var size: Int64
    /// Permission bits (`st_mode & 07777`).
    public var permissions: UInt32
    public var uid: UInt32
    public var gid: UInt32
    public var device: UInt64
    public var inode: UInt64
    public var linkCount: UInt32
    public var accessNanos: Int64
    public var modificationNanos: Int64
    public var changeNanos: Int64
    /// Birth time, where `statx` reports it (`STATX_BTIME`).
    public var birthNanos: Int64?
    /// Allocated bytes (`st_blocks * 512`): far below `size` for a sparse file.
    public var allocatedSize: Int64

    public init(path: FilePath, type: FileType, size: Int64, permissions: UInt32, uid: UInt32, gid: UInt32,
                device: UInt64, inode: UInt64, linkCount: UInt32, accessNanos: Int64, modificationNanos: Int64,
                changeNanos: Int64, birthNanos: Int64?, allocatedSize: Int64) {
        self.path = path
        self.type = type
        self.size = size
        self.permissions = permissions
        self.uid = uid
        self.gid = gid
        self.device = device
        self.inode = inode
        self.linkCount = linkCount
        self.accessNanos = accessNanos
        self.modificationNanos = modificationNanos
        self.changeNanos = changeNanos
        self.birthNanos = birthNanos
        self.allocatedSize = allocatedSize
    }

    /// The raw bytes of the path (no trailing NUL).
    public var pathBytes: [UInt8] { path.bytes }
}

/// The type of a directory entry. FSIndex opens only `.regular` files; FIFOs, sockets and devices
/// are indexed from their facts alone, and symlinks as links.
public enum FileType: String, Sendable, Hashable, Codable {
    case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, unknown

    public init(mode: UInt32) {
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
