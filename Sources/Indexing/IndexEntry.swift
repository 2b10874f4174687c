import Attributes
import MemberwiseInit

/// One item to write, with the bookkeeping the index keeps beside Core Spotlight's item: the
/// file's change stamp (so an incremental crawl can skip unchanged files) and the version of the
/// extractors that produced the attributes (so a newer extractor can re-extract).
package struct IndexEntry: Sendable, Hashable {
    package var item: SearchableItem
    package var stamp: FileStamp?
    package var extractorVersion: Int
    /// The content extractor that produced the attributes (`pdf`, ...), if one did.
    package var extractor: String?
    /// Whether the item's `textContentSummary` was made already, with its text (the extraction
    /// worker does, see `WorkerSummaries`): then the item is not marked for the summary pass,
    /// which is left the donated items and indexes written before.
    package var summarized: Bool
    /// The text as the index stores it, packed beforehand off the writer's thread
    /// (`packText()`); nil: the writer packs it.
    package var packedText: PackedText?
    /// Whether the item waits for the OCR pass, decided when its text was packed away (the
    /// writer no longer has the text); nil: the writer decides from the attributes.
    package var recognitionWanted: Bool?

    package init(item: SearchableItem, stamp: FileStamp? = nil, extractorVersion: Int = 0, extractor: String? = nil,
                summarized: Bool = false) {
        self.item = item
        self.stamp = stamp
        self.extractorVersion = extractorVersion
        self.extractor = extractor
        self.summarized = summarized
    }
}

/// The current version of every content extractor, as the extraction stage reports it, so that
/// the index can tell which items an older extractor wrote. The index does not know the
/// extractors themselves.
@MemberwiseInit
package struct ExtractorVersions: Sendable, Hashable {
    /// The version of items no content extractor read.
    package var none: Int
    package var byName: [String: Int]

    /// Whether an item written by `extractor` at `version` is current. An extractor that no
    /// longer exists makes its items stale.
    package func isCurrent(extractor: String?, version: Int) -> Bool {
        guard let extractor else { return version == none }
        return byName[extractor] == version
    }
}

/// The facts that decide whether a stored item is still current: size, mtime and ctime in
/// nanoseconds, and the inode.
@MemberwiseInit
package struct FileStamp: Sendable, Hashable {
    package var size: Int64
    package var modificationNanos: Int64
    package var changeNanos: Int64
    package var inode: UInt64
}

/// What the index remembers of an item for an incremental crawl.
package struct StoredStamp: Sendable, Hashable {
    package var id: Int64
    package var stamp: FileStamp?
    package var extractorVersion: Int
    package var extractor: String?
}
