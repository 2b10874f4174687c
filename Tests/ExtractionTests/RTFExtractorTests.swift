import Attributes
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("RTFExtractor", .blocking)
struct RTFExtractorTests {
    /// Extracts RTF source written to a temporary `.rtf` file.
    func rtf(_ source: String, textCap: Int = 1 << 20) throws -> ExtractionResult {
        try rtf(bytes: Array(source.utf8), textCap: textCap)
    }

    func rtf(bytes: [UInt8], textCap: Int = 1 << 20) throws -> ExtractionResult {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        return try extract(try tree.create("doc.rtf", bytes: bytes), textCap: textCap)
    }

    @Test("a Windows-1252 document: info group, \\rquote and body text", .realCorpus)
    func basic() throws {
        let r = try extractReal("office/testRTF.rtf")
        let a = r.attributes
        #expect(r.extractor == "rtf")
        #expect(r.problems.isEmpty)
        #expect(a.contentType == "public.rtf")
        #expect(a.title == "Test d\u{2019}indexation Word")   // \'92 in Windows-1252
        #expect(a.strings(.authors) == ["Bibliotheque"])
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_147_954_740))   // \yr2006\mo5\dy18\hr12\min19
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_147_954_740))
        #expect(a.textContent == "Test d\u{2019}indexation Word")
    }

    @Test("Shift-JIS text chosen by \\fcharset128 fonts, and the \\upr Unicode title", .realCorpus)
    func japanese() throws {
        let a = try extractReal("office/testRTFJapanese.rtf").attributes
        #expect(a.title == "ゾルゲと尾崎、淡々と最期")
        #expect(a.strings(.authors) == ["VMazel"])   // written twice, kept once
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_098_958_740))
        let text = try #require(a.textContent)
        #expect(text.hasPrefix("ゾルゲの処刑記録、\nゾルゲと尾崎、淡々と最期"))
        #expect(text.contains("古書店で処刑記録見つかる"))
        #expect(text.contains("(10/17 15:53)"))
        #expect(!text.contains("Times New Roman"))   // the font table
        #expect(!text.contains("StarWriter"))        // \comment in \info
        #expect(!text.contains("?"))
    }

    @Test("\\ansicpg932: hex bytes and a literal trail byte decode as Shift-JIS", .realCorpus)
    func ms932() throws {
        let a = try extractReal("office/testRTF-ms932.rtf").attributes
        #expect(a.title == "タイトル")
        #expect(a.strings(.authors) == ["shinsuke"])
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_286_547_480))
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_286_693_940))
        #expect(a.textContent == "Hello\nこんにちは\nTest\nテスト")
    }

    @Test("every info field, \\u with fallbacks, surrogate pairs, skipped destinations, \\bin")
    func synthetic() throws {
        let source = #"""
        {\rtf1\ansi\ansicpg1252\uc1\deff0{\fonttbl{\f0\fswiss Arial;}}{\colortbl;\red0\green0\blue0;}
        {\stylesheet{\s0 Normal;}}{\info{\title T\'e9l\'e9}{\subject S}{\author Ann}{\author Bob}
        {\keywords alpha, beta;gamma}{\doccomm A comment}{\operator Op}{\creatim\yr2020\mo2\dy29\hr13\min5}
        {\revtim\yr2021\mo1\dy2}}{\*\generator Foo 1.0;}
        Caf\'e9 \u8364? {\pict\pngblip 89504e470d0a}{\*\unknowndest hidden}\par
        Emoji \u-10179?\u-8704? {\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt link}} \bin3 {}x end\line next\tab x\~y}
        """#
        let r = try rtf(source)
        let a = r.attributes
        #expect(r.problems.isEmpty)
        #expect(a.title == "Télé")
        #expect(a.string(.subject) == "S")
        #expect(a.strings(.authors) == ["Ann", "Bob"])
        #expect(a.strings(.keywords) == ["alpha", "beta", "gamma"])
        #expect(a.string(.contentDescription) == "A comment")
        #expect(a.date(.contentCreationDate) == DocumentFixtures.date(1_582_981_500))   // 2020-02-29T13:05Z
        #expect(a.date(.contentModificationDate) == DocumentFixtures.date(1_609_545_600))   // 2021-01-02
        #expect(a.textContent == "Café €\nEmoji 😀 link end\nnext x y")
    }

    @Test("\\ucN skips N fallback bytes; keywords without commas split on spaces")
    func unicodeSkip() throws {
        let a = try rtf(#"{\rtf1\ansi{\info{\keywords one two}}{\uc2\u26085\'93\'fa\u26412\'96\'7b} A\u228?b}"#).attributes
        #expect(a.textContent == "日本 Aäb")
        #expect(a.strings(.keywords) == ["one", "two"])
    }

    @Test("deeply nested groups are skipped, not recursed into, and the skip is recorded (issue 11)")
    func deep() throws {
        let source = "{\\rtf1 start " + String(repeating: "{", count: 100_000) + "deep"
            + String(repeating: "}", count: 100_000) + " end}"
        let r = try rtf(source)
        #expect(r.problems.count == 1)
        #expect(r.attributes.string(.extractionError)?.contains("deeper than 256 was skipped") == true)
        #expect(r.attributes.textContent == "start end")
    }

    @Test("text after a picture larger than the first read is reached through the descriptor")
    func largeFile() throws {
        let picture = String(repeating: "0123456789abcdef", count: 160_000)   // 2.5 MB of hex
        let r = try rtf("{\\rtf1\\ansi{\\info{\\title Big}}before {\\pict\\pngblip " + picture + "} after picture\\par end}")
        #expect(r.problems.isEmpty)
        #expect(r.attributes.title == "Big")
        #expect(r.attributes.textContent == "before after picture\nend")
        #expect(r.attributes[.textTruncated] == nil)
    }

    @Test("text stops at the cap")
    func cap() throws {
        let body = String(repeating: "word ", count: 1000)
        let a = try rtf("{\\rtf1\\ansi " + body + "}", textCap: 100).attributes
        #expect(a.textContent?.utf8.count ?? 0 <= 100)
        #expect(a.textContent?.hasPrefix("word word") == true)
        #expect(a[.textTruncated] == .bool(true))
    }

    @Test("damaged copies of the real RTF files never crash or hang", .realCorpus, .timeLimit(.minutes(1)))
    func mutated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        var problems = 0
        for file in ["office/testRTF.rtf", "office/testRTFJapanese.rtf", "office/testRTF-ms932.rtf"] {
            problems += try DocumentFixtures.mutations(of: file, count: 25, in: tree)
        }
        #expect(problems > 0)
    }

    @Test("a .rtf file that is not RTF is reported")
    func notRTF() throws {
        let r = try rtf("just some text\n")
        #expect(r.extractor == "rtf")
        #expect(DocumentFixtures.hasProblem(r, "rtf", containing: "not an RTF document"))
    }

    @Test("the first half of every real RTF file: a truncation problem and what was read", .realCorpus,
          .timeLimit(.minutes(1)))
    func truncated() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        for file in ["office/testRTF.rtf", "office/testRTFJapanese.rtf", "office/testRTF-ms932.rtf"] {
            let r = try DocumentFixtures.firstHalf(file, in: tree)
            #expect(r.extractor == "rtf", "\(file)")
            #expect(DocumentFixtures.hasProblem(r, "rtf", containing: "truncated"), "\(file): \(r.problems)")
        }
        let japanese = try DocumentFixtures.firstHalf("office/testRTFJapanese.rtf", in: tree).attributes
        #expect(japanese.title == "ゾルゲと尾崎、淡々と最期")
        #expect(japanese.textContent?.hasPrefix("ゾルゲの処刑記録、") == true)
    }
}
