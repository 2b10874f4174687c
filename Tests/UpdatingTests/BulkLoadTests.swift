import Foundation
import GRDB
@testable import Indexing
import TestSupport
import Testing
@testable import Updating

/// A crawl of many files is a bulk load (issue 23): large full-text segments and no merging
/// until the end, then FTS5's defaults again and one `optimize()`. The settings live in the
/// index, so the risk is an index left without merging: these check that none is.
@Suite("Bulk load")
struct BulkLoadTests {
    @Test("a crawl above the threshold loads in bulk, ends with the defaults, and every word is found")
    func crawlInBulk() throws {
        let f = try CrawlFixture()
        for i in 0..<40 { try f.tree.create("root/d\(i % 4)/n\(i).txt", contents: "kestrel note \(i) " + String(repeating: "word\(i) ", count: 50)) }
        f.bulkLoadThreshold = 10
        let report = try f.crawl()
        #expect(report.indexed >= 40)
        #expect(try f.store.isBulkLoading() == false, "the defaults are back")
        #expect(try f.find("kestrel").count == 40)
        #expect(try f.find("word17") == ["d1/n17.txt"])
        try f.store.write { db in try db.execute(sql: "INSERT INTO items_fts(items_fts) VALUES('integrity-check')") }
        // Changes after it are indexed as usual.
        try f.tree.create("root/d0/n0.txt", contents: "merlin note, rewritten")
        _ = try f.crawl()
        #expect(try f.find("merlin") == ["d0/n0.txt"])
        #expect(try f.find("word0").isEmpty)
    }

    @Test("a crawl below the threshold never changes the merge settings")
    func smallCrawl() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/a.txt", contents: "one small file")
        f.bulkLoadThreshold = 10
        _ = try f.crawl()
        let automerge = try f.store.read { db in try Int.fetchOne(db, sql: "SELECT v FROM items_fts_config WHERE k = 'automerge'") }
        #expect(automerge == nil || automerge == 4)
    }

    @Test("a bulk load that was killed (its settings left in the index) is undone when the index is next opened for writing")
    func killedLoad() throws {
        let tree = try TemporaryTree(prefix: "fsindex-bulk")
        let location = IndexLocation(directory: tree.path("index"))
        do {
            let store = try IndexStore(location: location)
            try store.beginBulkLoad()
            #expect(try store.isBulkLoading())
        }
        let reopened = try IndexStore(location: location)
        #expect(try reopened.isBulkLoading() == false)
        let settings = try reopened.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT k, v FROM items_fts_config").map { ($0["k"] as String, $0["v"] as Int) })
        }
        #expect(settings["automerge"] == 4 && settings["crisismerge"] == 16 && settings["hashsize"] == 1 << 20, "\(settings)")
    }
}
