import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import FoundationEssentials
import SystemPackage
import Testing
import TestSupport
import Glibc

@Suite("FileSystemExtractor")
struct FileSystemExtractorTests {
    @Test("facts become attributes")
    func facts() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("dir/report.final.txt", contents: "twelve bytes")
        try tree.chmod("dir/report.final.txt", 0o640)
        let facts = try FileFacts.read(p)
        var names = UserNameCache()
        let a = FileSystemExtractor().attributes(of: facts, names: &names)
        #expect(a.string(.path) == p.string)
        #expect(a.string(.name) == "report.final.txt")
        #expect(a.string(.displayName) == "report.final.txt")
        #expect(a.fileSize == 12)
        #expect(a.string(.filePermissions) == "0640")
        #expect(a.string(.fileIdentifier) == "\(facts.device):\(facts.inode)")
        let mtime = try #require(a.date(.contentModificationDate))
        #expect(abs(mtime.timeIntervalSince1970 - Double(facts.modificationNanos) / 1e9) < 0.001)
        #expect(a.date(.attributeChangeDate) != nil)
        // Not from the access time: only recorded uses set it (issue 13).
        #expect(a.date(.lastUsedDate) == nil)
        #expect((a.date(.contentCreationDate) != nil) == (facts.birthNanos != nil))
    }

    @Test("owner and group names come from the user database, else the number")
    func owners() throws {
        var names = UserNameCache()
        #expect(names.user(0) == "root")
        #expect(names.group(0) == "root")
        #expect(names.user(4_000_000_123) == "4000000123")
        #expect(names.group(4_000_000_123) == "4000000123")
        let me = String(cString: getpwuid(geteuid()).pointee.pw_name)
        let tree = try TemporaryTree()
        let a = try extract(try tree.create("mine.txt", contents: "x")).attributes
        #expect(a.string(.ownerName) == me)
    }

    @Test("permission strings")
    func octal() {
        #expect(FileSystemExtractor.octal(0o644) == "0644")
        #expect(FileSystemExtractor.octal(0o4755) == "4755")
        #expect(FileSystemExtractor.octal(0) == "0000")
    }

    @Test("a non-UTF-8 name is kept for display with a replacement character")
    func nonUTF8Name() throws {
        let tree = try TemporaryTree()
        let p = try tree.createBytes(name: Array("caf".utf8) + [0xE9] + Array(".txt".utf8), contents: Array("bonjour\n".utf8))
        let r = try extract(p)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.string(.name) == "caf\u{FFFD}.txt")
        #expect(r.attributes.textContent == "bonjour\n")   // opened through the byte path
        #expect(r.attributes.contentType == .plainText)
    }
}
