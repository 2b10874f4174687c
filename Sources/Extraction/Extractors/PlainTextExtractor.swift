import Attributes

/// Text files (`public.text` that is not HTML, XML or RTF): source code, logs, CSV, Markdown,
/// subtitles, mailboxes ...
///
/// The encoding comes from a byte-order mark (UTF-8, UTF-16 and UTF-32, both byte orders), else
/// valid UTF-8, else Windows-1252/Latin-1 (see `TextDecoding`). Bytes that look binary (a NUL,
/// many control bytes, or libmagic's `charset=binary`) are not indexed as text; that is not an
/// error. For Markdown the `title` is the YAML front matter's `title:` or else the first `# `
/// heading.
///
/// For example, `notes.md` holding `"---\ntitle: Plans\n---\n# Week 1\n"` gets `title` `"Plans"`,
/// `encoding` `"utf-8"` and the whole text as `textContent`.
///
/// Cost: linear in the bytes read (at most `textCap + 1`).
public struct PlainTextExtractor: Extractor {
    public var name: String { "plain-text" }
    public var version: Int { 1 }

    public init() {}

    static let markdown: ContentType = "net.daringfireball.markdown"
    static let excluded: [ContentType] = [.html, .xml, "public.rtf"]

    public func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: .text) && !Self.excluded.contains(where: input.conforms(to:))
    }

    public func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        guard let decoded = TextDecoding.decode(input.bytes[...], isComplete: input.isComplete, hint: input.magicCharset)
        else { return }   // binary: indexed by name and facts only
        attributes[.encoding] = .string(decoded.encoding)
        let (text, cut) = TextDecoding.capped(decoded.text, toUTF8Bytes: input.textCap)
        attributes[.textContent] = .string(text)
        if cut || !input.isComplete { attributes[.textTruncated] = .bool(true) }
        if input.conforms(to: Self.markdown), let title = Self.markdownTitle(text) {
            attributes[.title] = .string(title)
        }
    }

    /// The title of a Markdown text: front matter `title:`, else the first ATX `# ` heading
    /// outside code fences.
    static func markdownTitle(_ text: String) -> String? {
        // Lines are cut lazily on the UTF-8 view: the title is near the top, and splitting a
        // 1 MiB changelog into Characters cost more than the rest of its extraction.
        var lines = LineIterator(text[...])
        guard var line = lines.next() else { return nil }
        if line.trimmingSpaces() == "---" {
            while let l = lines.next() {
                let t = l.trimmingSpaces()
                if t == "---" || t == "..." { break }
                if t.hasPrefix("title:") {
                    let value = unquoted(String(t.dropFirst("title:".count)).trimmingSpaces())
                    if !value.isEmpty { return value }
                }
            }
            guard let after = lines.next() else { return nil }
            line = after
        }
        var inFence = false
        while true {
            let t = line.trimmingSpaces()
            if t.hasPrefix("```") || t.hasPrefix("~~~") {
                inFence.toggle()
            } else if !inFence, line.hasPrefix("# ") {
                var title = String(t.dropFirst(2))
                while title.hasSuffix("#") { title.removeLast() }
                let clean = title.trimmingSpaces()
                if !clean.isEmpty { return clean }
            }
            guard let next = lines.next() else { return nil }
            line = next
        }
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

    private static func unquoted(_ s: String) -> String {
        if s.count >= 2, let f = s.first, let l = s.last, (f == "\"" && l == "\"") || (f == "'" && l == "'") {
            return String(s.dropFirst().dropLast())
        }
        return s
    }
}
