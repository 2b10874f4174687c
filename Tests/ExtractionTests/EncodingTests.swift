import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("Encodings", .blocking)
struct EncodingTests {
    /// The bytes of a file of the real corpus.
    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file(relative).string)))
    }

    /// (corpus file, expected encoding, a word in the original language that must be in the text)
    static let real: [(String, String, String)] = [
        ("text-encodings/uchardet/ja/euc-jp.txt", "euc-jp", "文字コード"),
        ("text-encodings/uchardet/ja/shift_jis.txt", "shift_jis", "日本語"),
        ("text-encodings/uchardet/zh/gb18030.txt", "gb18030", "简体中文"),
        ("text-encodings/uchardet/ru/koi8-r.txt", "koi8-r", "восьмибитовая"),
        ("text-encodings/uchardet/ko/utf-16.le", "utf-16le", "유니코드"),
        // The "fr" sample of uchardet's tests is English text; its non-ASCII is the BOM alone.
        ("text-encodings/uchardet/fr/utf-16.be", "utf-16be", "1,112,064 possible characters"),
        ("text-encodings/russian.cp866.txt", "ibm866", "студеную"),
        ("text-encodings/english.cp500.txt", "ibm500", "IntelliStation"),
        ("text-encodings/charset_normalizer/sample-chinese.txt", "big5", "維基大典"),
        ("text-encodings/charset_normalizer/sample-greek.txt", "iso-8859-7", "ελληνική"),
        ("text-encodings/charset_normalizer/sample-korean.txt", "cp949", "역사적"),
        ("text-encodings/charset_normalizer/sample-russian.txt", "x-mac-cyrillic", "гимназии"),
        ("text-encodings/charset_normalizer/sample-french-1.txt", "windows-1252", "FÉVRIER"),
        ("text-encodings/charset_normalizer/sample-english.bom.txt", "utf-8", "About 2 months ago"),
        ("text-encodings/testTXT.txt", "utf-8", "indexation"),
        ("text-encodings/testTXTNonASCIIUTF8.txt", "utf-8", "renard"),
        // uchardet says WINDOWS-1250, which decodes these bytes to the same text: the common name wins.
        ("text-encodings/testTXT_win-1252.txt", "windows-1252", "“windows”"),
    ]

    @Test("real files: encoding and a word in the original language", .realCorpus, arguments: real)
    func realFiles(_ file: String, _ encoding: String, _ word: String) throws {
        let r = try extractReal(file)
        #expect(r.extractor == "plain-text")
        #expect(r.attributes.string(.encoding) == encoding)
        #expect(r.attributes.textContent?.contains(word) == true, "\(String((r.attributes.textContent ?? "").prefix(120)))")
        #expect(r.attributes.textContent?.contains("\u{FFFD}") == false)
        #expect(r.problems.isEmpty)
    }

    @Test("every real encoding file cut in half: no crash, a clear encoding or none", .realCorpus)
    func truncatedReal() throws {
        let tree = try TemporaryTree()
        for (file, encoding, _) in Self.real {
            let bytes = try EncodingTests.bytes(file)
            let half = Array(bytes.prefix(bytes.count / 2 + 1))   // odd: cuts UTF-16 and multi-byte characters
            let r = try extract(try tree.create("half-\(file.split(separator: "/").last!)", bytes: half))
            #expect(r.problems.isEmpty, "\(file)")
            if ["shift_jis", "euc-jp", "koi8-r", "ibm866", "utf-16le", "utf-16be", "utf-8"].contains(encoding) {
                #expect(r.attributes.string(.encoding) == encoding, "\(file)")
            }
            #expect(r.attributes.textContent?.isEmpty == false, "\(file)")
        }
    }

    @Test("a 200-byte Latin-1 file")
    func latin1() throws {
        let tree = try TemporaryTree()
        let text = "Grüße aus München! Der Bäcker backt Brötchen für die Straße, das Café öffnet früh. Übermorgen fährt Jürgen nach Köln, um die schöne Domstadt zu sehen; danach trifft er Zoë in Düsseldorf. Ça va."
        let bytes = text.unicodeScalars.map { UInt8($0.value) }
        #expect((180...220).contains(bytes.count))
        let a = try extract(try tree.create("latin1.txt", bytes: bytes)).attributes
        #expect(a.string(.encoding) == "iso-8859-1")
        #expect(a.textContent == text)
        #expect(a.string(.language) == "de")
    }

    @Test("UTF-16 and UTF-32 without a byte-order mark")
    func unicodeWithoutBOM() throws {
        let tree = try TemporaryTree()
        let text = "Voilà l'été: naïve café, Grüße aus Köln. Привет!\n"
        let le = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let be = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let u32 = text.unicodeScalars.flatMap { s in (0..<4).map { UInt8((s.value >> (8 * $0)) & 0xFF) } }
        for (name, bytes, encoding) in [("le.txt", le, "utf-16le"), ("be.txt", be, "utf-16be"), ("u32.txt", u32, "utf-32le")] {
            let a = try extract(try tree.create(name, bytes: bytes)).attributes
            #expect(a.string(.encoding) == encoding, "\(name)")
            #expect(a.textContent == text, "\(name)")
        }
        // Korean UTF-16LE without BOM and without any ASCII (so without NUL bytes): uchardet
        // 0.0.7 has no answer, the script check finds it.
        let korean = "유니코드문자인코딩방식의하나이다주로사용되는기본다국어평면에속하는문자들은그대로"
        let ko = korean.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let k = try extract(try tree.create("ko.txt", bytes: ko)).attributes
        #expect(k.string(.encoding) == "utf-16le")
        #expect(k.textContent == korean)
    }

    @Test("the real BOM-less Korean UTF-16LE (the corpus file without its BOM)", .realCorpus)
    func koreanWithoutBOM() throws {
        let tree = try TemporaryTree()
        let bytes = Array(try EncodingTests.bytes("text-encodings/uchardet/ko/utf-16.le").dropFirst(2))
        let a = try extract(try tree.create("ko-nobom.txt", bytes: bytes)).attributes
        #expect(a.string(.encoding) == "utf-16le")
        #expect(a.textContent?.contains("유니코드") == true)
    }

    @Test("a multi-byte character cut at the end of a whole file", .realCorpus)
    func truncatedMultibyte() throws {
        let tree = try TemporaryTree()
        var sjis = try EncodingTests.bytes("text-encodings/uchardet/ja/shift_jis.txt")
        while sjis.last == 0x0A || sjis.last == 0x0D { sjis.removeLast() }
        sjis.removeLast()   // the second byte of the last 語
        let a = try extract(try tree.create("cut.txt", bytes: sjis)).attributes
        #expect(a.string(.encoding) == "shift_jis")
        #expect(a.textContent?.hasSuffix("日本\u{FFFD}") == true)
        // Directly: the same cut in a prefix (more to come) is dropped without a replacement.
        let prefix = Charsets.convert(sjis[...], from: "SHIFT_JIS", isComplete: false)
        #expect(prefix?.errors == 0)
        #expect(prefix?.text.hasSuffix("日本") == true)
        // An invalid byte in the middle is one U+FFFD and decoding goes on.
        let bad: [UInt8] = [0x93, 0xFA, 0xFF, 0x96, 0x7B]   // 日, 0xFF (never valid), 本
        #expect(Charsets.convert(bad[...], from: "SHIFT_JIS", isComplete: true).map { ($0.text, $0.errors) }! == ("日\u{FFFD}本", 1))
        #expect(Charsets.convert(bad[...], from: "NO-SUCH-CHARSET", isComplete: true) == nil)
    }

    /// `text` encoded by glibc's iconv in `charset` (the test's own encoder, so the files are
    /// generated here).
    static func encoded(_ text: String, as charset: String) throws -> [UInt8] {
        let cd = iconv_open(charset, "UTF-8")
        try #require(cd != nil && Int(bitPattern: cd) != -1, "iconv knows no \(charset)")
        defer { iconv_close(cd) }
        var input = Array(text.utf8)
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        let produced = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf -> Int in
                var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuf.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuf.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count, outLeft = outBuf.count
                guard iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) != -1 else { return -1 }
                return outBuf.count - outLeft
            }
        }
        try #require(produced >= 0, "\(charset) cannot encode the text")
        return Array(output.prefix(produced))
    }

    /// uchardet 0.0.7 answers ISO-8859-7 for this Greek text in windows-1253, and
    /// WINDOWS-1253 for the same text in ISO-8859-7 (a few `Ά` before `υ` or `φ` flip its
    /// statistics; checked with uchardet itself). Where the bytes decide (windows-1253's `Ά` at
    /// 0xA2 and `µ` at 0xB5, ISO-8859-7's `Ά` at 0xB6), the charset in which the text decodes
    /// to words is recorded (issue 28).
    @Test("Greek: windows-1253 and ISO-8859-7 told apart where the bytes decide")
    func greekCodePages() throws {
        let tree = try TemporaryTree()
        let text = "Η ελληνική γλώσσα μιλιέται σήμερα από περίπου δεκατρία εκατομμύρια ανθρώπους, κυρίως στην Ελλάδα και στην Κύπρο. "
            + "Έχει γραπτή παράδοση τριών χιλιάδων ετών και το αλφάβητό της είναι η βάση του λατινικού και του κυριλλικού. "
            + "Στη βιβλιοθήκη της πόλης υπάρχουν παλιά χειρόγραφα, χάρτες και επιστολές ταξιδιωτών από τον δέκατο ένατο αιώνα. "
            + "Οι μαθητές διαβάζουν κάθε πρωί ποιήματα του Καβάφη και του Σεφέρη, ενώ το απόγευμα παίζουν μουσική στην αυλή. "
            + "Ταξίδεψαν στην Άυστραλία και στην Άφρική.\n"
        let micro = text + "Το δείγμα ζυγίζει 5 µg.\n"   // µ exists in windows-1253 only
        for (name, greek, charset, expected) in [("w", text, "CP1253", "windows-1253"), ("i", text, "ISO-8859-7", "iso-8859-7"),
                                                 ("mu", micro, "CP1253", "windows-1253")] {
            let bytes = try Self.encoded(greek, as: charset)
            let a = try extract(try tree.create("greek-\(name).txt", bytes: bytes)).attributes
            #expect(a.string(.encoding) == expected, "\(name)")
            #expect(a.textContent == greek, "\(name): \(String((a.textContent ?? "").suffix(60)))")
            #expect(a.string(.language) == "el")
        }
        // Bytes that decide nothing keep uchardet's answer.
        #expect(Charsets.greekVariant("ISO-8859-7", of: try Self.encoded("καλημέρα κόσμε", as: "CP1253")[...]) == "ISO-8859-7")
        #expect(Charsets.greekVariant("WINDOWS-1252", of: [0xA2, 0xEB][...]) == "WINDOWS-1252")
    }

    @Test("random high bytes never crash and fall back on a single-byte charset")
    func garbage() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let bytes = (0..<Int.random(in: 1...3000, using: &rng)).map { _ in UInt8.random(in: 0x80...0xFF, using: &rng) }
            let d = TextDecoding.decode(bytes[...], isComplete: Bool.random(using: &rng))
            #expect(d != nil)
            #expect(d?.text.isEmpty == false)
        }
    }

    @Test("helpers: names, EBCDIC and UTF-16 checks")
    func helpers() {
        #expect(Charsets.name(ofDetected: "SHIFT_JIS") == "shift_jis")
        #expect(Charsets.name(ofDetected: "UHC") == "cp949")
        #expect(Charsets.name(ofDetected: "MAC-CYRILLIC") == "x-mac-cyrillic")
        #expect(Charsets.looksEBCDIC(Array("Plain ASCII text, with @ signs @ here @@@ and more".utf8)[...]) == false)
        #expect(Charsets.unicodeWithoutBOM(Array("plain ascii text".utf8)[...]) == nil)
        // Binary with NULs on both sides is not UTF-16.
        #expect(Charsets.unicodeWithoutBOM([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0][...]) == nil)
    }

    /// The fast path: valid UTF-8 never reaches uchardet. Measures decoding a 1 MiB UTF-8 file of
    /// mixed scripts, and a 1 MiB Latin-1 file (uchardet + iconv) for comparison.
    @Test("1 MiB of mixed UTF-8 text: fast path, timing")
    func bigMixed() throws {
        let line = "Grüße – Привет – 日本語のテキスト – 한국어 – Ελληνικά – plain ASCII words 12345\n"
        var text = ""
        while text.utf8.count < 1 << 20 { text += line }
        let bytes = Array(text.utf8)
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("big.txt", bytes: bytes), textCap: 2 << 20)
        #expect(r.attributes.string(.encoding) == "utf-8")
        #expect(r.attributes.textContent?.utf8.count == bytes.count)

        func time(_ body: () -> Void) -> Double {
            let start = ContinuousClock.now
            for _ in 0..<5 { body() }
            return ExtractionContext.seconds(since: start) / 5 * 1000
        }
        let utf8 = time { _ = TextDecoding.decode(bytes[...], isComplete: true) }
        let latin = bytes.map { $0 < 0x80 ? $0 : 0xE9 }
        let legacy = time { _ = TextDecoding.decode(latin[...], isComplete: true) }
        print("1 MiB decode: UTF-8 \(utf8) ms, Latin-1 (uchardet + iconv) \(legacy) ms")
        #expect(utf8 < 500)
    }
}
