import Attributes
import Crawling
import ExtractionModel
import Foundation
import Indexing
import Querying
import SystemPackage
import TestSupport
import Testing
@testable import Updating

extension CrawlFixture {
    /// The paths (relative to the root) a short query finds.
    func short(_ query: String) throws -> Set<String> {
        let spec = QuerySpec(predicate: try ShortQueryParser.parse(query).predicate)
        return Set(try QueryEngine(store: store).run(spec).map { String($0.identifier.description.dropFirst(root.string.count + 1)) })
    }

    func attributes(_ rel: String) throws -> AttributeSet {
        try #require(try store.item(ItemIdentifier(bytes: root.appending(rel).bytes))).attributes
    }
}

@Suite("Extended attributes: tags, comment, origin, rating", .userXattrs)
struct ExtendedAttributeCrawlTests {
    @Test("a crawl reads all four (in the parent), and a bad rating is left out with a problem, never a crash")
    func crawlReadsAll() throws {
        let f = try CrawlFixture()
        let report = try f.tree.create("root/report.txt", contents: "plain words")
        try TestXattrs.set(report, "user.xdg.tags", "work, Draft,,work")
        try TestXattrs.set(report, "user.xdg.comment", "ask the zebrafish committee\u{0}")
        try TestXattrs.set(report, "user.xdg.origin.url", "https://example.org/report.txt")
        try TestXattrs.set(report, "user.xdg.referrer.url", "https://example.org/")
        try TestXattrs.set(report, "user.baloo.rating", "7")
        let bad = try f.tree.create("root/bad.txt", contents: "other words")
        try TestXattrs.set(bad, "user.baloo.rating", "five stars")
        try TestXattrs.set(bad, "user.other.thing", "ignored")
        _ = try f.crawl()

        let a = try f.attributes("report.txt")
        #expect(a.strings(.userTags) == ["work", "Draft"])
        #expect(a.string(.comment) == "ask the zebrafish committee")
        #expect(a.strings(.whereFroms) == ["https://example.org/report.txt", "https://example.org/"])
        #expect(a.integer(.rating) == 7)
        #expect(a.string(.extractionError) == nil)

        let b = try f.attributes("bad.txt")
        #expect(b[.rating] == nil)
        #expect(b.string(.extractionError) == nil)   // the content was read fine
        #expect(b.string(.textContent) == "other words")
        #expect(f.problems.contains { $0.path.hasSuffix("bad.txt") && $0.message.contains("user.baloo.rating \"five stars\" is not a rating from 0 to 10") })
    }

    @Test("tag: matches a whole tag ignoring case (not homework), keywords too; comment words are searchable")
    func tagQueries() throws {
        let f = try CrawlFixture()
        try TestXattrs.set(try f.tree.create("root/a.txt", contents: "alpha"), "user.xdg.tags", "Work,2026")
        try TestXattrs.set(try f.tree.create("root/b.txt", contents: "beta"), "user.xdg.tags", "homework")
        try TestXattrs.set(try f.tree.create("root/c.txt", contents: "gamma"), "user.xdg.tags", "work-in-progress")
        try TestXattrs.set(try f.tree.create("root/d.txt", contents: "delta"), "user.xdg.comment", "Reviewed by Ingrid at the harbour")
        try f.tree.create("root/e.txt", contents: "epsilon")
        _ = try f.crawl()

        #expect(try f.short("tag:work") == ["a.txt"])
        #expect(try f.short("tag:WORK") == ["a.txt"])
        #expect(try f.short("tags:homework") == ["b.txt"])
        #expect(try f.short("tag:work*") == ["a.txt", "c.txt"])
        #expect(try f.short("tag:work-in-progress") == ["c.txt"])
        #expect(try f.short("tag:2026 alpha") == ["a.txt"])
        #expect(try f.short("-tag:work kind:text").isDisjoint(with: ["a.txt"]))
        #expect(try f.short("tag:nothing").isEmpty)
        #expect(try f.short("kMDItemUserTags == \"work\"c") == ["a.txt"])
        #expect(try f.find("harbour") == ["d.txt"])        // the comment, through the FTS `other` column
        #expect(try f.short("ingrid") == ["d.txt"])
        #expect(try f.short("kMDItemComment == \"*Ingrid*\"") == ["d.txt"])
    }

    @Test("an xattr change is picked up by the next crawl (it moves the ctime); removing one drops the attribute")
    func nextCrawlSeesChange() throws {
        let f = try CrawlFixture()
        let file = try f.tree.create("root/notes.txt", contents: "some notes")
        _ = try f.crawl()
        #expect(try f.attributes("notes.txt")[.userTags] == nil)

        try TestXattrs.set(file, "user.xdg.tags", "later")
        try TestXattrs.set(file, "user.baloo.rating", "10")
        let second = try f.crawl()
        #expect(second.indexed >= 1)
        #expect(try f.attributes("notes.txt").strings(.userTags) == ["later"])
        #expect(try f.attributes("notes.txt").integer(.rating) == 10)
        #expect(try f.short("tag:later") == ["notes.txt"])

        try TestXattrs.remove(file, "user.xdg.tags")
        _ = try f.crawl()
        #expect(try f.attributes("notes.txt")[.userTags] == nil)
        #expect(try f.short("tag:later").isEmpty)
    }

    @Test("an index written before xattrs were read gets the tags of unchanged files on its next crawl, once")
    func upgradeSweep() throws {
        let f = try CrawlFixture()
        let file = try f.tree.create("root/old.txt", contents: "kept as it was")
        try TestXattrs.set(file, "user.xdg.tags", "legacy")
        _ = try f.crawl()
        let ident = ItemIdentifier(bytes: file.bytes)
        let key = "xattrs-read:" + IndexUpdater.domainName(f.root)
        #expect(try f.store.meta(key) == "1")
        // What an older FSIndex stored: the item without its tags, and no sweep recorded.
        func forgetTags() throws {
            let stamp = try #require(try f.store.stamps(of: [ident])[file.bytes]?.stamp)
            try f.store.refreshAttributes(of: ident, stamp: stamp, replacing: [.userTags], with: AttributeSet())
        }
        try forgetTags()
        try f.store.setMeta(key, nil)
        #expect(try f.short("tag:legacy").isEmpty)

        let report = try f.crawl()
        #expect(report.indexed == 0)                         // nothing extracted again
        #expect(try f.short("tag:legacy") == ["old.txt"])
        #expect(try f.store.meta(key) == "1")

        try forgetTags()                                     // swept already: not read again
        _ = try f.crawl()
        #expect(try f.short("tag:legacy").isEmpty)
    }

    @Test("refreshAttributes replaces tags and comment, keeps the text, and declines when the content changed")
    func refreshKeepsContent() throws {
        let f = try CrawlFixture()
        let file = try f.tree.create("root/memo.txt", contents: "original body")
        try TestXattrs.set(file, "user.xdg.comment", "old remark")
        _ = try f.crawl()
        let updater = IndexUpdater(store: f.store, settings: f.settings, problem: { _ in })
        let ident = ItemIdentifier(bytes: file.bytes)

        try TestXattrs.set(file, "user.xdg.tags", "fresh")
        try TestXattrs.remove(file, "user.xdg.comment")
        let stored = try f.store.stamps(of: [ident])[file.bytes]
        #expect(try updater.refreshAttributes(try FileFacts.read(file), stored: stored))
        let a = try f.attributes("memo.txt")
        #expect(a.strings(.userTags) == ["fresh"])
        #expect(a[.comment] == nil)
        #expect(a.string(.textContent) == "original body")
        #expect(try f.short("remark").isEmpty)              // the FTS `other` column was rewritten
        #expect(try f.short("tag:fresh") == ["memo.txt"])

        // Content of another size: not a metadata change, the caller must extract.
        try f.tree.create("root/memo.txt", contents: "a longer rewritten body")
        let again = try f.store.stamps(of: [ident])[file.bytes]
        #expect(try !updater.refreshAttributes(try FileFacts.read(file), stored: again))
    }
}
