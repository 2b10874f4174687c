import Crawling
import Indexing

extension FileStamp {
    /// The stamp the index keeps for a file, from what the walker or `lstat` saw: what every
    /// "unchanged since it was indexed?" comparison and every write of an item uses.
    init(_ facts: FileFacts) {
        self.init(size: facts.size, modificationNanos: facts.modificationNanos, changeNanos: facts.changeNanos, inode: facts.inode)
    }
}
