import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

/// Front matter in Markdown, Dublin Core / FictionBook / KML / SVG in XML, DC and geo meta tags in HTML.
@Suite("TextMetadata", .blocking)
struct TextMetadataTests {
    static func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
        var c = DateComponents()
        (c.year, c.month, c.day, c.hour, c.minute, c.second) = (y, m, d, h, mi, s)
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        return cal.date(from: c)!
    }

    @Test("the corpus Markdown file: heading title, no front matter", .realCorpus)
    func realMarkdown() throws {
        let a = try extractReal("misc/testMARKDOWN.md").attributes
        #expect(a.title == "Title")
        #expect(a.strings(.authors).isEmpty)
        #expect(a.textContent?.contains("Café naïve résumé") == true)
    }

    @Test("YAML front matter: title, authors, tags, date; before the first heading")
    func yaml() throws {
        let tree = try TemporaryTree()
        let md = """
            ---
            title: "Release notes: 2.0"
            author: Ada Lovelace
            tags: [engines, "notes", history]
            date: 2024-03-05
            layout: post
            ---
            # A heading that is not the title
            Body text.
            """
        let a = try extract(try tree.create("notes.md", contents: md)).attributes
        #expect(a.title == "Release notes: 2.0")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.strings(.keywords) == ["engines", "notes", "history"])
        #expect(a.date(.contentCreationDate) == Self.utc(2024, 3, 5))

        let lists = """
            ---
            authors:
              - Grace Hopper
              - Alan Turing
            keywords:
            - compilers
            - machines
            date: 2001-02-03T04:05:06+01:00
            ---
            # Heading Title
            """
        let b = try extract(try tree.create("lists.md", contents: lists)).attributes
        #expect(b.title == "Heading Title")
        #expect(b.strings(.authors) == ["Grace Hopper", "Alan Turing"])
        #expect(b.strings(.keywords) == ["compilers", "machines"])
        #expect(b.date(.contentCreationDate) == Self.utc(2001, 2, 3, 3, 5, 6))
    }

    @Test("TOML front matter between +++ lines; a [table] ends the top level")
    func toml() throws {
        let tree = try TemporaryTree()
        let md = """
            +++
            title = "Hugo page"
            authors = ["Ann", "Bob"]
            tags = ["a", "b"]
            date = 2023-12-31T23:59:00Z
            [params]
            title = "not this"
            +++
            Text
            """
        let a = try extract(try tree.create("hugo.md", contents: md)).attributes
        #expect(a.title == "Hugo page")
        #expect(a.strings(.authors) == ["Ann", "Bob"])
        #expect(a.strings(.keywords) == ["a", "b"])
        #expect(a.date(.contentCreationDate) == Self.utc(2023, 12, 31, 23, 59))
    }

    @Test("front matter that is never closed is not front matter; free-text dates are ignored")
    func unclosed() {
        let (front, _) = PlainTextExtractor.frontMatter("---\ntitle: x\n\n# Heading\n")
        #expect(front == nil)
        #expect(PlainTextExtractor.markdownTitle("---\ntitle: x\n\n# Heading\n") == "Heading")
        var f = PlainTextExtractor.FrontMatter()
        f.add(key: "date", value: "last Tuesday")
        #expect(f.date == nil)
        #expect(DocumentFields.iso8601("2000-12-01T00:00:00.000Z") == Self.utc(2000, 12, 1))
        #expect(DocumentFields.iso8601("1869") == Self.utc(1869, 1, 1))
        #expect(DocumentFields.iso8601("2002-13-01") == nil)
        #expect(MetadataValues.coordinates("91, 10") == nil)
    }

    @Test("XML Dublin Core: title, creator, subjects, description, date, language", .realCorpus)
    func dublinCore() throws {
        let a = try extractReal("xml/testXML.xml").attributes
        #expect(a.title == "Tika test document")
        #expect(a.strings(.authors) == ["Rida Benjelloun"])
        #expect(a.strings(.keywords) == ["Java", "XML", "XSLT", "JDOM", "Indexation"])
        #expect(a.string(.contentDescription) == "Framework d'indexation des documents XML, HTML, PDF etc..")
        #expect(a.date(.contentCreationDate) == Self.utc(2000, 12, 1))
        #expect(a.string(.language) == "Fr")
    }

    @Test("FictionBook: book title, author names, keywords, language, date, publisher", .realCorpus)
    func fictionBook() throws {
        let a = try extractReal("xml/test.fb2").attributes
        #expect(a.title == "Война и мир")
        #expect(a.strings(.authors) == ["Лев Николаевич Толстой"])   // not the document-info nickname
        #expect(a.strings(.keywords).contains("крепостничество"))
        #expect(a.string(.language) == "ru")
        #expect(a.date(.contentCreationDate) == Self.utc(1869, 1, 1))
        #expect(a.strings(.publishers) == ["ГИХЛ"])
    }

    @Test("KML: name as title, first Point as position; SVG: desc", .realCorpus)
    func kmlAndSVG() throws {
        let k = try extractReal("xml/testKML.kml").attributes
        #expect(k.title == "KML Samples")
        #expect(k.string(.contentDescription) == "Unleash your creativity with the help of these examples!")
        #expect(k[.longitude] == .double(-122.0822035425683))
        #expect(k[.latitude] == .double(37.42228990140251))
        #expect(k[.altitude] == .double(0))
        let s = try extractReal("xml/testSVG.svg").attributes
        #expect(s.string(.contentDescription) == "Test SVG image")
        #expect(s.title == nil)
    }

    @Test("truncated copies of the XML files: partial attributes or a clear problem, never a crash", .realCorpus)
    func truncatedXML() throws {
        let tree = try TemporaryTree()
        for file in ["xml/testXML.xml", "xml/test.fb2", "xml/testKML.kml", "xml/testSVG.svg", "misc/testMARKDOWN.md"] {
            let bytes = try EncodingTests.bytes(file)
            let name = String(file.split(separator: "/").last!)
            let r = try extract(try tree.create("half-" + name, bytes: Array(bytes.prefix(bytes.count / 2))))
            if file.hasSuffix(".svg") {   // the first half ends inside <svg ...>: nothing to read, nothing wrong
                #expect(r.attributes.contentType == "public.svg-image")
                #expect(r.attributes.string(.contentDescription) == nil)
            } else {
                #expect(r.attributes.textContent != nil || !r.problems.isEmpty, "\(file)")
            }
        }
        let fb2 = try EncodingTests.bytes("xml/test.fb2")
        let r = try extract(try tree.create("half.fb2", bytes: Array(fb2.prefix(fb2.count / 2))))
        #expect(r.attributes.title == "Война и мир")   // the description comes first
    }

    @Test("HTML: geo.position and ICBM meta tags, Dublin Core meta tags")
    func htmlMeta() throws {
        let tree = try TemporaryTree()
        let geo = """
            <html><head><meta name="geo.position" content="48.8584;2.2945"><meta name="DC.title" content="Tour Eiffel">
            <meta name="DC.creator" content="Gustave"><meta name="DC.date" content="1889-03-31"><meta name="DC.subject" content="tower, iron">
            </head><body><p>x</p></body></html>
            """
        let a = try extract(try tree.create("geo.html", contents: geo)).attributes
        #expect(a[.latitude] == .double(48.8584))
        #expect(a[.longitude] == .double(2.2945))
        #expect(a.title == "Tour Eiffel")
        #expect(a.strings(.authors) == ["Gustave"])
        #expect(a.strings(.keywords) == ["tower", "iron"])
        #expect(a.date(.contentCreationDate) == Self.utc(1889, 3, 31))
        let icbm = "<html><head><title>T</title><meta name=\"ICBM\" content=\"-33.8568, 151.2153\"><meta name=\"DC.title\" content=\"no\"></head></html>"
        let b = try extract(try tree.create("icbm.html", contents: icbm)).attributes
        #expect(b[.latitude] == .double(-33.8568))
        #expect(b[.longitude] == .double(151.2153))
        #expect(b.title == "T")   // <title> wins over DC.title
        let bad = try extract(try tree.create("bad.html", contents: "<meta name=\"ICBM\" content=\"north\"><p>x</p>")).attributes
        #expect(bad[.latitude] == nil)
    }
}
