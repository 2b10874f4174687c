import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import FoundationEssentials
import SystemPackage
import Testing
import TestSupport
import Glibc

@Suite("ExtractionContext", .blocking)
struct ExtractionContextTests {
    @Test("a FIFO is typed without being opened (opening it would hang)")
    func fifo() throws {
        let tree = try TemporaryTree()
        try tree.mkfifo("pipe")
        let r = try extract(tree.path("pipe"))
        #expect(r.attributes.contentType == .fifo)
        #expect(r.attributes.string(.name) == "pipe")
        #expect(r.attributes.textContent == nil)
        #expect(r.problems.isEmpty)
    }

    @Test("a symlink is not followed; its target is recorded")
    func symlink() throws {
        let tree = try TemporaryTree()
        try tree.create("target.html", contents: "<title>Followed</title>")
        try tree.symlink("link.html", to: "target.html")
        let r = try extract(tree.path("link.html"))
        #expect(r.attributes.contentType == .symlink)
        #expect(r.attributes.contentTypeTree == [.symlink, .item])
        #expect(r.attributes.string(.symlinkTarget) == "target.html")
        #expect(r.attributes.title == nil)
        #expect(r.attributes.string(.mimeType) == "inode/symlink")
    }

    @Test("a directory is a folder")
    func directory() throws {
        let tree = try TemporaryTree()
        try tree.createDirectory("sub.d")
        let r = try extract(tree.path("sub.d"))
        #expect(r.attributes.contentType == .folder)
        #expect(r.attributes.kind == "Folder")
        #expect(r.attributes.string(.name) == "sub.d")
    }

    @Test("an empty file")
    func empty() throws {
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("nothing", contents: ""))
        #expect(r.attributes.contentType == .emptyFile)
        #expect(r.attributes.fileSize == 0)
        #expect(r.problems.isEmpty)
        let txt = try extract(try tree.create("nothing.txt", contents: ""))
        #expect(txt.attributes.contentType == .plainText)
        #expect(txt.attributes.textContent == "")
    }

    @Test("a file deleted after the crawl gives a clear problem and keeps its facts")
    func deleted() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("gone.pdf", contents: "%PDF-1.4\n")
        let facts = try FileFacts.read(p)
        try tree.remove("gone.pdf")
        let context = try ExtractionContext(options: ExtractionOptions())
        let r = context.extract(facts)
        #expect(r.problems.count == 1)
        guard case let .unreadable(errno: code, message: message)? = r.problems.first else {
            Issue.record("expected unreadable, got \(r.problems)")
            return
        }
        #expect(code == ENOENT)
        #expect(message.contains("deleted"))
        #expect(r.attributes.string(.name) == "gone.pdf")
        #expect(r.attributes.contentType == .pdf)   // from the name
        #expect(r.attributes.string(.extractionError)?.contains("cannot read") == true)
    }

    @Test("a file replaced after the crawl is reported as changed")
    func replaced() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("a.txt", contents: "old")
        let facts = try FileFacts.read(p)
        try tree.remove("a.txt")
        try tree.create("keep.txt", contents: "hold the inode")   // so the new file gets another inode
        try tree.create("a.txt", contents: "new")
        let r = try ExtractionContext(options: ExtractionOptions()).extract(facts)
        #expect(r.problems == [.changedDuringRead])
        #expect(r.attributes.textContent == nil)

        try tree.remove("a.txt")
        try tree.symlink("a.txt", to: "keep.txt")   // a symlink in its place is never followed
        let s = try ExtractionContext(options: ExtractionOptions()).extract(facts)
        #expect(s.problems == [.changedDuringRead])
    }

    @Test("an unreadable file (chmod 000) is a problem, not a crash")
    func unreadable() throws {
        let tree = try TemporaryTree()
        try tree.create("secret.txt", contents: "top secret words")
        try tree.chmod("secret.txt", 0)
        let r = try extract(tree.path("secret.txt"))
        #expect(r.attributes.string(.filePermissions) == "0000")
        #expect(r.attributes.contentType == .plainText)
        if geteuid() != 0 {   // root reads through mode 000
            #expect(r.problems.count == 1)
            if case let .unreadable(errno: code, message: message)? = r.problems.first {
                #expect(code == EACCES)
                #expect(message.contains("permission"))
                #expect(!message.contains("top secret"))
            } else {
                Issue.record("expected unreadable, got \(r.problems)")
            }
            #expect(r.attributes.textContent == nil)
        } else {
            #expect(r.attributes.textContent == "top secret words")
        }
    }

    @Test("a file larger than the first read is read on to the cap")
    func largeFile() throws {
        let tree = try TemporaryTree()
        let line = "the quick brown fox jumps over the lazy dog\n"
        let text = String(repeating: line, count: 4000) + "TAILWORD\n"   // ~176 KB, past the 64 KiB sniff
        let p = try tree.create("big.txt", contents: text)
        let a = try extract(p).attributes
        #expect(a.textContent == text)
        #expect(a[.textTruncated] == nil)
        let capped = try extract(p, textCap: 100_000).attributes
        #expect(capped.textContent?.utf8.count == 100_000)
        #expect(capped.textContent?.contains("TAILWORD") == false)
        #expect(capped[.textTruncated] == .bool(true))
    }

    @Test("every content extractor's version is written once, in ExtractionVersions, which the parent reads")
    func versionsWrittenOnce() {
        #expect(Set(ExtractorRegistry.all.map(\.name)) == Set(ExtractionVersions.content.keys))
        for e in ExtractorRegistry.all { #expect(e.version == ExtractionVersions.content[e.name], "\(e.name)") }
        #expect(ExtractorRegistry.fileSystem.version == ExtractionVersions.fileSystem)
        #expect(ExtractionVersions.all.count == ExtractorRegistry.all.count + 1)
    }

    @Test("every attribute of an HTML file, with the registry's version", .realCorpus)
    func wholeResult() throws {
        let r = try extractReal("html/testHTML.html")
        let a = r.attributes
        #expect(r.extractor == "html")
        #expect(a[.extractor] == .string("html"))
        #expect(r.extractorVersion == ExtractionVersions.version(of: "html"))
        #expect(ExtractionVersions.version(of: "html") % 10_000 == HTMLExtractor().version)
        #expect(ExtractionVersions.version(of: nil) % 10_000 == ExtractorRegistry.all.reduce(0) { $0 + $1.version })
        #expect(ExtractionVersions.version(of: "no-such-extractor") == -1)
        #expect(r.trace.map(\.name) == ["filesystem", "type", "html"])
        #expect(r.trace.last?.keys.contains(.title) == true)
        #expect(r.trace.first?.keys.contains(.fileSize) == true)
        for key: AttributeKey in [.path, .name, .fileSize, .contentModificationDate, .ownerName, .groupName, .fileIdentifier,
                                  .filePermissions, .contentType, .contentTypeTree, .mimeType, .kind, .title, .textContent, .encoding] {
            #expect(a[key] != nil, "\(key)")
        }
        #expect(a.kind == "HTML document")
        #expect(a.string(.mimeType) == "text/html")
    }

    @Test("the registry order puts specific extractors first")
    func registryOrder() {
        #expect(ExtractorRegistry.all.map(\.name) == ["ooxml", "opendocument", "epub", "archive", "html", "xml", "pdf", "rtf", "ole", "calendar", "mail", "man-page", "plain-text",
                                                          "image", "audio", "video"])
        let facts = FileFacts(path: "/x.xhtml", type: .regular, size: 1, permissions: 0o644, uid: 0, gid: 0, device: 1, inode: 1,
                              linkCount: 1, accessNanos: 0, modificationNanos: 0, changeNanos: 0, birthNanos: nil, allocatedSize: 0)
        let detection = TypeDetector().describe(mimeType: "application/xhtml+xml")
        let input = ExtractionInput(facts: facts, bytes: [], isComplete: true, detection: detection, magicCharset: nil, textCap: 10)
        #expect(ExtractorRegistry.extractor(for: input)?.name == "html")
        // An iCalendar file is text too: the calendar extractor takes it before plain text.
        let ics = ExtractionInput(facts: facts, bytes: [], isComplete: true, detection: TypeDetector().describe(mimeType: "text/calendar"),
                                  magicCharset: nil, textCap: 10)
        #expect(ExtractorRegistry.extractor(for: ics)?.name == "calendar")
    }

    @Test("every file of the real corpus extracts without crashing or hanging", .realCorpus)
    func wholeCorpus() throws {
        let files = regularFiles(below: RealCorpus.root)
        #expect(files.count > 100)
        let context = try ExtractionContext(options: ExtractionOptions())
        for path in files {
            let facts = try FileFacts.read(path)
            let r = context.extract(facts)
            #expect(r.attributes.contentType != nil, "\(path)")
            #expect(r.attributes.contentTypeTree.last == .item, "\(path)")
            #expect(r.attributes.fileSize == facts.size, "\(path)")
            #expect(r.problems.allSatisfy { if case .unreadable = $0 { false } else { true } }, "\(path)")
        }
    }

    /// The first 1,000 files of /usr/share/doc, read once for the trait and the test.
    static let documentation = Array(regularFiles(below: "/usr/share/doc").prefix(1000))

    @Test("throughput on /usr/share/doc with one context",
          .enabled("needs 100 or more files in /usr/share/doc (a system with its documentation installed)") {
              ExtractionContextTests.documentation.count >= 100
          })
    func throughput() throws {
        let facts = Self.documentation.compactMap { try? FileFacts.read($0) }
        let context = try ExtractionContext(options: ExtractionOptions())
        _ = context.extract(facts[0])   // warm the shared MIME database
        let clock = ContinuousClock()
        var typed = 0
        let elapsed = clock.measure {
            for f in facts where context.extract(f).attributes.contentType != .data { typed += 1 }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("extraction: \(facts.count) files of /usr/share/doc in \(elapsed), \(Int(Double(facts.count) / seconds)) files/s, \(seconds / Double(facts.count) * 1000) ms/file; \(typed) typed beyond public.data")
        #expect(typed * 2 > facts.count)
    }
}
