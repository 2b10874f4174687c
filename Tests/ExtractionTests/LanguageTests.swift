import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("Language", .blocking)
struct LanguageTests {
    /// (corpus file, expected language; nil: the identifier must not guess)
    static let real: [(String, String?)] = [
        ("text-encodings/uchardet/ru/koi8-r.txt", "ru"),
        ("text-encodings/russian.cp866.txt", "ru"),
        ("text-encodings/uchardet/ko/utf-16.le", "ko"),
        ("text-encodings/uchardet/ja/euc-jp.txt", "ja"),          // Japanese with English words
        ("text-encodings/uchardet/fr/utf-16.be", "en"),           // the "fr" sample is English
        ("text-encodings/charset_normalizer/sample-french-1.txt", "fr"),
        ("text-encodings/charset_normalizer/sample-greek.txt", "el"),
        ("text-encodings/charset_normalizer/sample-chinese.txt", "zh"),
        ("text-encodings/charset_normalizer/sample-korean.txt", "ko"),
        ("text-encodings/charset_normalizer/sample-russian.txt", "ru"),
        ("text-encodings/english.cp500.txt", "en"),
        ("text-encodings/uchardet/ja/shift_jis.txt", nil),        // 日本語 repeated: Japanese or Chinese?
        ("text-encodings/uchardet/zh/gb18030.txt", nil),          // 简体中文 repeated: too few letters
        ("text-encodings/testTXT.txt", nil),                      // under 100 bytes
        ("code/testJAVA.java", nil),                              // code: never classified
        ("code/testC.c", nil),                                    // code, even with English comments
        ("xml/test.fb2", "ru"),                                   // from FictionBook's <lang>
        ("xml/testXML.xml", "Fr"),                                // the extractor's dc:language is kept
    ]

    @Test("real files", .realCorpus, arguments: real)
    func realFiles(_ file: String, _ language: String?) throws {
        let r = try extractReal(file)
        #expect(r.attributes.string(.language) == language)
    }

    /// Issue 28: a declared tag keeps its region; the identifier, which knows only `en`, adds
    /// nothing where a tag is declared. (PDF XMP: `PDFAnnotationTests`.)
    @Test("a declared full tag (en-US, fr-CA) is kept, not cut to the identifier's en")
    func declaredFullTag() throws {
        let tree = try TemporaryTree()
        let english = "The quick brown fox jumps over the lazy dog while the farmer watches from the porch and the children play in the garden behind the old red barn."
        let html = try tree.create("us.html", contents: "<html lang=\"en-US\"><head><title>x</title></head><body><p>\(english)</p></body></html>")
        let h = try extract(html)
        #expect(h.attributes.string(.language) == "en-US")
        #expect(!h.trace.map(\.name).contains("language"))   // the identifier was not asked
        let meta = try tree.create("ca.html", contents: "<html><head><meta http-equiv=\"Content-Language\" content=\"fr-CA\"></head><body><p>\(english)</p></body></html>")
        #expect(try extract(meta).attributes.string(.language) == "fr-CA")
        let plain = try tree.create("en.html", contents: "<html><body><p>\(english)</p></body></html>")
        #expect(try extract(plain).attributes.string(.language) == "en")
    }

    @Test("every extractor's text is classified: HTML without lang, XML without dc:language")
    func central() throws {
        let tree = try TemporaryTree()
        let french = "Le petit prince est une œuvre de langue française, la plus connue d'Antoine de Saint-Exupéry. Publié en 1943 à New York, c'est un conte poétique et philosophique sous l'apparence d'un conte pour enfants."
        let html = try tree.create("page.html", contents: "<html><head><title>x</title></head><body><p>\(french)</p></body></html>")
        let h = try extract(html)
        #expect(h.extractor == "html")
        #expect(h.attributes.string(.language) == "fr")
        #expect(h.trace.map(\.name) == ["filesystem", "type", "html", "language"])
        let xml = try tree.create("doc.xml", contents: "<?xml version=\"1.0\"?><doc><p>\(french)</p></doc>")
        #expect(try extract(xml).attributes.string(.language) == "fr")
        let german = "Der Bäcker backt jeden Morgen frische Brötchen für die Nachbarn. Danach geht er mit seinem Hund durch den Wald und trinkt einen Kaffee im kleinen Café an der Ecke."
        #expect(try extract(try tree.create("de.txt", contents: german)).attributes.string(.language) == "de")
        // Too short: no guess, and no trace entry.
        let short = try extract(try tree.create("short.txt", contents: "Bonjour tout le monde"))
        #expect(short.attributes.string(.language) == nil)
        #expect(short.trace.map(\.name) == ["filesystem", "type", "plain-text"])
    }

    @Test("scripts decide CJK without textcat; other texts only meet models of their script")
    func scripts() throws {
        let identifier = try #require(LanguageIdentifier.shared)
        #expect(identifier.modelCount > 80)
        #expect(identifier.models(of: .latin).allSatisfy { $0.utf8.count == 2 })
        #expect(identifier.models(of: .cyrillic).contains("ru"))
        #expect(!identifier.models(of: .cyrillic).contains("en"))
        #expect(identifier.models(of: .latin).contains("en"))
        let japanese = String(repeating: "日本語の文章です。これはテストであり、東京都に住んでいる人々が毎日読む新聞の記事のような文です。", count: 3)
        #expect(identifier.language(of: japanese) == "ja")
        let chinese = String(repeating: "维基百科是一个自由内容、公开编辑且多语言的网络百科全书协作计划，通过维基模式进行合作。", count: 3)
        #expect(identifier.language(of: chinese) == "zh")
        #expect(identifier.language(of: String(repeating: "ab ", count: 100)) == nil)   // too few different letters
        #expect(identifier.language(of: String(repeating: "1234567890 ", count: 20)) == nil)
    }

    @Test("missing model files: no identifier, and the context says so once")
    func missingData() {
        #expect(LanguageIdentifier(directory: "/nonexistent/libexttextcat/") == nil)
        #expect(LanguageIdentifier.dataAvailable)
        #expect(ExtractionContext.languageDiagnostic == nil)
        ExtractionContext.preloadTextSupport()   // loads models and converters; harmless twice
        ExtractionContext.preloadTextSupport()
    }

    /// Cost per call on a long text (of which `sampleBytes` are classified), printed for the report.
    @Test("cost per classification")
    func cost() throws {
        let identifier = try #require(LanguageIdentifier.shared)
        let english = String(repeating: """
            The licenses for most software and other practical works are designed to take away your freedom to share \
            and change the works. By contrast, the General Public License is intended to guarantee your freedom to share \
            and change all versions of a program, to make sure it remains free software for all its users. When we speak \
            of free software, we are referring to freedom, not price. You can give copies to anyone who wants them.
            """, count: 12)
        let russian = String(repeating: "Однажды в студёную зимнюю пору я из лесу вышел; был сильный мороз. ", count: 60)
        for (name, text, expected) in [("en", english, "en"), ("ru", russian, "ru")] {
            #expect(identifier.language(of: text) == expected)
            let n = 50
            let start = ContinuousClock.now
            for _ in 0..<n { _ = identifier.language(of: text) }
            let micros = ExtractionContext.seconds(since: start) / Double(n) * 1e6
            print("language(of:) \(name), \(LanguageIdentifier.sampleBytes) bytes: \(Int(micros)) µs per call")
            #expect(micros < 50_000)
        }
    }
}
