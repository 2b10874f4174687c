import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("PlainTextExtractor", .blocking)
struct PlainTextExtractorTests {
    /// (corpus file, expected encoding, a word that must be in the text)
    static let encodings: [(String, String, String)] = [
        ("text-encodings/testTXT.txt", "utf-8", "indexation"),
        ("text-encodings/testTXTNonASCIIUTF8.txt", "utf-8", "renard"),
        ("text-encodings/testTXT_win-1252.txt", "windows-1252", "\u{201C}"),   // a smart quote, byte 0x93
        ("text-encodings/charset_normalizer/sample-french-1.txt", "windows-1252", "MOLIÈRE"),
        ("text-encodings/uchardet/ko/utf-16.le", "utf-16le", "유니코드"),
        ("text-encodings/uchardet/fr/utf-16.be", "utf-16be", "Unicode"),
        ("text-encodings/charset_normalizer/sample-english.bom.txt", "utf-8", "About 2 months ago"),
    ]

    @Test("real text files: encoding and words", .realCorpus, arguments: encodings)
    func realEncodings(_ file: String, _ encoding: String, _ word: String) throws {
        let a = try extractReal(file).attributes
        #expect(a.string(.encoding) == encoding)
        #expect(a.textContent?.contains(word) == true)
        #expect(a.textContent?.hasPrefix("\u{FEFF}") == false)   // BOM stripped
    }

    @Test("source code and Markdown from the corpus", .realCorpus)
    func realCodeAndMarkdown() throws {
        let c = try extractReal("code/testC.c").attributes
        #expect(c.textContent?.contains("Apache Tika!") == true)
        let md = try extractReal("misc/testMARKDOWN.md").attributes
        #expect(md.title == "Title")
        #expect(md.textContent?.contains("Café naïve résumé") == true)
    }

    @Test("EBCDIC bytes that libmagic calls binary are recognised and decoded", .realCorpus)
    func ebcdicIsText() throws {
        let r = try extractReal("text-encodings/english.cp500.txt")
        #expect(r.attributes.contentType == .plainText)
        #expect(r.attributes.string(.encoding) == "ibm500")
        #expect(r.attributes.textContent?.contains("IntelliStation POWER") == true)
        #expect(r.problems.isEmpty)
    }

    @Test("UTF-16 with a BOM, both byte orders, and UTF-32")
    func utf16() throws {
        let tree = try TemporaryTree()
        let text = "Grüße, 世界 🌍"
        let le: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let u32: [UInt8] = [0xFF, 0xFE, 0, 0] + text.unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } }
        for (name, bytes, encoding) in [("le.txt", le, "utf-16le"), ("be.txt", be, "utf-16be"), ("u32.txt", u32, "utf-32le")] {
            let a = try extract(try tree.create(name, bytes: bytes)).attributes
            #expect(a.textContent == text, "\(name)")
            #expect(a.string(.encoding) == encoding, "\(name)")
        }
    }

    @Test("invalid UTF-8 falls back on Latin-1")
    func latin1() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("latin.txt", bytes: Array("caf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8] + Array("me\n".utf8))
        let a = try extract(p).attributes
        #expect(a.string(.encoding) == "iso-8859-1")
        #expect(a.textContent == "café crème\n")
    }

    @Test("a binary file is not indexed as text, and that is not a problem")
    func binary() throws {
        let tree = try TemporaryTree()
        var bytes: [UInt8] = Array("header".utf8)
        for i in 0..<2000 { bytes.append(UInt8(i % 7)) }   // NULs and control bytes
        let r = try extract(try tree.create("data.txt", bytes: bytes))
        #expect(r.attributes.contentType == .plainText)   // the name says text
        #expect(r.attributes.textContent == nil)
        #expect(r.attributes.string(.encoding) == nil)
        #expect(r.problems.isEmpty)
    }

    @Test("the text cap cuts on a character boundary and says so")
    func truncation() throws {
        let tree = try TemporaryTree()
        let text = String(repeating: "é", count: 100)   // 200 bytes of UTF-8
        let p = try tree.create("long.txt", contents: text)
        let a = try extract(p, textCap: 51).attributes
        #expect(a.textContent == String(repeating: "é", count: 25))
        #expect(a.textContent?.utf8.count == 50)
        #expect(a[.textTruncated] == .bool(true))
        let whole = try extract(p, textCap: 200).attributes
        #expect(whole.textContent == text)
        #expect(whole[.textTruncated] == nil)
    }

    @Test("a file just over the cap is marked truncated even when the cut lands at the end")
    func capPlusOne() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("ascii.txt", contents: String(repeating: "a", count: 11))
        let a = try extract(p, textCap: 10).attributes
        #expect(a.textContent == String(repeating: "a", count: 10))
        #expect(a[.textTruncated] == .bool(true))
    }

    @Test("Markdown title from YAML front matter, else the first heading")
    func markdownTitles() throws {
        let tree = try TemporaryTree()
        let front = try tree.create("front.md", contents: "---\nauthor: Ada\ntitle: \"Engine notes\"\n---\n# Heading one\nText\n")
        #expect(try extract(front).attributes.title == "Engine notes")
        let heading = try tree.create("heading.md", contents: "```\n# not a title\n```\nIntro\n# Real Title #\n")
        #expect(try extract(heading).attributes.title == "Real Title")
        let none = try tree.create("none.md", contents: "just text\n")
        #expect(try extract(none).attributes.title == nil)
        // CRLF line ends, a title on the last line without a newline, front matter without a title.
        #expect(PlainTextExtractor.markdownTitle("---\r\ntitle: 'Windows notes'\r\n---\r\n# H\r\n") == "Windows notes")
        #expect(PlainTextExtractor.markdownTitle("intro\r\n\r\n# Last line") == "Last line")
        #expect(PlainTextExtractor.markdownTitle("---\nauthor: x\n---\n# After matter\n") == "After matter")
        #expect(PlainTextExtractor.markdownTitle("") == nil)
    }

    @Test("decoding helpers")
    func helpers() {
        #expect(TextDecoding.capped("aé", toUTF8Bytes: 2) == ("a", true))
        #expect(TextDecoding.capped("ab", toUTF8Bytes: 2) == ("ab", false))
        // A combining accent stays with its letter.
        #expect(TextDecoding.capped("ae\u{301}", toUTF8Bytes: 3).text == "a")
        // A UTF-8 character cut by the read cap is not a reason to fall back on Latin-1.
        let cut = Array("né".utf8).dropLast()
        #expect(TextDecoding.decode(cut, isComplete: false)?.encoding == "utf-8")
        #expect(TextDecoding.decode(cut, isComplete: true)?.encoding == "iso-8859-1")
    }
}
