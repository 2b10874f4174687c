import Attributes
import Foundation
import IndexTestSupport
import Indexing
import Querying
import SharedQuerying
import SharedIndex
import TestSupport
import Testing

/// A generated tree with known answers for every operator, modifier, shorthand and date form of
/// `fsfind`'s query language, run through `ShortQueryParser` and `QueryEngine` against a fixed
/// clock (Wednesday 2026-03-18 12:00 UTC, weeks starting on Monday), so every answer is exact.
///
/// Dates of change (`modified:`, kMDItemFSContentChangeDate), oldest first:
/// ```
/// novel.epub 2022-01-01   a*b.txt 2023-05-05   axyb.txt 2023-05-06   song.mp3 2024-06-15
/// backup.zip 2025-11-20   IMG_0001.jpg 2025-12-31T23:59:59   clip.mp4 2026-01-01T00:00
/// deck.pptx 2026-02-01    thumb.jpg 2026-02-14   letter.docx 2026-02-28T23:00   invoice.eml 2026-03-01T00:00
/// beach.jpg 2026-03-05    main.swift, src 2026-03-10T12:00   reporting.txt 2026-03-11T11:00
/// Summer2.txt 2026-03-12  numbers.xlsx 2026-03-14   summer.txt 2026-03-16 (Mon)   draft-budget.pdf 2026-03-17 (yesterday)
/// readme.md 2026-03-18T00:30 (today)   report-2026.pdf 2026-03-18T11:00 (today)
/// ```
struct LanguageFixture {
    static let now = date("2026-03-18T12:00:00Z")
    static let clock: QueryClock = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        return QueryClock(now: now, calendar: calendar)
    }()

    static func date(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    static func tree(_ types: String...) -> [ContentType] {
        (types + ["public.data", "public.content", "public.item"]).map { ContentType(rawValue: $0) }
    }

    static let pdf = tree("com.adobe.pdf", "public.composite-content")
    static let jpeg = tree("public.jpeg", "public.image")
    static let mp3 = tree("public.mp3", "public.audio", "public.audiovisual-content")
    static let mp4 = tree("public.mpeg-4", "public.movie", "public.audiovisual-content")
    static let docx = tree("org.openxmlformats.wordprocessingml.document", "public.composite-content")
    static let text = tree("public.plain-text", "public.text")
    static let markdown = tree("net.daringfireball.markdown", "public.plain-text", "public.text")
    static let swift = tree("public.swift-source", "public.source-code", "public.plain-text", "public.text")
    static let folder = [ContentType(rawValue: "public.folder"), ContentType(rawValue: "public.directory"), ContentType(rawValue: "public.item")]
    static let zip = tree("public.zip-archive", "public.archive")
    static let mail = tree("public.email-message")
    static let pptx = tree("org.openxmlformats.presentationml.presentation", "public.presentation", "public.composite-content")
    static let xlsx = tree("org.openxmlformats.spreadsheetml.sheet", "public.spreadsheet", "public.composite-content")
    static let epub = tree("org.idpf.epub-container", "public.composite-content")

    static func item(_ path: String, _ types: [ContentType], size: Int64, modified: String, created: String? = nil,
                     contentModified: String? = nil, title: String? = nil, authors: [String]? = nil, text: String? = nil,
                     extra: [AttributeKey: AttributeValue] = [:]) -> SearchableItem {
        var a = AttributeSet()
        a[.name] = .string(String(path.split(separator: "/").last!))
        a.contentType = types[0]
        a.contentTypeTree = types
        a.fileSize = size
        a[.fsContentChangeDate] = .date(date(modified))
        a[.fsCreationDate] = .date(date(created ?? modified))
        if let contentModified { a[.contentModificationDate] = .date(date(contentModified)) }
        a.title = title
        if let authors { a[.authors] = .strings(authors) }
        a.textContent = text
        for (k, v) in extra { a[k] = v }
        return SearchableItem(uniqueIdentifier: ItemIdentifier("/q/" + path), domainIdentifier: "/q", attributes: a, expirationDate: nil)
    }

    static let items: [SearchableItem] = [
        item("docs/report-2026.pdf", pdf, size: 2_500_000, modified: "2026-03-18T11:00:00Z", created: "2026-01-01T00:00:00Z",
             contentModified: "2026-03-18T11:00:00Z", title: "Annual Report 2026", authors: ["Grace Hopper", "Ada Lovelace"],
             text: "The quarterly budget report for the board.",
             extra: [.pageCount: .integer(12), .encrypted: .bool(false), .keywords: .strings(["finance", "annual"])]),
        item("docs/draft-budget.pdf", pdf, size: 10_500_000, modified: "2026-03-17T10:00:00Z", created: "2025-12-31T23:59:59Z",
             contentModified: "2026-03-17T10:00:00Z", title: "Budget draft", authors: ["Alan Turing"],
             text: "budget draft numbers, not final", extra: [.pageCount: .integer(3), .encrypted: .bool(true)]),
        item("docs/summer.txt", text, size: 120, modified: "2026-03-16T08:00:00Z", title: "été", text: "vacances à la plage"),
        item("docs/Summer2.txt", text, size: 80, modified: "2026-03-12T09:00:00Z", title: "Été", text: "soleil"),
        item("photos/beach.jpg", jpeg, size: 800_000, modified: "2026-03-05T10:00:00Z", contentModified: "2026-03-05T10:00:00Z",
             extra: [.pixelWidth: .integer(4000), .pixelHeight: .integer(3000), .acquisitionModel: .string("Canon EOS R5")]),
        item("photos/thumb.jpg", jpeg, size: 900, modified: "2026-02-14T12:00:00Z", extra: [.pixelWidth: .integer(120)]),
        item("photos/IMG_0001.jpg", jpeg, size: 500_000, modified: "2025-12-31T23:59:59Z", extra: [.pixelWidth: .integer(1920)]),
        item("music/song.mp3", mp3, size: 5_000_000, modified: "2024-06-15T10:00:00Z", title: "Moonlight Sonata",
             authors: ["Ludwig van Beethoven"], extra: [.duration: .double(245.5)]),
        item("video/clip.mp4", mp4, size: 50_000_000, modified: "2026-01-01T00:00:00Z", extra: [.duration: .double(3725)]),
        item("docs/letter.docx", docx, size: 40_000, modified: "2026-02-28T23:00:00Z", contentModified: "2026-02-28T23:00:00Z",
             title: "Letter to Ada", authors: ["Charles Babbage"],
             text: "Dear Ada, the analytical engine weaves algebraic patterns.", extra: [.pageCount: .integer(2)]),
        item("src/main.swift", swift, size: 300, modified: "2026-03-10T12:00:00Z", text: "func main() { print(\"hello world\") }"),
        item("src", folder, size: 4096, modified: "2026-03-10T12:00:00Z"),
        item("archive/backup.zip", zip, size: 1_000_000, modified: "2025-11-20T10:00:00Z"),
        item("mail/invoice.eml", mail, size: 2_000, modified: "2026-03-01T00:00:00Z", title: "Invoice 42", authors: ["Bob Builder"],
             text: "please pay the invoice by friday",
             extra: [.authorEmailAddresses: .strings(["bob@example.com"]), .recipients: .strings(["Ada Lovelace"]),
                     .recipientEmailAddresses: .strings(["ada@example.org"]),
                     .isPriority: .bool(true), .priorityReasons: .strings(["direct: addressed to you directly"])]),
        item("slides/deck.pptx", pptx, size: 3_000_000, modified: "2026-02-01T09:00:00Z", title: "Quarterly deck",
             extra: [.pageCount: .integer(20)]),
        item("sheets/numbers.xlsx", xlsx, size: 60_000, modified: "2026-03-14T15:00:00Z", title: "Budget numbers"),
        item("notes/a*b.txt", text, size: 10, modified: "2023-05-05T10:00:00Z", text: "star file"),
        item("notes/axyb.txt", text, size: 11, modified: "2023-05-06T10:00:00Z", text: "plain file"),
        item("notes/readme.md", markdown, size: 5_000, modified: "2026-03-18T00:30:00Z", title: "Read me",
             text: "budget overview and report summary", extra: [.keywords: .strings(["overview"])]),
        item("books/novel.epub", epub, size: 700_000, modified: "2022-01-01T10:00:00Z", title: "A Novel", authors: ["Jane Austen"],
             extra: [.pageCount: .integer(300)]),
        item("notes/reporting.txt", text, size: 1_500, modified: "2026-03-11T11:00:00Z", text: "reporting of budgets"),
    ]

    /// Every file name (they are all different).
    static let all = Set(items.map { String($0.uniqueIdentifier.description.split(separator: "/").last!) })

    let tree: TemporaryTree
    let engine: QueryEngine
    /// The same items in a shared PostgreSQL index, when the suite runs under `onPostgres`:
    /// every query is then answered by both backends, which must agree.
    let shared: SharedQueryEngine?

    /// Set by `SharedQueryLanguageTests` to run this suite on both backends.
    @TaskLocal static var onPostgres: ThrowawayPostgres?

    init() throws {
        tree = try TemporaryTree(prefix: "fsindex-qlang")
        let store = try tree.makeIndexStore()
        try store.indexSearchableItems(Self.items)
        engine = QueryEngine(store: store)
        if let pg = Self.onPostgres {
            let url = try SharedIndexURL(try pg.makeDatabase())
            let publisher = SharedPublisher(store: store, url: url, host: "qlang")
            _ = try publisher.publishAll()
            publisher.disconnect()
            shared = try SharedQueryEngine(url: url)
        } else {
            shared = nil
        }
    }

    /// The names of the files the query finds.
    func names(_ query: String) throws -> Set<String> {
        let parsed = try ShortQueryParser.parse(query, clock: Self.clock)
        let spec = QuerySpec(predicate: parsed.predicate, now: Self.now, exactNameHint: parsed.nameHint)
        let results = try engine.run(spec)
        let names = results.map { String($0.identifier.description.split(separator: "/").last!) }
        #expect(names.count == Set(names).count, "\(query): a result appears twice")
        if let shared {
            let other = try shared.run(spec).map { String($0.identifier.description.split(separator: "/").last!) }
            #expect(Set(other) == Set(names) && other.count == names.count,
                    "\(query): PostgreSQL finds \(other.sorted()), SQLite \(names.sorted())")
            SharedQueryCount.add()
        }
        return Set(names)
    }

    func check(_ query: String, _ expected: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let got = try names(query)
            #expect(got == expected, "\(query): missing \(expected.subtracting(got).sorted()), extra \(got.subtracting(expected).sorted())",
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(query) threw: \(error)", sourceLocation: sourceLocation)
        }
    }

    func all(except: Set<String>) -> Set<String> { Self.all.subtracting(except) }

    /// The error a query throws, or nil.
    func error(_ query: String) -> QueryError? {
        do {
            _ = try ShortQueryParser.parse(query, clock: Self.clock)
            return nil
        } catch {
            return error
        }
    }
}

@Suite("Query language: known answers")
struct QueryLanguageTests {
    // MARK: Spotlight's form

    @Test("==, !=, <, >, <=, >= on numbers")
    func numbers() throws {
        let f = try LanguageFixture()
        f.check("kMDItemFSSize > 1000000", ["report-2026.pdf", "draft-budget.pdf", "song.mp3", "clip.mp4", "deck.pptx"])
        f.check("kMDItemFSSize >= 1000000", ["report-2026.pdf", "draft-budget.pdf", "song.mp3", "clip.mp4", "deck.pptx", "backup.zip"])
        f.check("kMDItemFSSize < 100", ["Summer2.txt", "a*b.txt", "axyb.txt"])
        f.check("kMDItemFSSize <= 80", ["Summer2.txt", "a*b.txt", "axyb.txt"])
        f.check("kMDItemFSSize == 120", ["summer.txt"])
        f.check("kMDItemFSSize != 120", f.all(except: ["summer.txt"]))
        f.check("kMDItemPixelWidth > 1920", ["beach.jpg"])
        f.check("kMDItemPixelWidth >= 1920", ["beach.jpg", "IMG_0001.jpg"])
        f.check("kMDItemPixelWidth == 1920", ["IMG_0001.jpg"])
        f.check("kMDItemPixelWidth < 1920", ["thumb.jpg"])
        f.check("kMDItemPixelWidth <= 1920", ["thumb.jpg", "IMG_0001.jpg"])
        // != only matches items that have the attribute.
        f.check("kMDItemPixelWidth != 120", ["beach.jpg", "IMG_0001.jpg"])
        f.check("kMDItemNumberOfPages != 3", ["report-2026.pdf", "letter.docx", "deck.pptx", "novel.epub"])
        f.check("kMDItemNumberOfPages > 3", ["report-2026.pdf", "deck.pptx", "novel.epub"])
        f.check("pixelWidth == 4000", ["beach.jpg"])   // our own names work too
        f.check("InRange(kMDItemFSSize, 900, 1500)", ["thumb.jpg", "reporting.txt"])
        f.check("InRange(kMDItemPixelWidth, 100, 1920)", ["thumb.jpg", "IMG_0001.jpg"])
        f.check("encrypted == 1", ["draft-budget.pdf"])
        f.check(#"encrypted == "false""#, ["report-2026.pdf"])
    }

    @Test("==, !=, <, >, <=, >= on strings")
    func strings() throws {
        let f = try LanguageFixture()
        let titled: Set = ["report-2026.pdf", "draft-budget.pdf", "summer.txt", "Summer2.txt", "song.mp3", "letter.docx",
                           "invoice.eml", "deck.pptx", "numbers.xlsx", "readme.md", "novel.epub"]
        f.check(#"kMDItemTitle == "Budget draft""#, ["draft-budget.pdf"])
        f.check(#"kMDItemTitle == "budget draft""#, [])
        f.check(#"kMDItemTitle != "Budget draft""#, titled.subtracting(["draft-budget.pdf"]))
        f.check(#"kMDItemTitle < "B""#, ["report-2026.pdf", "novel.epub"])
        f.check(#"kMDItemTitle <= "Budget draft""#, ["report-2026.pdf", "novel.epub", "draft-budget.pdf"])
        f.check(#"kMDItemTitle > "Budget draft""#, titled.subtracting(["report-2026.pdf", "novel.epub", "draft-budget.pdf"]))
        // Unicode order: É and é sort after every ASCII letter.
        f.check(#"kMDItemTitle >= "Q""#, ["deck.pptx", "readme.md", "summer.txt", "Summer2.txt"])
        // With c and d, été is folded to ete, which sorts before q.
        f.check(#"kMDItemTitle >= "q"cd"#, ["deck.pptx", "readme.md"])
        f.check(#"kMDItemFSName == "main.swift""#, ["main.swift"])
        f.check(#"kMDItemContentType == "com.adobe.pdf""#, ["report-2026.pdf", "draft-budget.pdf"])
        f.check(#"kMDItemContentTypeTree == "public.image""#, ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check(#"kMDItemContentTypeTree != "public.image""#, f.all(except: ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"]))
        f.check(#"kMDItemAcquisitionModel == "Canon*""#, ["beach.jpg"])
    }

    @Test("modifiers c, d, w and their combinations")
    func modifiers() throws {
        let f = try LanguageFixture()
        f.check(#"kMDItemTitle == "été""#, ["summer.txt"])
        f.check(#"kMDItemTitle == "ÉTÉ""#, [])
        f.check(#"kMDItemTitle == "ÉTÉ"cd"#, ["summer.txt", "Summer2.txt"])
        f.check(#"kMDItemTitle == "ÉTÉ"c"#, ["summer.txt", "Summer2.txt"])     // É and é differ only in case
        f.check(#"kMDItemTitle == "ETE"c"#, [])                                // c alone keeps the accents
        f.check(#"kMDItemTitle == "ete"d"#, ["summer.txt"])                     // d alone keeps the case
        f.check(#"kMDItemTitle == "ETE"cd"#, ["summer.txt", "Summer2.txt"])
        f.check(#"kMDItemTitle == "Été""#, ["Summer2.txt"])
        f.check(#"kMDItemTitle == "report"cw"#, ["report-2026.pdf"])            // a word inside the title
        f.check(#"kMDItemTitle == "report"w"#, [])                              // w alone keeps the case
        f.check(#"kMDItemTitle == "Report"w"#, ["report-2026.pdf"])
        f.check(#"kMDItemTitle == "rep*"cw"#, ["report-2026.pdf"])
        f.check(#"kMDItemTitle == "port"cw"#, [])                                // not a word of its own
        f.check(#"kMDItemTitle == "annual report"wc"#, ["report-2026.pdf"])     // a run of words
        f.check(#"kMDItemTitle == "report""#, [])                                // without w: the whole value
        f.check(#"kMDItemTitle == "ete"cdw"#, ["summer.txt", "Summer2.txt"])
        f.check(#"kMDItemFSName == "*.PDF"c"#, ["report-2026.pdf", "draft-budget.pdf"])
        f.check(#"kMDItemFSName == "*.PDF""#, [])
    }

    @Test("wildcards * and ?, and an escaped \\* in values")
    func wildcards() throws {
        let f = try LanguageFixture()
        f.check(#"kMDItemFSName == "*.pdf""#, ["report-2026.pdf", "draft-budget.pdf"])
        f.check(#"kMDItemFSName == "report-????.pdf""#, ["report-2026.pdf"])
        f.check(#"kMDItemFSName == "report-???.pdf""#, [])
        f.check(#"kMDItemFSName == "a*b.txt""#, ["a*b.txt", "axyb.txt"])
        f.check(#"kMDItemFSName == "a?b.txt""#, ["a*b.txt"])
        f.check(#"kMDItemFSName == "a\*b.txt""#, ["a*b.txt"])
        f.check(#"kMDItemFSName == "a\*b.TXT"c"#, ["a*b.txt"])
        f.check(#"kMDItemFSName == "*\**""#, ["a*b.txt"])
        f.check(#"kMDItemTitle == "*port*"c"#, ["report-2026.pdf"])
        f.check(#"kMDItemTitle == "?udget*""#, ["draft-budget.pdf", "numbers.xlsx"])
        f.check(#"kMDItemFSName != "*.txt""#, f.all(except: ["summer.txt", "Summer2.txt", "a*b.txt", "axyb.txt", "reporting.txt"]))
    }

    @Test("* and kMDItemTextContent: any text, and the text alone")
    func fullText() throws {
        let f = try LanguageFixture()
        f.check(#"* == "budget""#, ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx", "readme.md"])
        f.check(#"* == "budget*""#, ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx", "readme.md", "reporting.txt"])
        f.check(#"* == "BUDG*"cd"#, ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx", "readme.md", "reporting.txt"])
        f.check(#"* == "lovelace""#, ["report-2026.pdf", "invoice.eml"])          // authors and recipients
        f.check(#"* == "vacances a la plage""#, ["summer.txt"])
        f.check(#"kMDItemTextContent == "budget""#, ["report-2026.pdf", "draft-budget.pdf", "readme.md"])   // not the title
        f.check(#"kMDItemTextContent == "analytical engine""#, ["letter.docx"])
        f.check(#"kMDItemTextContent == "engine analytical""#, [])
        f.check(#"kMDItemTextContent == "an*tical""#, ["letter.docx"])             // a wildcard inside a word
        f.check(#"kMDItemTextContent == "plage" && kMDItemFSSize < 200"#, ["summer.txt"])
        // != matches only items that have the attribute: here, a text.
        f.check(#"kMDItemTextContent != "budget""#, ["summer.txt", "Summer2.txt", "letter.docx", "main.swift", "invoice.eml",
                                                     "a*b.txt", "axyb.txt", "reporting.txt"])
        f.check(#"* != "budget""#, f.all(except: ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx", "readme.md"]))
    }

    @Test("list attributes: any element matches; != needs the attribute and no equal element")
    func lists() throws {
        let f = try LanguageFixture()
        f.check(#"kMDItemAuthors == "ada*"cd"#, ["report-2026.pdf"])              // the second author
        f.check(#"kMDItemAuthors == "Ada Lovelace""#, ["report-2026.pdf"])
        f.check(#"kMDItemAuthors == "ada lovelace""#, [])
        f.check(#"kMDItemAuthors == "lovelace"cw"#, ["report-2026.pdf"])
        f.check(#"kMDItemAuthors != "Alan Turing""#, ["report-2026.pdf", "song.mp3", "letter.docx", "invoice.eml", "novel.epub"])
        f.check(#"kMDItemAuthors != "Ada Lovelace""#, ["draft-budget.pdf", "song.mp3", "letter.docx", "invoice.eml", "novel.epub"])
        f.check(#"kMDItemRecipients == "Ada*""#, ["invoice.eml"])
        f.check(#"kMDItemRecipientEmailAddresses == "*@example.org""#, ["invoice.eml"])
        f.check(#"kMDItemKeywords == "finance""#, ["report-2026.pdf"])
        f.check(#"kMDItemKeywords == "OVER*"c"#, ["readme.md"])
    }

    @Test("&&, ||, ! and parentheses; && binds tighter than ||")
    func booleans() throws {
        let f = try LanguageFixture()
        f.check(#"kMDItemFSName == "*.pdf" || kMDItemFSName == "*.jpg" && kMDItemPixelWidth > 1000"#,
                ["report-2026.pdf", "draft-budget.pdf", "beach.jpg", "IMG_0001.jpg"])
        f.check(#"kMDItemFSName == "*.jpg" && kMDItemPixelWidth > 1000 || kMDItemFSName == "*.pdf""#,
                ["report-2026.pdf", "draft-budget.pdf", "beach.jpg", "IMG_0001.jpg"])
        f.check(#"(kMDItemFSName == "*.pdf" || kMDItemFSName == "*.jpg") && kMDItemPixelWidth > 1000"#, ["beach.jpg", "IMG_0001.jpg"])
        f.check(#"(kMDItemFSSize > 1000000 && kMDItemFSName == "*.PDF"cd) || kMDItemPixelWidth > 1000"#,
                ["report-2026.pdf", "draft-budget.pdf", "beach.jpg", "IMG_0001.jpg"])
        f.check(#"kMDItemContentTypeTree == "public.image" && !(kMDItemPixelWidth > 1000)"#, ["thumb.jpg"])
        // ! of a comparison an item cannot make (no pixelWidth) is true for it.
        f.check("!kMDItemPixelWidth > 1000", f.all(except: ["beach.jpg", "IMG_0001.jpg"]))
        f.check("!(kMDItemFSSize > 1000 || kMDItemFSSize < 100)", ["summer.txt", "thumb.jpg", "main.swift"])
        f.check("!!(kMDItemPixelWidth == 120)", ["thumb.jpg"])
    }

    @Test("$time forms and ISO dates, on a column date and on a stored date")
    func spotlightDates() throws {
        let f = try LanguageFixture()
        let d = "kMDItemFSContentChangeDate"
        f.check("\(d) >= $time.today", ["readme.md", "report-2026.pdf"])
        f.check("\(d) == $time.today", ["readme.md", "report-2026.pdf"])
        f.check("\(d) == $time.today(-1)", ["draft-budget.pdf"])
        f.check("\(d) == $time.yesterday", ["draft-budget.pdf"])
        f.check("\(d) >= $time.today(-7)",
                ["reporting.txt", "Summer2.txt", "numbers.xlsx", "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("\(d) > $time.now(-7200)", ["report-2026.pdf"])
        f.check("\(d) >= $time.now", [])
        f.check("\(d) <= $time.now", LanguageFixture.all)
        f.check("\(d) == $time.this_week", ["summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("\(d) == $time.this_week(-1)", ["main.swift", "src", "reporting.txt", "Summer2.txt", "numbers.xlsx"])
        f.check("\(d) < $time.this_week(-1)", f.all(except: ["main.swift", "src", "reporting.txt", "Summer2.txt", "numbers.xlsx",
                                                               "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"]))
        let march: Set = ["invoice.eml", "beach.jpg", "main.swift", "src", "reporting.txt", "Summer2.txt", "numbers.xlsx",
                          "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"]
        f.check("\(d) == $time.this_month", march)
        f.check("\(d) >= $time.this_month", march)
        f.check("\(d) == $time.this_month(-1)", ["deck.pptx", "thumb.jpg", "letter.docx"])
        let thisYear = march.union(["clip.mp4", "deck.pptx", "thumb.jpg", "letter.docx"])
        f.check("\(d) >= $time.this_year", thisYear)
        f.check("\(d) == $time.this_year(-1)", ["backup.zip", "IMG_0001.jpg"])
        f.check("\(d) != $time.today", f.all(except: ["readme.md", "report-2026.pdf"]))
        f.check("\(d) == $time.iso(2026-02-14)", ["thumb.jpg"])
        f.check("\(d) == $time.iso(2026-02)", ["deck.pptx", "thumb.jpg", "letter.docx"])
        f.check("\(d) >= $time.iso(2026-03-17T10:00:00Z)", ["draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("\(d) > $time.iso(2026-03-17T10:00:00Z)", ["readme.md", "report-2026.pdf"])
        f.check("\(d) < $time.iso(2026-01-01T00:00:00Z)",
                ["novel.epub", "a*b.txt", "axyb.txt", "song.mp3", "backup.zip", "IMG_0001.jpg"])
        f.check("\(d) == $time.iso(2026-03-18T11:00:00+01:00)", [])                          // 10:00:00 UTC: nothing
        f.check("\(d) == $time.iso(2026-03-18T12:00:00+01:00)", ["report-2026.pdf"])           // 11:00 UTC
        f.check(#"\#(d) == "2026-03-05""#, ["beach.jpg"])
        f.check("InRange(\(d), $time.iso(2026-02-01), $time.iso(2026-02-28))", ["deck.pptx", "thumb.jpg", "letter.docx"])
        f.check("InRange(\(d), $time.today(-7), $time.today(-2))", ["reporting.txt", "Summer2.txt", "numbers.xlsx", "summer.txt"])
        f.check("kMDItemFSCreationDate == $time.iso(2026-01-01)", ["report-2026.pdf", "clip.mp4"])
        // A date kept in the attributes (ISO text), not in a column; != needs the attribute.
        let c = "kMDItemContentModificationDate"
        f.check("\(c) >= $time.today(-1)", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("\(c) < $time.this_month", ["letter.docx"])
        f.check("\(c) != $time.today", ["draft-budget.pdf", "beach.jpg", "letter.docx"])
        f.check("InRange(\(c), $time.iso(2026-03-01), $time.yesterday)", ["beach.jpg", "draft-budget.pdf"])
    }

    // MARK: The short form

    @Test("free words, phrases, exclusions and OR")
    func words() throws {
        let f = try LanguageFixture()
        f.check("budget report", ["report-2026.pdf", "readme.md"])
        f.check("report", ["report-2026.pdf", "readme.md", "reporting.txt"])            // the last word is a prefix
        f.check("reporting budget", ["reporting.txt"])                                   // budget* finds budgets
        f.check("budget reporting", [])                                                  // budget is a whole word
        f.check("\"report\"", ["report-2026.pdf", "readme.md"])                         // a phrase is never a prefix
        f.check("\"quarterly budget\"", ["report-2026.pdf"])
        f.check("\"budget report\"", ["report-2026.pdf"])
        f.check("\"report budget\"", [])
        f.check("-draft budget", ["report-2026.pdf", "numbers.xlsx", "readme.md", "reporting.txt"])
        // The prefix goes to the last word that is not excluded: "budget*" also finds "budgets".
        f.check("budget -\"budget draft\"", ["report-2026.pdf", "numbers.xlsx", "readme.md", "reporting.txt"])
        f.check("\"budget\" -\"budget draft\"", ["report-2026.pdf", "numbers.xlsx", "readme.md"])   // a phrase is never a prefix
        f.check("budget -draft*", ["report-2026.pdf", "numbers.xlsx", "readme.md", "reporting.txt"])
        f.check("invoice OR sonata", ["invoice.eml", "song.mp3"])
        f.check("quarterly OR invoice", ["report-2026.pdf", "deck.pptx", "invoice.eml"])
        f.check("budget OR invoice deck", [])                                            // (budget OR invoice) AND deck
        f.check("quarterly OR invoice deck", ["deck.pptx"])
        f.check("ETE", ["summer.txt", "Summer2.txt"])                                    // case and accents ignored
        f.check("lovelace", ["report-2026.pdf", "invoice.eml"])
        f.check("budget AND final", ["draft-budget.pdf"])
        f.check("(budget OR sonata) -draft -numbers", ["report-2026.pdf", "readme.md", "song.mp3"])
    }

    @Test("name:, ext:, dir:")
    func names() throws {
        let f = try LanguageFixture()
        f.check("name:budget", ["draft-budget.pdf"])
        f.check("name:REPORT", ["report-2026.pdf", "reporting.txt"])
        f.check("name:*.pdf", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("name:IMG_*", ["IMG_0001.jpg"])
        f.check("name:a?b.txt", ["a*b.txt"])
        f.check("name:a*b.txt", ["a*b.txt", "axyb.txt"])
        f.check(#"name:a\*b.txt"#, ["a*b.txt"])
        f.check("name:*", LanguageFixture.all)
        f.check("ext:pdf", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("ext:PDF", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("ext:jpg,mp3", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg", "song.mp3"])
        f.check("ext:.md", ["readme.md"])
        f.check("ext:df", [])
        f.check("dir:/q/notes", ["a*b.txt", "axyb.txt", "readme.md", "reporting.txt"])
        f.check("dir:/q/docs/", ["report-2026.pdf", "draft-budget.pdf", "summer.txt", "Summer2.txt", "letter.docx"])
        f.check("dir:/q/doc", [])                                                        // not a prefix of a name
        f.check("dir:photos", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check("dir:PHOTOS", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check("dir:src", ["main.swift"])                                               // inside a folder named src
        f.check("dir:/q/src", ["main.swift", "src"])                                     // the folder itself included
        f.check("dir:photos -name:IMG*", ["beach.jpg", "thumb.jpg"])
    }

    @Test("kind: for every kind")
    func kinds() throws {
        let f = try LanguageFixture()
        f.check("kind:pdf", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("kind:image", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check("kind:audio", ["song.mp3"])
        f.check("kind:video", ["clip.mp4"])
        f.check("kind:document", ["report-2026.pdf", "draft-budget.pdf", "letter.docx", "deck.pptx", "numbers.xlsx", "novel.epub"])
        f.check("kind:text", ["summer.txt", "Summer2.txt", "main.swift", "a*b.txt", "axyb.txt", "readme.md", "reporting.txt"])
        f.check("kind:code", ["main.swift"])
        f.check("kind:folder", ["src"])
        f.check("kind:archive", ["backup.zip"])
        f.check("kind:mail", ["invoice.eml"])
        f.check("kind:presentation", ["deck.pptx"])
        f.check("kind:spreadsheet", ["numbers.xlsx"])
        f.check("kind:book", ["novel.epub"])
        f.check("kind:PDF", ["report-2026.pdf", "draft-budget.pdf"])
        f.check("kind:pdf,image", ["report-2026.pdf", "draft-budget.pdf", "beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check("kind:public.jpeg", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg"])
        f.check("-kind:text kind:document budget", ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx"])
    }

    @Test("author:, title:, from:, to:")
    func people() throws {
        let f = try LanguageFixture()
        f.check("author:ada", ["report-2026.pdf"])
        f.check("author:LOVELACE", ["report-2026.pdf"])
        f.check("author:bob@", ["invoice.eml"])
        f.check("author:\"van Beethoven\"", ["song.mp3"])
        f.check("author:*austen", ["novel.epub"])
        f.check("title:budget", ["draft-budget.pdf", "numbers.xlsx"])
        f.check("title:ete", ["summer.txt", "Summer2.txt"])
        f.check("title:\"letter to\"", ["letter.docx"])
        f.check("title:*2026", ["report-2026.pdf"])
        f.check("from:bob", ["invoice.eml"])
        f.check("from:ada", ["report-2026.pdf"])
        f.check("to:ada", ["invoice.eml"])
        f.check("to:example.org", ["invoice.eml"])
        f.check("to:bob", [])
    }

    @Test("modified: and created: with days, months, years, ranges, comparisons, periods and durations")
    func shortDates() throws {
        let f = try LanguageFixture()
        let march: Set = ["invoice.eml", "beach.jpg", "main.swift", "src", "reporting.txt", "Summer2.txt", "numbers.xlsx",
                          "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"]
        f.check("modified:2026-03-05", ["beach.jpg"])
        f.check("modified:2026-03", march)
        f.check("modified:2026", march.union(["clip.mp4", "deck.pptx", "thumb.jpg", "letter.docx"]))
        f.check("modified:2025", ["backup.zip", "IMG_0001.jpg"])
        f.check("modified:2026-01..2026-02", ["clip.mp4", "deck.pptx", "thumb.jpg", "letter.docx"])
        f.check("modified:2026-03-10..2026-03-12", ["main.swift", "src", "reporting.txt", "Summer2.txt"])
        f.check("modified:2026-03-17..", ["draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("modified:..2023", ["novel.epub", "a*b.txt", "axyb.txt"])
        f.check("modified:>2026-03-14", ["summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("modified:>=2026-03-14", ["numbers.xlsx", "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("modified:<2023", ["novel.epub"])
        f.check("modified:<=2023-05-05", ["novel.epub", "a*b.txt"])
        f.check("modified:today", ["readme.md", "report-2026.pdf"])
        f.check("modified:yesterday", ["draft-budget.pdf"])
        f.check("modified:this_week", ["summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"])
        f.check("modified:last_week", ["main.swift", "src", "reporting.txt", "Summer2.txt", "numbers.xlsx"])
        f.check("modified:this_month", march)
        f.check("modified:last_month", ["deck.pptx", "thumb.jpg", "letter.docx"])
        f.check("modified:>yesterday", ["readme.md", "report-2026.pdf"])
        // Durations count back from now (2026-03-11 12:00): reporting.txt changed an hour before.
        let week: Set = ["Summer2.txt", "numbers.xlsx", "summer.txt", "draft-budget.pdf", "readme.md", "report-2026.pdf"]
        f.check("modified:<7d", week)
        f.check("modified:>7d", f.all(except: week))
        f.check("modified:<1w", week)
        f.check("modified:<2h", ["report-2026.pdf"])
        f.check("modified:7d", week)
        f.check("created:2026-01-01", ["report-2026.pdf", "clip.mp4"])
        f.check("created:2025-12-31", ["draft-budget.pdf", "IMG_0001.jpg"])
        f.check("created:2025", ["draft-budget.pdf", "IMG_0001.jpg", "backup.zip"])
        f.check("created:today", ["readme.md"])
    }

    @Test("size: with units, comparisons, one unit wide, and ranges")
    func sizes() throws {
        let f = try LanguageFixture()
        f.check("size:>10MB", ["draft-budget.pdf", "clip.mp4"])
        f.check("size:<1k", ["summer.txt", "Summer2.txt", "thumb.jpg", "main.swift", "a*b.txt", "axyb.txt"])
        f.check("size:10MB", ["draft-budget.pdf"])                          // [10 MB, 11 MB)
        f.check("size:2.5MB", ["report-2026.pdf", "deck.pptx"])             // [2.5 MB, 3.5 MB)
        f.check("size:1MB..3MB", ["report-2026.pdf", "backup.zip", "deck.pptx"])   // up to 3.999 MB
        f.check("size:..1k", ["summer.txt", "Summer2.txt", "thumb.jpg", "main.swift", "a*b.txt", "axyb.txt", "reporting.txt"])
        f.check("size:1M..", ["report-2026.pdf", "draft-budget.pdf", "song.mp3", "clip.mp4", "backup.zip", "deck.pptx"])
        f.check("size:>=1MiB", ["report-2026.pdf", "draft-budget.pdf", "song.mp3", "clip.mp4", "deck.pptx"])
        f.check("size:120", ["summer.txt"])
        f.check("size:>=4096 size:<=4096", ["src"])
        f.check("size:10..11", ["a*b.txt", "axyb.txt"])
    }

    @Test("duration: with units (s, m, h, 1h30m, H:MM:SS), one unit wide, ranges that end at their end (issue 28)")
    func durations() throws {
        let f = try LanguageFixture()
        // song.mp3 plays 245.5 s (4:05.5), clip.mp4 3725 s (1:02:05).
        f.check("duration:>10m", ["clip.mp4"])
        f.check("duration:>10m kind:video", ["clip.mp4"])
        f.check("kMDItemDurationSeconds > 600", ["clip.mp4"])
        f.check("duration:<90s", [])
        f.check("duration:<5m", ["song.mp3"])
        f.check("duration:>4min", ["song.mp3", "clip.mp4"])
        f.check("duration:4m", ["song.mp3"])                                // [4 min, 5 min)
        f.check("duration:1h", ["clip.mp4"])                                // [1 h, 2 h)
        f.check("duration:1h..2h", ["clip.mp4"])
        f.check("duration:4m..1h", ["song.mp3"])                            // at most 1 h: not 1:02:05
        f.check("duration:>=1h2m5s", ["clip.mp4"])
        f.check("duration:>1:02:05", [])
        f.check("duration:<=4:06", ["song.mp3"])
        f.check("duration:245.5", ["song.mp3"])                             // a bare number is exact seconds
        f.check("duration:>1.5h", [])
        #expect(throws: QueryError.self) { try ShortQueryParser.parse("duration:>10q") }
        #expect(throws: QueryError.self) { try ShortQueryParser.parse("duration:1:75") }
    }

    @Test("ATTRIBUTE:value for strings, numbers and booleans")
    func attributes() throws {
        let f = try LanguageFixture()
        f.check("camera:eos", ["beach.jpg"])
        f.check("kMDItemAcquisitionModel:CANON", ["beach.jpg"])
        f.check("acquisitionModel:canon*", ["beach.jpg"])
        f.check("keywords:fin", ["report-2026.pdf"])
        f.check("tag:overview", ["readme.md"])
        f.check("width:>1000", ["beach.jpg", "IMG_0001.jpg"])
        f.check("pixelWidth:>1000", ["beach.jpg", "IMG_0001.jpg"])
        f.check("width:1920", ["IMG_0001.jpg"])
        f.check("width:100..2000", ["thumb.jpg", "IMG_0001.jpg"])
        f.check("width:<=120", ["thumb.jpg"])
        f.check("pages:10..20", ["report-2026.pdf", "deck.pptx"])
        f.check("pages:<=3", ["draft-budget.pdf", "letter.docx"])
        f.check("kMDItemNumberOfPages:>100", ["novel.epub"])
        f.check("encrypted:yes", ["draft-budget.pdf"])
        f.check("encrypted:no", ["report-2026.pdf"])
        f.check("encrypted:true kind:pdf", ["draft-budget.pdf"])
        f.check("kMDItemTextContent:engine", ["letter.docx"])
        f.check("type:com.adobe.pdf", ["report-2026.pdf", "draft-budget.pdf"])
    }

    @Test("issue 27: priority:yes, isPriority == 1 and --sort priority (priority mail first, then relevance)")
    func priority() throws {
        let f = try LanguageFixture()
        f.check("priority:yes", ["invoice.eml"])
        f.check("isPriority == 1", ["invoice.eml"])
        f.check("priority:no", [])
        // Without words the default order is the newest first: the mail of 1 March comes last.
        f.check("kind:pdf OR kind:mail", ["report-2026.pdf", "draft-budget.pdf", "invoice.eml"])
        let parsed = try ShortQueryParser.parse("kind:pdf OR kind:mail", clock: LanguageFixture.clock)
        var spec = QuerySpec(predicate: parsed.predicate, now: LanguageFixture.now, exactNameHint: parsed.nameHint)
        let relevance = try f.engine.run(spec).map { $0.identifier.description }
        spec.sort = .priority
        let byPriority = try f.engine.run(spec).map { $0.identifier.description }
        #expect(byPriority.first == "/q/mail/invoice.eml", "\(byPriority)")
        #expect(relevance.first != "/q/mail/invoice.eml", "the default order puts it elsewhere: \(relevance)")
        #expect(Array(byPriority.dropFirst()) == relevance.filter { $0 != "/q/mail/invoice.eml" }, "then by relevance")
        if let shared = f.shared {
            let other = try shared.run(spec).map { $0.identifier.description }
            #expect(other == byPriority, "PostgreSQL: \(other)")
            SharedQueryCount.add()
        }
    }

    @Test("both forms mixed in one query")
    func mixed() throws {
        let f = try LanguageFixture()
        f.check("kind:pdf kMDItemNumberOfPages > 3", ["report-2026.pdf"])
        f.check("budget && kMDItemFSSize > 5000", ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx"])
        f.check("budget kMDItemFSSize > 5000", ["report-2026.pdf", "draft-budget.pdf", "numbers.xlsx"])
        f.check("kind:image width:>1000 OR kind:audio", ["beach.jpg", "IMG_0001.jpg"])
        f.check("kind:image || kind:audio", ["beach.jpg", "thumb.jpg", "IMG_0001.jpg", "song.mp3"])
        f.check(#"(kMDItemPixelWidth > 1000 || kMDItemFSName == "*.mp3") modified:2025..2026"#, ["beach.jpg", "IMG_0001.jpg"])
        f.check(#"dir:docs kMDItemAuthors == "*"c -kind:pdf"#, ["letter.docx"])
        f.check("!kind:pdf budget", ["numbers.xlsx", "readme.md", "reporting.txt"])
        f.check("modified:this_week InRange(kMDItemFSSize, 100, 10000)", ["summer.txt", "readme.md"])
        f.check(#"title:report kMDItemContentModificationDate >= $time.today"#, ["report-2026.pdf"])
    }

    // MARK: Errors

    @Test("syntax errors carry the caret position")
    func syntaxErrors() throws {
        let f = try LanguageFixture()
        let cases: [(String, Int, String)] = [
            ("\"unclosed words", 0, "never closed"),
            ("budget \"unclosed", 7, "never closed"),
            ("(budget report", 0, "never closed"),
            ("budget (report OR draft", 7, "never closed"),
            ("budget )", 7, "no \"(\""),
            (")", 0, "no \"(\""),
            (#"kMDItemTitle == "abc"#, 16, "never closed"),
            (#"kind:pdf kMDItemTitle == "abc"#, 25, "never closed"),
            ("kMDItemFSSize > $time.tomorrow", 22, "unknown $time.tomorrow"),
            ("budget OR", 9, "after OR"),
        ]
        for (query, position, words) in cases {
            guard case .syntax(let e)? = f.error(query) else {
                Issue.record("\(query): expected a syntax error, got \(String(describing: f.error(query)))")
                continue
            }
            #expect(e.position == position, "\(query): \(e.description)")
            #expect(e.message.contains(words), "\(query): \(e.message)")
            let caretLine = "  " + String(repeating: " ", count: position) + "^"
            #expect(e.description.hasSuffix("\n  \(query)\n" + caretLine), "\(query): \(e.description)")
            #expect(QueryError.syntax(e).description == e.description)
        }
    }

    @Test("unknown attributes suggest the nearest names")
    func unknownAttributes() throws {
        let f = try LanguageFixture()
        guard case .unknownAttribute(let a)? = f.error("kMDItemPixelWidht > 3") else {
            Issue.record("kMDItemPixelWidht > 3: \(String(describing: f.error("kMDItemPixelWidht > 3")))")
            return
        }
        #expect(a.name == "kMDItemPixelWidht")
        #expect(a.suggestions.contains("kMDItemPixelWidth"))
        #expect(a.description.contains("did you mean") && a.description.contains("kMDItemPixelWidth"))
        guard case .unknownAttribute(let b)? = f.error("widht:>3") else {
            Issue.record("widht:>3: \(String(describing: f.error("widht:>3")))")
            return
        }
        #expect(b.name == "widht")
        #expect(b.suggestions.contains("width"), "\(b.suggestions)")
        guard case .unknownAttribute(let c)? = f.error("budget kMDItemAuthor == \"x\"") else {
            Issue.record("kMDItemAuthor: \(String(describing: f.error("budget kMDItemAuthor == \"x\"")))")
            return
        }
        #expect(c.suggestions.contains("kMDItemAuthors"), "\(c.suggestions)")
        guard case .unknownAttribute(let d)? = f.error("zzzqqqxxx:1") else {
            Issue.record("zzzqqqxxx:1: \(String(describing: f.error("zzzqqqxxx:1")))")
            return
        }
        #expect(d.suggestions.isEmpty)
    }

    @Test("values that do not fit the attribute")
    func badValues() throws {
        let f = try LanguageFixture()
        let cases: [(String, String, String, String)] = [   // query, attribute, value, words of the reason
            ("size:>abc", "size", "abc", "not a size"),
            ("size:10QB", "size", "10QB", "not a size"),
            ("modified:2026-13-01", "modified", "2026-13-01", "not a date"),
            ("modified:2026-02-30", "modified", "2026-02-30", "not a date"),
            ("created:soon", "created", "soon", "not a date"),
            (#"pixelWidth == "abc""#, "pixelWidth", "abc", "not a number"),
            ("width:wide", "width", "wide", "not a number"),
            ("encrypted:maybe", "encrypted", "maybe", "yes or no"),
            ("kMDItemFSSize > $time.now", "kMDItemFSSize", "$time.now", "is a date"),
            ("kMDItemFSContentChangeDate > 3", "kMDItemFSContentChangeDate", "3", "is a number"),
            (#"kMDItemFSContentChangeDate > "yesterday""#, "kMDItemFSContentChangeDate", "yesterday", "not a date"),
            (#"kMDItemTextContent > "a""#, "kMDItemTextContent", "a", "cannot be compared"),
            ("ext:,", "ext", ",", "not an extension"),
        ]
        for (query, attribute, value, words) in cases {
            guard case .badValue(let at, let v, let reason)? = f.error(query) else {
                Issue.record("\(query): expected a bad value, got \(String(describing: f.error(query)))")
                continue
            }
            #expect(at == attribute, "\(query)")
            #expect(v == value, "\(query)")
            #expect(reason.contains(words), "\(query): \(reason)")
        }
        // kind: lists the kinds, and suggests one that is close.
        guard case .badValue(let attribute, let value, let reason)? = f.error("kind:foo") else {
            Issue.record("kind:foo: \(String(describing: f.error("kind:foo")))")
            return
        }
        #expect(attribute == "kind" && value == "foo")
        #expect(reason.contains("is not a kind") && reason.contains("Kinds:") && reason.contains("spreadsheet"))
        guard case .badValue(_, _, let near)? = f.error("kind:imag") else {
            Issue.record("kind:imag: \(String(describing: f.error("kind:imag")))")
            return
        }
        #expect(near.contains("did you mean image"), "\(near)")
    }

    @Test("nothing to search")
    func nothingToSearch() throws {
        let f = try LanguageFixture()
        for query in ["\"!!!\"", #"* == "!!!""#, #"kMDItemTextContent == "--""#] {
            guard case .nothingToSearch? = f.error(query) else {
                Issue.record("\(query): expected nothing to search, got \(String(describing: f.error(query)))")
                continue
            }
        }
        #expect(f.error("\"!!!\"")?.description.contains("no letters or digits") == true)
        // Unquoted symbols alone, after OR or excluded are a syntax error at the word; among
        // other words they are left out ("printed with {}"), as search engines do.
        for (query, at) in [("///", 0), ("budget OR ///", 10), ("budget -{}", 8), ("( /// )", 2), ("budget ---", 9)] {
            guard case .syntax(let e)? = f.error(query) else {
                Issue.record("\(query): \(String(describing: f.error(query)))")
                continue
            }
            #expect(e.position == at && e.description.contains("no letters or digits"), "\(query): \(e.description)")
        }
        #expect(f.error("budget ///") == nil)
        #expect(f.error("struct printed with {}") == nil)
    }
}
