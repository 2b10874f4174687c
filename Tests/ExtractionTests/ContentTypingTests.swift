import Attributes
@testable import Extraction
import ExtractionModel
import Testing

/// The type from the name and shared-mime-info's magic first, libmagic when they leave it open
/// (issue 23): each decision gives what libmagic alone gave.
@Suite("ContentTyping")
struct ContentTypingTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52,
                               0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]

    /// Types `bytes` named `name` both ways, checks they agree, and returns the new answer.
    func typed(_ name: String, _ bytes: [UInt8]) throws -> ContentTyping.Answer {
        let typing = try ContentTyping()
        let n = Array(name.utf8)
        let new = typing.type(name: n, bytes: bytes, fileSize: Int64(bytes.count), isEmpty: bytes.isEmpty)
        let old = typing.typeByLibmagic(name: n, bytes: bytes, fileSize: Int64(bytes.count), isEmpty: bytes.isEmpty)
        #expect(new.detection == old.detection, "\(name)")
        #expect(new.charset == old.charset, "\(name)")
        return new
    }

    @Test("a name whose type the bytes confirm decides without libmagic")
    func nameDecides() throws {
        let a = try typed("logo.png", Self.png)
        #expect(a.detection.contentType == .png)
        #expect(!a.usedLibmagic)
        let c = try typed("main.c", Array("#include <stdio.h>\nint main(void) { return 0; }\n".utf8))
        #expect(c.detection.contentType == "public.c-source")
        #expect(c.charset == "us-ascii")
        #expect(!c.usedLibmagic)
        let pdf = try typed("paper.pdf", Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj\n".utf8))
        #expect(pdf.detection.contentType == .pdf)
        #expect(!pdf.usedLibmagic)
    }

    @Test("a name that lies about the bytes is overruled: a PNG named .txt stays a PNG")
    func lyingName() throws {
        let a = try typed("notes.txt", Self.png)
        #expect(a.detection.contentType == .png)
        #expect(a.usedLibmagic)
        let script = try typed("setup.c", Array("#!/bin/sh\necho hello\n".utf8))
        #expect(script.usedLibmagic)
        let text = try typed("report.pdf", Array("just some words, not a PDF at all\n".utf8))
        #expect(text.detection.contentType == .plainText)
        #expect(text.usedLibmagic)
    }

    @Test("an empty file takes its name's type, else public.empty")
    func empty() throws {
        let a = try typed("paper.pdf", [])
        #expect(a.detection.contentType == .pdf)
        #expect(a.charset == nil)
        #expect(!a.usedLibmagic)
        #expect(try typed("nothing", []).detection.contentType == "public.empty")
    }

    @Test("a name with no glob falls back on libmagic")
    func noGlob() throws {
        let a = try typed("picture-without-extension", Self.png)
        #expect(a.detection.contentType == .png)
        #expect(a.usedLibmagic)
        let t = try typed("LICENSE-ish", Array("Permission is hereby granted, free of charge\n".utf8))
        #expect(t.detection.contentType == .plainText)
        #expect(t.usedLibmagic)
    }

    @Test("the charset is libmagic's when libmagic's rules do not run", arguments: [
        ("latin.txt", [0x63, 0x61, 0x66, 0xE9, 0x20, 0x6E, 0x6F, 0x69, 0x72, 0x0A], "iso-8859-1"),
        ("utf8.md", Array("# Café\nThé\n".utf8), "utf-8"),
        ("wide.txt", [0xFF, 0xFE] + Array("hello world\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), "utf-16le"),
        ("page.html", Array("<html><head><title>x</title></head><body>plain</body></html>\n".utf8), "us-ascii"),
        ("c1.txt", [0x93, 0x71, 0x75, 0x6F, 0x74, 0x65, 0x94, 0x0A], "unknown-8bit"),
        ("control.txt", [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0E, 0x0F, 0x10], "binary"),
    ] as [(String, [UInt8], String)])
    func charset(_ name: String, _ bytes: [UInt8], _ expected: String) throws {
        let a = try typed(name, bytes)
        #expect(a.charset == expected)
    }

    @Test("shared-mime-info's magic file: indents, masks, words, ranges; a section it cannot read is left out")
    func magicFile() {
        func line(_ indent: Int?, _ offset: Int, _ value: [UInt8], mask: [UInt8]? = nil, word: Int? = nil, range: Int? = nil) -> [UInt8] {
            var out = Array(((indent.map(String.init) ?? "") + ">\(offset)=").utf8)
            out += [UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
            if let mask { out += [UInt8(ascii: "&")] + mask }
            if let word { out += Array("~\(word)".utf8) }
            if let range { out += Array("+\(range)".utf8) }
            return out + [0x0A]
        }
        var file = Array("MIME-Magic\0\n".utf8)
        file += Array("[80:application/x-nested]\n".utf8) + line(nil, 0, Array("AB".utf8)) + line(1, 4, Array("CD".utf8))
            + line(1, 4, Array("EF".utf8))
        file += Array("[70:application/x-masked]\n".utf8) + line(nil, 0, [0x90, 0x00], mask: [0xF0, 0x00])
        file += Array("[60:application/x-word]\n".utf8) + line(nil, 0, [0x12, 0x34], word: 2)
        file += Array("[50:text/x-ranged]\n".utf8) + line(nil, 0, Array("<html".utf8), range: 64)
        file += Array("[40:application/x-broken]\n".utf8) + Array(">0=".utf8) + [0, 2] + Array("ZZ?9\n".utf8)
        let entries = SharedMIMEMagic.parse(file)
        #expect(entries.map(\.type) == ["application/x-nested", "application/x-masked", "application/x-word", "text/x-ranged"])
        let magic = SharedMIMEMagic(entries: entries)
        #expect(magic.bestMatches(Array("ABxxCD".utf8)) == ["application/x-nested"])
        #expect(magic.bestMatches(Array("ABxxEF".utf8)) == ["application/x-nested"])
        #expect(magic.bestMatches(Array("ABxxGH".utf8)) == [])   // the first line alone is not enough
        #expect(magic.bestMatches([0x9F, 0x99]) == ["application/x-masked"])
        #expect(magic.bestMatches([0xAF, 0x99]) == [])
        #expect(magic.bestMatches([0x34, 0x12]) == ["application/x-word"])   // big-endian word, read little-endian
        #expect(magic.bestMatches([0x12, 0x34]) == [])
        #expect(magic.bestMatches(Array("\n\n  <!-- x --><html>".utf8)) == ["text/x-ranged"])
        #expect(magic.bestMatches(Array(String(repeating: " ", count: 70).utf8) + Array("<html>".utf8)) == [])
    }

    @Test("the installed shared-mime-info magic is read whole")
    func installedMagic() {
        let magic = SharedMIMEMagic.shared
        #expect(!magic.sources.isEmpty)
        #expect(magic.entries.count > 450)   // 491 sections in shared-mime-info 2.2
        #expect(magic.bestMatches(Self.png) == ["image/png"])
        #expect(magic.bestMatches(Array("%PDF-1.4\n".utf8)).contains("application/pdf"))
    }
}
