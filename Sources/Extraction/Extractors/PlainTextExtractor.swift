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
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })[...]
        if lines.first.map({ $0.trimmingSpaces() == "---" }) == true {
            lines = lines.dropFirst()
            while let line = lines.first {
                lines = lines.dropFirst()
                let t = line.trimmingSpaces()
                if t == "---" || t == "..." { break }
                if t.hasPrefix("title:") {
                    let value = unquoted(String(t.dropFirst("title:".count)).trimmingSpaces())
                    if !value.isEmpty { return value }
                }
            }
        }
        var inFence = false
        for line in lines {
            let t = line.trimmingSpaces()
            if t.hasPrefix("```") || t.hasPrefix("~~~") { inFence.toggle(); continue }
            if !inFence, line.hasPrefix("# ") {
                var title = String(t.dropFirst(2))
                while title.hasSuffix("#") { title.removeLast() }
                let clean = title.trimmingSpaces()
                if !clean.isEmpty { return clean }
            }
        }
        return nil
    }

    private static func unquoted(_ s: String) -> String {
        if s.count >= 2, let f = s.first, let l = s.last, (f == "\"" && l == "\"") || (f == "'" && l == "'") {
            return String(s.dropFirst().dropLast())
        }
        return s
    }
}
