import Attributes
import ExtractionModel
import FoundationEssentials

/// Text files (`public.text` that is not HTML, XML or RTF): source code, logs, CSV, Markdown,
/// subtitles, mailboxes ...
///
/// The encoding comes from a byte-order mark (UTF-8, UTF-16 and UTF-32, both byte orders), else
/// valid UTF-8, else UTF-16/32 without a BOM, EBCDIC, or a legacy charset guessed by uchardet
/// and converted by iconv (Shift_JIS, GB18030, KOI8-R, ...), else Windows-1252/Latin-1 (see
/// `TextDecoding`). Bytes that look binary (a NUL, many control bytes, or libmagic's
/// `charset=binary`) and are none of these are not indexed as text; that is not an error.
/// For Markdown the `title` is the front matter's `title` (YAML between `---` lines or TOML
/// between `+++` lines) or else the first `# ` heading; front matter `author`/`authors` give
/// `authors`, `tags`/`keywords` give `keywords`, and a plain `date` gives `contentCreationDate`.
///
/// For example, `notes.md` holding `"---\ntitle: Plans\n---\n# Week 1\n"` gets `title` `"Plans"`,
/// `encoding` `"utf-8"` and the whole text as `textContent`.
///
/// Cost: linear in the bytes read (at most `textCap + 1`).
package struct PlainTextExtractor: Extractor {
    package var name: String { "plain-text" }

    package init() {}

    static let markdown: ContentType = "net.daringfireball.markdown"
    static let excluded: [ContentType] = [.html, .xml, "public.rtf"]

    package func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: .text) && !Self.excluded.contains(where: input.conforms(to:))
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        guard let decoded = TextDecoding.decode(input.bytes[...], isComplete: input.isComplete, hint: input.magicCharset)
        else { return }   // binary: indexed by name and facts only
        attributes[.encoding] = .string(decoded.encoding)
        let (text, cut) = TextDecoding.capped(decoded.text, toUTF8Bytes: input.textCap)
        attributes[.textContent] = .string(text)
        if cut || !input.isComplete { attributes[.textTruncated] = .bool(true) }
        if input.conforms(to: Self.markdown) {
            let (front, lines) = Self.frontMatter(text)
            if let title = front?.title ?? Self.firstHeading(lines) { attributes[.title] = .string(title) }
            if let front {
                if !front.authors.isEmpty { attributes[.authors] = .strings(front.authors) }
                if !front.keywords.isEmpty { attributes[.keywords] = .strings(front.keywords) }
                if let date = front.date { attributes[.contentCreationDate] = .date(date) }
            }
        }
    }

    /// What a Markdown file's front matter says: YAML between leading `---` lines (ending at
    /// `---` or `...`) or TOML between `+++` lines. Only top-level scalar keys and simple lists
    /// are read (`title`, `author`/`authors`, `tags`/`keywords`, `date`).
    struct FrontMatter: Equatable {
        var title: String?
        var authors: [String] = []
        var keywords: [String] = []
        var date: Date?
    }

    /// The title of a Markdown text: front matter `title`, else the first ATX `# ` heading
    /// outside code fences.
    static func markdownTitle(_ text: String) -> String? {
        let (front, lines) = frontMatter(text)
        return front?.title ?? firstHeading(lines)
    }

    /// The front matter, if the text starts with a closed one, and the lines after it (all
    /// lines when there is none).
    static func frontMatter(_ text: String) -> (FrontMatter?, LineIterator) {
        let all = LineIterator(text[...])
        var lines = all
        guard let first = lines.next()?.trimmingSpaces(), first == "---" || first == "+++" else { return (nil, all) }
        let toml = first == "+++"
        var front = FrontMatter()
        var listKey: String?   // a YAML key whose value is the `- item` lines that follow
        var inTable = false    // TOML keys after a [table] header are not top-level
        while let raw = lines.next() {
            let t = raw.trimmingSpaces()
            if toml ? t == "+++" : (t == "---" || t == "...") { return (front, lines) }
            if t.isEmpty || t.hasPrefix("#") { continue }
            if toml {
                if t.hasPrefix("[") && !t.contains("=") { inTable = true; continue }
                guard !inTable, let eq = t.firstIndex(of: "=") else { continue }
                let key = String(t[..<eq]).trimmingSpaces().lowercased()
                front.add(key: MetadataValues.unquoted(key), value: String(t[t.index(after: eq)...]).trimmingSpaces())
                continue
            }
            if let key = listKey, t.hasPrefix("- "), raw.first == " " || raw.first == "-" || raw.first == "\t" {
                front.add(key: key, value: String(t.dropFirst(2)).trimmingSpaces(), asListItem: true)
                continue
            }
            listKey = nil
            guard raw.first != " ", raw.first != "\t", let colon = t.firstIndex(of: ":") else { continue }
            let key = String(t[..<colon]).trimmingSpaces().lowercased()
            let value = String(t[t.index(after: colon)...]).trimmingSpaces()
            if value.isEmpty { listKey = key } else { front.add(key: key, value: value) }
        }
        return (nil, all)   // never closed: not front matter
    }

    /// The first ATX `# ` heading outside code fences.
    static func firstHeading(_ lines: LineIterator) -> String? {
        var lines = lines
        var inFence = false
        while let line = lines.next() {
            let t = line.trimmingSpaces()
            if t.hasPrefix("```") || t.hasPrefix("~~~") {
                inFence.toggle()
            } else if !inFence, line.hasPrefix("# ") {
                var title = String(t.dropFirst(2))
                while title.hasSuffix("#") { title.removeLast() }
                let clean = title.trimmingSpaces()
                if !clean.isEmpty { return clean }
            }
        }
        return nil
    }

    /// The lines of a text, without their `\n` or `\r\n`, found one at a time on the UTF-8 view.
    struct LineIterator: IteratorProtocol {
        var rest: Substring
        var done = false
        init(_ text: Substring) { rest = text }

        mutating func next() -> Substring? {
            guard !done else { return nil }
            let utf8 = rest.utf8
            guard let nl = utf8.firstIndex(of: 0x0A) else {
                done = true
                return rest
            }
            var line = rest[rest.startIndex..<nl]
            if line.utf8.last == 0x0D { line = line.dropLast() }
            rest = rest[rest.utf8.index(after: nl)...]
            return line
        }
    }

}

extension PlainTextExtractor.FrontMatter {
    /// Records one `key: value` (or one `- value` item of a YAML list under `key`).
    mutating func add(key: String, value: String, asListItem: Bool = false) {
        var v = value
        if !asListItem, !v.hasPrefix("\""), !v.hasPrefix("'"), let hash = v.firstRange(of: " #") { v = String(v[..<hash.lowerBound]).trimmingSpaces() }
        let items = v.hasPrefix("[") ? MetadataValues.list(v) : [MetadataValues.unquoted(v)].filter { !$0.isEmpty }
        switch key {
        case "title":
            if title == nil, let t = items.first, !asListItem { title = t }
        case "author", "authors":
            authors += v.hasPrefix("[") ? items : items.prefix(1).map { $0 }
        case "tags", "keywords":
            keywords += v.hasPrefix("[") || asListItem ? items : MetadataValues.list(MetadataValues.unquoted(v))
        case "date":
            if date == nil, let d = items.first.flatMap(DocumentFields.iso8601) { date = d }
        default:
            break
        }
    }
}
