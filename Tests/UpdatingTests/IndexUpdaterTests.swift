import Configuration
import Attributes
import Crawling
import ExtractionModel
import Foundation
import IndexTestSupport
import Indexing
import Isolation
import Querying
import Synchronization
import SystemPackage
import TestSupport
import Testing
@testable import Updating

/// A tree, an index and an updater that collects problems.
final class CrawlFixture: @unchecked Sendable {
    let tree: TemporaryTree
    let store: IndexStore
    var settings = Settings()
    /// nil: sandboxed workers, as `fsindex` uses.
    var extraction: ExtractionMode?
    /// The updater's bulk-load threshold, when a test lowers it.
    var bulkLoadThreshold: Int?
    private let collected = Mutex<[CrawlProblem]>([])
    var problems: [CrawlProblem] { collected.withLock { $0 } }

    init(maxPageCount: Int? = nil) throws {
        tree = try TemporaryTree(prefix: "fsindex-crawl")
        try tree.createDirectory("root")
        store = try tree.makeIndexStore(maxPageCount: maxPageCount)
    }

    var root: FilePath { tree.path("root") }

    func crawl(afterWalk: (@Sendable () -> Void)? = nil) throws -> CrawlReport {
        let updater = IndexUpdater(store: store, settings: settings, progress: nil,
                                   problem: { [self] p in collected.withLock { $0.append(p) } }, afterWalk: afterWalk,
                                   extraction: extraction)
        if let bulkLoadThreshold { updater.bulkLoadThreshold.store(bulkLoadThreshold, ordering: .relaxed) }
        return try updater.crawl(roots: try IndexUpdater.resolveRoots([root.string]))
    }

    func find(_ words: String...) throws -> Set<String> {
        let spec = QuerySpec(predicate: .text(try #require(SearchPattern(words: words))))
        return Set(try QueryEngine(store: store).run(spec).map { String($0.identifier.description.dropFirst(root.string.count + 1)) })
    }

    /// Every identifier in the index, relative to the root.
    func indexed() throws -> Set<String> {
        Set(try store.stamps(domain: IndexUpdater.domainName(root)).keys.map {
            String(decoding: $0, as: UTF8.self).replacingOccurrences(of: root.string, with: ".")
        })
    }
}

@Suite("IndexUpdater", .blocking)
struct IndexUpdaterTests {
    @Test("a crawl's workers end with it (issue 41: idle ones held their parsers' memory through the summaries and the OCR pass)")
    func workersEndWithTheCrawl() throws {
        let f = try CrawlFixture()
        for i in 0..<6 { try f.tree.create("root/note\(i).txt", contents: "kumquat number \(i)") }
        let pool = WorkerPool(executable: try WorkerExecutable.locate(), limits: f.settings.workerLimits)
        f.extraction = .workers(pool)
        let report = try f.crawl()
        #expect(report.indexed >= 6)
        #expect(try f.find("kumquat").count == 6, "the files were read by the workers")
        #expect(pool.runningIdleWorkers == 0, "no worker outlives the crawl")
    }

    @Test("a crawl indexes names, types and words; files and folders are items")
    func firstCrawl() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/notes/meeting.txt", contents: "quarterly zanzibar planning")
        try f.tree.create("root/page.html", contents: "<html><head><title>Welcome page</title></head><body><p>gorgonzola</p><script>var hiddenword=1</script></body></html>")
        let report = try f.crawl()
        #expect(report.seen == 4)          // root, notes, meeting.txt, page.html
        #expect(report.indexed == 4)
        #expect(try f.find("zanzibar") == ["notes/meeting.txt"])
        #expect(try f.find("gorgonzola") == ["page.html"])
        #expect(try f.find("welcome") == ["page.html"])
        #expect(try f.find("hiddenword").isEmpty)
        let folder = try #require(try f.store.item(ItemIdentifier(f.root.string + "/notes")))
        #expect(folder.attributes.kind == "Folder")
        #expect(folder.attributes.contentTypeTree.contains(.folder))
    }

    @Test("a path is below a folder by whole components, as bytes; every absolute path but / is below /")
    func pathsBelowFolders() {
        let tree8 = Array("/r/tree8".utf8)
        #expect(Array("/r/tree8/a/b/deep.txt".utf8).isBelow(tree8))
        #expect((Array("/r/tree8/".utf8) + [0xFF, 0xFE]).isBelow(tree8))
        #expect(!tree8.isBelow(tree8))
        #expect(!Array("/r/tree8x/deep.txt".utf8).isBelow(tree8))
        #expect(!Array("/r/tree".utf8).isBelow(tree8))
        #expect(Array("/a".utf8).isBelow([UInt8(ascii: "/")]) && ![UInt8(ascii: "/")].isBelow([UInt8(ascii: "/")]))
    }

    @Test("a second crawl reads only what changed and removes what is gone")
    func incremental() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/keep.txt", contents: "stable content")
        try f.tree.create("root/change.txt", contents: "old wording")
        try f.tree.create("root/gone.txt", contents: "vanishing text")
        try f.tree.create("root/sub/deep.txt", contents: "deep")
        _ = try f.crawl()
        try f.tree.create("root/change.txt", contents: "new wording longer")
        try f.tree.remove("root/gone.txt")
        try f.tree.create("root/added.txt", contents: "fresh arrival")
        let report = try f.crawl()
        #expect(report.removed == 1)
        // change.txt, added.txt, and the root folder whose mtime changed
        #expect(report.indexed == 3)
        #expect(report.unchanged == 3)   // keep.txt, sub, sub/deep.txt
        #expect(try f.find("new", "wording") == ["change.txt"])
        #expect(try f.find("old").isEmpty)
        #expect(try f.find("vanishing").isEmpty)
        #expect(try f.find("arrival") == ["added.txt"])
        let third = try f.crawl()
        #expect(third.indexed == 0 && third.removed == 0)
    }

    @Test("odd files: empty, binary, FIFO, symlink, non-UTF-8 and newline names, a 2 GiB sparse file")
    func oddFiles() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/empty.txt")
        try f.tree.create("root/blob.bin", bytes: [0, 1, 2, 0, 255, 0, 7, 0] + Array(repeating: 0, count: 4000))
        try f.tree.mkfifo("root/pipe")
        try f.tree.symlink("root/link", to: "empty.txt")
        try f.tree.createBytes(directory: "root", name: Array("na".utf8) + [0xFF] + Array("me.txt".utf8), contents: Array("latin jabberwock".utf8))
        try f.tree.create("root/two\nlines.txt", contents: "newline named file")
        let sparse = f.tree.path("root/sparse.img")
        let fd = open(sparse.string, O_CREAT | O_WRONLY, 0o644)
        #expect(ftruncate(fd, 2 << 30) == 0)
        close(fd)
        let report = try f.crawl()
        #expect(report.seen == 8)
        #expect(f.problems.isEmpty, "\(f.problems)")
        #expect(try f.find("jabberwock").count == 1)
        #expect(try f.find("newline", "named") == ["two\nlines.txt"])
        let link = try #require(try f.store.item(ItemIdentifier(f.root.string + "/link")))
        #expect(link.attributes.contentType == .symlink)
        let blob = try #require(try f.store.item(ItemIdentifier(f.root.string + "/blob.bin")))
        #expect(blob.attributes.textContent == nil)
        let big = try #require(try f.store.item(ItemIdentifier(f.root.string + "/sparse.img")))
        #expect(big.attributes.fileSize == 2 << 30)
    }

    @Test("files deleted or shrunk between the walk and the read: gone from the index, no problem, no crash")
    func vanishAndShrink() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/stays.txt", contents: "permanent")
        try f.tree.create("root/vanishes.txt", contents: "ephemeral")
        try f.tree.create("root/shrinks.txt", contents: "long original sentence here")
        _ = try f.crawl()
        #expect(try f.find("ephemeral") == ["vanishes.txt"])
        // Change both so the next crawl must read them, then delete/shrink them after the walk.
        try f.tree.create("root/vanishes.txt", contents: "ephemeral changed")
        try f.tree.create("root/shrinks.txt", contents: "long original sentence here, now longer")
        try f.tree.create("root/new-then-gone.txt", contents: "fleeting")
        let tree = f.tree
        let report = try f.crawl(afterWalk: {
            try? tree.remove("root/vanishes.txt")
            try? tree.remove("root/new-then-gone.txt")
            let fd = open(tree.path("root/shrinks.txt").string, O_WRONLY)
            _ = ftruncate(fd, 4)
            close(fd)
        })
        #expect(f.problems.isEmpty, "\(f.problems)")
        #expect(report.removed == 2)
        #expect(try f.find("ephemeral").isEmpty)
        #expect(try f.find("fleeting").isEmpty)
        #expect(try f.indexed().contains("./vanishes.txt") == false)
        #expect(try f.find("long").count == 1)   // what was read of the shrunk file
        #expect(try f.find("sentence").isEmpty)
    }

    @Test("an unreadable file is reported and keeps its file-system attributes", .needsNonRoot)
    func unreadableFile() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/secret.txt", contents: "classified")
        try f.tree.chmod("root/secret.txt", 0o000)
        let report = try f.crawl()
        #expect(report.problems == 1)
        let item = try #require(try f.store.item(ItemIdentifier(f.root.string + "/secret.txt")))
        #expect(item.attributes.fileSize == 10)
        #expect(item.attributes[.extractionError] != nil)
    }

    @Test("a missing root is refused before anything changes")
    func missingRoot() throws {
        #expect(throws: UpdateError.self) { try IndexUpdater.resolveRoots(["/nonexistent/fsindex/root"]) }
    }

    @Test("the text cap from the settings limits the stored text")
    func textCap() throws {
        let f = try CrawlFixture()
        f.settings.index.textCap = 64
        try f.tree.create("root/long.txt", contents: String(repeating: "alpha ", count: 20) + "omega")
        _ = try f.crawl()
        #expect(try f.find("alpha").count == 1)
        #expect(try f.find("omega").isEmpty)
    }

    @Test("a full disk stops the crawl with a clear error; committed batches stay and the index is usable")
    func diskFull() throws {
        let f = try CrawlFixture(maxPageCount: 80)
        f.settings.index.batchSize = 5
        for i in 0..<200 { try f.tree.create("root/f\(i).txt", contents: String(repeating: "word\(i) filler\(i) ", count: 300)) }
        do {
            _ = try f.crawl()
            Issue.record("the crawl should fill the database")
        } catch {
            guard let e = error as? UpdateError, case .index(let ie) = e, case .diskFull = ie else {
                Issue.record("expected disk full, got \(error)")
                return
            }
        }
        let n = try f.store.count()
        #expect(n > 0 && n < 201)
        _ = try f.store.deleteItems(domains: [IndexUpdater.domainName(f.root)])
        #expect(try f.store.count() == 0)
    }
}

@Suite("Names first", .blocking)
struct NamesFirstTests {
    @Test("a names-first crawl ends with full content, and the first pass never opens a file")
    func namesFirst() throws {
        let f = try CrawlFixture()
        for i in 0..<1200 { try f.tree.create("root/d\(i % 10)/note\(i).md", contents: "# Note \(i)\nwombat \(i)") }
        let updater = IndexUpdater(store: f.store, settings: f.settings, progress: nil, problem: { _ in }, afterWalk: nil)
        updater.namesFirst = true
        let report = try updater.crawl(roots: [f.root])
        #expect(report.indexed == 1 + 10 + 1200)
        #expect(try f.find("wombat").count == 1200)
        let item = try #require(try f.store.item(ItemIdentifier(f.root.string + "/d3/note3.md")))
        #expect(item.attributes.title == "Note 3")
        #expect(try f.store.identifiers(staleAgainst: ExtractionVersions.forIndex).isEmpty)
    }

    @Test("names only: facts and a type from the name, without opening the file")
    func namesOnlyDoesNotOpen() throws {
        let f = try CrawlFixture()
        let path = try f.tree.create("root/gone.html", contents: "<title>x</title>")
        let facts = try FileFacts.read(path)
        try f.tree.remove("root/gone.html")
        let quick = NamesOnlyExtraction().extract(facts)
        #expect(quick.problems.isEmpty)
        #expect(quick.attributes.contentType == .html)
        #expect(quick.attributes.fileSize == 16)
        #expect(quick.extractorVersion == 0)
        // The full pass, in a worker, does open it.
        let worker = ExtractionWorker(executable: try WorkerExecutable.locate())
        #expect(!worker.extract(facts, textCap: 1000).problems.isEmpty)
    }
}
