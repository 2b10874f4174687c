import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("HTMLExtractor", .blocking)
struct HTMLExtractorTests {
    @Test("title, author and visible text of a real page", .realCorpus)
    func basic() throws {
        let a = try extractReal("html/testHTML.html").attributes
        #expect(a.title == "Title : Test Indexation Html")
        #expect(a.strings(.authors) == ["Tika Developers"])
        #expect(a.textContent?.contains("Indexation du fichier") == true)
        #expect(a.textContent?.contains("Licensed to the Apache") == false)   // an HTML comment
        #expect(a.textContent?.contains("Title : Test") == false)             // the title is not body text
    }

    @Test("meta description, keywords and author", .realCorpus)
    func meta() throws {
        let a = try extractReal("html/testHTML_metadata.html").attributes
        #expect(a.string(.contentDescription) == "Free Web tutorials")
        #expect(a.strings(.keywords) == ["HTML", "CSS", "XML", "JavaScript"])
        #expect(a.strings(.authors) == ["John Doe"])
        #expect(a.title == "OldMetaTitle")   // no <title>: the meta title
        #expect(a.textContent == "All meta information goes in the head section...")
        #expect(a.string(.encoding) == "utf-8")
    }

    @Test("a UTF-16LE page with a wrong meta charset", .realCorpus)
    func utf16() throws {
        let a = try extractReal("html/testHTML_charset_utf16le.html").attributes
        #expect(a.contentType == .html)
        #expect(a.title == "Title")
        #expect(a.textContent == "This is a sample text")
        #expect(a.string(.encoding) == "utf-16le")
    }

    @Test("script text is not indexed, even in broken markup", .realCorpus)
    func script() throws {
        let a = try extractReal("html/testHTMLBadScript.html").attributes
        #expect(a.textContent == "This is a test.")
        #expect(a.textContent?.contains("cool script") == false)
        let big = try extractReal("html/big-preamble.html").attributes
        #expect(big.textContent?.contains("function addToList") == false)
    }

    @Test("a meta charset after non-ASCII bytes is honoured", .realCorpus)
    func lateCharset() throws {
        let a = try extractReal("html/big-preamble.html").attributes
        #expect(a.string(.encoding) == "windows-1251")
        #expect(a.title?.hasPrefix("Аренда квартир") == true)
        #expect(a.string(.language) == "ru")   // Content-Language
        let arabic = try extractReal("html/testHTMLNoisyMetaEncoding_1.html").attributes
        #expect(arabic.string(.encoding) == "iso-8859-6")
        #expect(arabic.textContent?.contains("الاتحاد الجزائري") == true)
    }

    @Test("XHTML and an HTML fragment", .realCorpus)
    func xhtmlAndFragment() throws {
        let x = try extractReal("html/testXHTML.html").attributes
        #expect(x.title == "XHTML test document")
        #expect(x.textContent?.contains("XHTML document") == true)
        let f = try extractReal("html/testBrokenHTMLContainingRFC822.html").attributes
        #expect(f.contentType == .html)
        #expect(f.textContent?.contains("An exciting subject") == true)
    }

    @Test("generated page: lang, skipped elements, block separation, entities")
    func generated() throws {
        let tree = try TemporaryTree()
        let html = """
        <!doctype html><html lang="fr"><head><title> Mon  titre </title>
        <style>p { color: red }</style><script>var secret = 1;</script></head>
        <body><h1>Bonjour</h1><p>Premier<b>mot</b> &amp; caf&eacute;<p>Second <noscript>hidden</noscript>
        <template><p>tmpl</p></template><div>fin</div></body></html>
        """
        let a = try extract(try tree.create("page.html", contents: html)).attributes
        #expect(a.title == "Mon titre")
        #expect(a.string(.language) == "fr")
        #expect(a.textContent == "Bonjour\nPremiermot & café\nSecond\nfin")
        #expect(a.textContent?.contains("secret") == false)
        #expect(a.textContent?.contains("color") == false)
        // The first heading, as `headline` (it stays in the text too).
        #expect(a.string(.headline) == "Bonjour")
    }

    @Test("headline: the first <h1> only, its inner markup flattened; none without one")
    func headline() throws {
        let tree = try TemporaryTree()
        let two = "<title>T</title><h2>Sub</h2><h1>Struct <code>std::iter::Repeat</code></h1><h1>Second</h1><p>x</p>"
        #expect(try extract(try tree.create("a.html", contents: two)).attributes.string(.headline) == "Struct std::iter::Repeat")
        #expect(try extract(try tree.create("b.html", contents: "<title>T</title><h2>Only a sub</h2>")).attributes.string(.headline) == nil)
    }

    @Test("the text cap applies to the visible text")
    func cap() throws {
        let tree = try TemporaryTree()
        let body = String(repeating: "<p>word</p>", count: 200)
        let a = try extract(try tree.create("long.html", contents: "<title>T</title>" + body), textCap: 100).attributes
        #expect((a.textContent?.utf8.count ?? 0) <= 100)
        #expect(a[.textTruncated] == .bool(true))
        #expect(a.title == "T")
    }

    @Test("meta charset sniffing")
    func sniff() {
        #expect(HTMLExtractor.metaCharset(Array("<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Windows-1252'>".utf8)) == "windows-1252")
        #expect(HTMLExtractor.metaCharset(Array("<meta charset=\"utf-16\">".utf8)) == nil)
        #expect(HTMLExtractor.metaCharset(Array("<meta charset=\"no-such-charset\">".utf8)) == nil)
        #expect(HTMLExtractor.metaCharset(Array("<p>charset=koi8-r</p>".utf8)) == nil)
    }
}
