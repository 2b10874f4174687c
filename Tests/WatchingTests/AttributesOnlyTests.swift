import Attributes
import Crawling
import Foundation
import Indexing
import SystemPackage
import TestSupport
import Testing
@testable import Watching
import Glibc

@Suite("LiveIndexer: a change of metadata alone (IN_ATTRIB)", .userXattrs)
struct AttributesOnlyTests {
    /// Sets the file's mtime back to `nanos`, leaving the access time alone (UTIME_OMIT, not
    /// imported by the Glibc module, is (1 << 30) - 2).
    static func setModification(_ path: FilePath, nanos: Int64) throws {
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
                     timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))]
        let rc = path.withPlatformString { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }
        if rc != 0 { throw Errno(rawValue: errno) }
    }

    @Test("new tags arrive without extracting again: content rewritten behind a restored mtime keeps its old text")
    func tagsWithoutExtraction() throws {
        let f = try LiveFixture()
        let path = try f.tree.create("root/doc.txt", contents: "alpha beta")
        _ = try f.live.apply([.created(path, isDirectory: false)])
        #expect(try f.text("doc.txt") == "alpha beta")
        let before = try FileFacts.read(path)

        // The observable: same size, same mtime, other words. Only a content extractor that ran
        // again could put "gamma zeta" in the index.
        try f.tree.create("root/doc.txt", contents: "gamma zeta")
        try Self.setModification(path, nanos: before.modificationNanos)
        try TestXattrs.set(path, "user.xdg.tags", "urgent,Review")
        try TestXattrs.set(path, "user.xdg.comment", "check the appendix")
        let changes = try f.live.apply([.attributesChanged(path)])

        #expect(changes.updated.map(\.description) == [path.string])
        let item = try #require(try f.store.item(ItemIdentifier(bytes: path.bytes)))
        #expect(item.attributes.textContent == "alpha beta")           // not extracted again
        #expect(item.attributes.strings(.userTags) == ["urgent", "Review"])
        #expect(item.attributes.string(.comment) == "check the appendix")
        // The stamp is the disk's now: a later batch or `fsindex check` finds it current.
        let stamp = try #require(try f.store.stamps(of: [ItemIdentifier(bytes: path.bytes)])[path.bytes]?.stamp)
        #expect(stamp.changeNanos == (try FileFacts.read(path)).changeNanos)

        // A real write (a new mtime) is extracted, and the tags stay.
        try f.tree.create("root/doc.txt", contents: "delta epsilon")
        _ = try f.live.apply([.modified(path)])
        #expect(try f.text("doc.txt") == "delta epsilon")
        #expect(try f.store.item(ItemIdentifier(bytes: path.bytes))?.attributes.strings(.userTags) == ["urgent", "Review"])
    }

    @Test("IN_ATTRIB after a content change (touch, or a write in the same batch) extracts as usual")
    func contentChangeStillExtracts() throws {
        let f = try LiveFixture()
        let path = try f.tree.create("root/n.txt", contents: "first")
        _ = try f.live.apply([.created(path, isDirectory: false)])

        try f.tree.create("root/n.txt", contents: "second text")           // another size
        _ = try f.live.apply([.attributesChanged(path)])
        #expect(try f.text("n.txt") == "second text")

        let facts = try FileFacts.read(path)
        try f.tree.create("root/n.txt", contents: "third texts")           // same size
        try Self.setModification(path, nanos: facts.modificationNanos)
        _ = try f.live.apply([.attributesChanged(path), .modified(path)])
        #expect(try f.text("n.txt") == "third texts")
    }
}
