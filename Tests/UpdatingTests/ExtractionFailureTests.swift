import Attributes
import Crawling
import ExtractionModel
import Foundation
import Indexing
import Isolation
import SystemPackage
import TestSupport
import Testing
@testable import Updating

@Suite("Extraction failures during a crawl")
struct ExtractionFailureTests {
    func faultyFixture() throws -> CrawlFixture {
        let f = try CrawlFixture()
        var limits = WorkerLimits()
        limits.wallSecondsPerFile = 3
        limits.cpuSecondsPerFile = 1
        let shipped = try WorkerExecutable.locate()
        f.extraction = .sandboxed(limits: limits, executable: String(shipped.dropLast("fsindex-worker".count)) + "fsindex-test-worker")
        return f
    }

    @Test("a file that crashes its worker is recorded, keeps its name, and is not retried until it changes")
    func crashRecordedNotRetried() throws {
        let f = try faultyFixture()
        let bad = try f.tree.create("root/bad report.txt", contents: "FSINDEX-TEST-FAULT:crash\n")
        try f.tree.create("root/good.txt", contents: "an ordinary quokka")
        try f.tree.create("root/hang.txt", contents: "FSINDEX-TEST-FAULT:hang\n")
        let first = try f.crawl()
        #expect(first.indexed == 4)
        #expect(first.problems == 2)
        #expect(try f.find("quokka") == ["good.txt"])
        #expect(try f.find("report") == ["bad report.txt"])   // by name
        let item = try #require(try f.store.item(ItemIdentifier(bytes: bad.bytes)))
        let error = try #require(item.attributes.string(.extractionError))
        #expect(error.contains("SIGSEGV"), "\(error)")
        #expect(item.attributes.string(.extractor) == "plain-text")
        let failures = try f.store.extractionFailures()
        #expect(Set(failures.map { String(decoding: $0.identifier.bytes, as: UTF8.self).split(separator: "/").last! })
                == ["bad report.txt", "hang.txt"])
        #expect(failures.first { $0.error.contains("longer than 3 s") } != nil)
        #expect(try f.store.status().failures.map(\.extractor) == ["plain-text"])

        // Nothing changed: nothing is extracted again, the failures included.
        let second = try f.crawl()
        #expect(second.indexed == 0)
        #expect(second.unchanged == 4)

        // The file changes: it is read again, and the failure goes.
        try f.tree.remove("root/bad report.txt")
        try f.tree.create("root/bad report.txt", contents: "now a harmless numbat")
        let third = try f.crawl()
        #expect(third.indexed == 2)   // the file and its folder, whose mtime changed
        #expect(try f.find("numbat") == ["bad report.txt"])
        #expect(try f.store.extractionFailures().count == 1)
    }

    @Test("raising one extractor's version makes only its items stale")
    func perExtractorVersions() throws {
        let f = try CrawlFixture()
        try f.tree.create("root/a.html", contents: "<title>A</title><p>alpha</p>")
        try f.tree.create("root/b.txt", contents: "beta")
        _ = try f.crawl()
        let current = ExtractionVersions.forIndex
        #expect(try f.store.identifiers(staleAgainst: current).isEmpty)
        var raised = current
        raised.byName["html"]! += 1
        let stale = try f.store.identifiers(staleAgainst: raised).map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(stale == [f.root.string + "/a.html"])
        var newNone = current
        newNone.none += 1   // a new extractor may want the files nobody read (folders here)
        let staleNone = try f.store.identifiers(staleAgainst: newNone)
        #expect(staleNone.count == 1)   // the root folder
        var removed = current
        removed.byName["plain-text"] = nil
        removed.byName["text"] = nil
        #expect(try f.store.identifiers(staleAgainst: removed).map { String(decoding: $0.bytes, as: UTF8.self) }
                == [f.root.string + "/b.txt"])
    }
}
