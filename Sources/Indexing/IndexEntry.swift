import Attributes

/// One item to write, with the bookkeeping the index keeps beside Core Spotlight's item: the
/// file's change stamp (so an incremental crawl can skip unchanged files) and the version of the
/// extractors that produced the attributes (so a newer extractor can re-extract).
public struct IndexEntry: Sendable, Hashable {
    public var item: SearchableItem
    public var stamp: FileStamp?
    public var extractorVersion: Int

    public init(item: SearchableItem, stamp: FileStamp? = nil, extractorVersion: Int = 0) {
        self.item = item
        self.stamp = stamp
        self.extractorVersion = extractorVersion
    }
}

/// The facts that decide whether a stored item is still current: size, mtime and ctime in
/// nanoseconds, and the inode.
public struct FileStamp: Sendable, Hashable {
    public var size: Int64
    public var modificationNanos: Int64
    public var changeNanos: Int64
    public var inode: UInt64

    public init(size: Int64, modificationNanos: Int64, changeNanos: Int64, inode: UInt64) {
        self.size = size
        self.modificationNanos = modificationNanos
        self.changeNanos = changeNanos
        self.inode = inode
    }
}

/// What the index remembers of an item for an incremental crawl.
public struct StoredStamp: Sendable, Hashable {
    public var id: Int64
    public var stamp: FileStamp?
    public var extractorVersion: Int
}
