import Attributes
import Crawling
import ExtractionModel

/// Manual pages, from their `man(7)` or `mdoc(7)` troff source (`cp.1`, and `cp.1.gz` through
/// `ExtractionContext+Compressed`): found by the words `man` prints, and by their NAME line.
///
/// Gives
/// - `title`: `name(section)`, the first name of the NAME section and the `.TH`/`.Dt` section
///   (`cp(1)`), as `apropos` shows it;
/// - `contentDescription`: the NAME line's text after the dash ("copy files and directories");
/// - `textContent`: the sections as `man` prints them without layout, SYNOPSIS and
///   DESCRIPTION first, then the others in order, each after its heading;
/// - `manualSection` (`1`, `3p`) and `manualNames` (every name of the NAME line);
/// - the type `org.freedesktop.mime.application.x-troff-man` ("Manual page", `kind:manual`).
///
/// A page that is only `.so man1/other.1` (another name for a page) gets `manualInclude` with
/// that path and no text: the worker never opens another file.
///
/// A file is a manual page when it is text whose first request (after comments, string,
/// register and macro definitions) is `.TH`, `.Dd` or `.Dt`, or, for a troff file or a name
/// like `*.1`, `*.3pm`, `*.n`, a lone `.so`. Other troff (`.roff`, Perl's `.t` tests that the
/// MIME database calls troff) stays with `PlainTextExtractor`.
///
/// For example, the coreutils page `cp.1.gz` gives title "cp(1)", description "copy files and
/// directories", `manualSection` "1", and text starting "SYNOPSIS\ncp [OPTION]... [-T] SOURCE DEST".
///
/// Cost: linear in the page (the reader never backtracks). On the bench corpus's 21,238 pages
/// (release build, in the worker) 0.38 ms median and 0.59 ms mean per page, plus 0.40 ms to
/// decompress a `.gz` and 0.50 ms to identify the language; 3.8 KB of text per page.
package struct ManPageExtractor: Extractor {
    package var name: String { "man-page" }

    package init() {}

    /// The language of a page installed in a man tree, as man(1) reads a MANPATH folder: a page
    /// in `<dir>/manN/` is English (untranslated pages are), one in `<dir>/<locale>/manN/` is in
    /// the locale's language: `/usr/share/man/man1/cp.1.gz` "en", `…/man/de/man1/…` "de",
    /// `…/man/pt_BR.UTF-8/man8/…` "pt" (the ISO 639 code, as `LanguageIdentifier` gives it). A
    /// locale is two letters, or three followed by `_`, `.` or `@`. Nil for a page not in a
    /// `manN` folder: its text is identified as any other.
    static func language(inPath path: [UInt8]) -> String? {
        let parts = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count >= 2 else { return nil }
        let section = parts[parts.count - 2]
        guard section.hasPrefix("man"), let c = section.dropFirst(3).first, c.isNumber || c == "n" || c == "l" else { return nil }
        guard parts.count >= 3 else { return "en" }
        let folder = parts[parts.count - 3]
        let code = folder.prefix { $0.isASCII && $0.isLowercase }
        let rest = folder.dropFirst(code.count)
        if code.count == 2 && (rest.isEmpty || "_.@".contains(rest.first!)) { return String(code) }
        if code.count == 3 && !rest.isEmpty && "_.@".contains(rest.first!) { return String(code) }
        return "en"
    }

    package func accepts(_ input: ExtractionInput) -> Bool {
        // A page whose bytes a MIME magic rule took for something else (a gcloud page that
        // shared-mime-info calls a Sega Pico ROM) is still a page when its name says so.
        let text = input.conforms(to: .text) && !input.conforms(to: .html) && !input.conforms(to: .xml) && !input.conforms(to: "public.rtf")
        guard text || (!input.conforms(to: .archive) && Self.hasManualName(input.contentName)) else { return false }
        switch Self.firstRequest(input.bytes) {
        case .header: return true
        case .include: return input.conforms(to: "public.troff") || Self.hasManualName(input.contentName)
        case .none: return false
        }
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        guard let decoded = TextDecoding.decode(input.bytes[...], isComplete: input.isComplete, hint: input.magicCharset) else {
            throw .malformed(extractor: name, reason: "the page's bytes are not text in any known encoding")
        }
        attributes[.encoding] = .string(decoded.encoding)
        let page = ManPageDocument(decoded.text, cap: input.textCap)
        let section = page.section ?? Self.sectionFromName(input.contentName)
        if let title = Self.title(page, section: section, fileName: input.contentName) { attributes[.title] = .string(title) }
        if let section { attributes[.manualSection] = .string(section) }
        if !page.names.isEmpty { attributes[.manualNames] = .strings(Self.unique(page.names)) }
        if let d = page.description {
            attributes[.contentDescription] = .string(d)
            // The NAME line is the page's own summary, better than any sentence picked from
            // its text, and costs nothing (the summarizer took 0.2 ms a page).
            attributes[.textContentSummary] = .string(d)
        }
        // The language as `man` knows it, from where the page is installed, instead of
        // identifying it from the text (0.5 ms a page, a fifth of a page's cost).
        if let language = Self.language(inPath: input.facts.pathBytes) { attributes[.language] = .string(language) }
        let (text, truncated) = page.renderedText()
        if page.hasText { attributes[.textContent] = .string(text) }
        if truncated || !input.isComplete { attributes[.textTruncated] = .bool(true) }
        var tree = attributes.contentTypeTree
        for t in [ContentType.troff, .manualPage] where !tree.contains(t) { tree.insert(t, at: 0) }
        attributes.contentType = .manualPage
        attributes.contentTypeTree = tree
        attributes.kind = ContentType.manualPage.wellKnown?.kind ?? "Manual page"
        if let include = page.include, !page.hasText {
            attributes[.manualInclude] = .string(include)
        } else if !page.hasText {
            throw .malformed(extractor: name, reason: "the page has a header but no text")
        }
    }

    /// `name(section)`: the NAME section's first name; else the file's name without its section
    /// (`empty.1`), which keeps the case `.TH EMPTY` loses; else the header's name.
    static func title(_ page: ManPageDocument, section: String?, fileName: [UInt8]) -> String? {
        let stem = nameWithoutSection(fileName)
        let header = page.headerName.flatMap { h in stem.map { $0.lowercased() == h.lowercased() ? $0 : h } ?? h }
        guard let name = page.names.first ?? header ?? stem, !name.isEmpty else { return nil }
        guard let section, !section.isEmpty else { return name }
        return "\(name)(\(section))"
    }

    static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    // MARK: Recognition

    enum FirstRequest { case header, include, none }

    /// What the source starts with: a page header (`.TH`, `.Dd`, `.Dt`), a `.so`, or neither
    /// (a text line, or no request in the first 64 KiB). Comments, blank lines and the
    /// requests of a preamble (`.de … ..`, `.ds`, `.nr`, `.if`, `.ie`/`.el` …) are passed over.
    static func firstRequest(_ bytes: [UInt8]) -> FirstRequest {
        var lineStart = 0
        var skippingTo: [UInt8]?   // the end of a `.de`/`.ig` body
        let end = min(bytes.count, 64 * 1024)
        var braces = 0
        var continued = false   // the line before ended in `\`: this one is part of it
        while lineStart < end {
            let lineEnd = bytes[lineStart..<end].firstIndex(of: 0x0A) ?? end
            var line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            if line.last == 0x0D { line = line.dropLast() }
            let wasContinued = continued
            continued = line.reversed().prefix { $0 == UInt8(ascii: "\\") }.count % 2 == 1
            if let terminator = skippingTo {
                if line.starts(with: terminator) { skippingTo = nil }
                continue
            }
            if wasContinued {   // part of the request before
                braces = max(0, braces + TroffReader.braceDepth(Substring(String(decoding: line, as: UTF8.self))))
                continue
            }
            guard let first = line.first else { continue }
            guard first == UInt8(ascii: ".") || first == UInt8(ascii: "'") else {
                if braces > 0 { braces -= line.starts(with: Array("\\}".utf8)) ? 1 : 0; continue }
                // A line that prints nothing: blank, a comment (`\"`, `\#`), a lone `\t`.
                let printed = TroffReader().unescape(Substring(String(decoding: line, as: UTF8.self))).text
                if printed.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                return .none
            }
            var request = line.dropFirst().drop { $0 == 0x20 || $0 == 0x09 }
            if let comment = request.firstRange(of: Array(#"\""#.utf8)) { request = request[..<comment.lowerBound] }
            let name = request.prefix { $0 != 0x20 && $0 != 0x09 }
            let text = String(decoding: name, as: UTF8.self)
            switch text {
            case "TH", "Dd", "Dt": return .header
            case "so": return .include
            case "de", "de1", "am", "ig":
                let args = request.dropFirst(name.count).split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
                skippingTo = text == "ig" ? (args.first.map { [UInt8(ascii: ".")] + $0 } ?? Array("..".utf8))
                    : (args.count > 1 ? [UInt8(ascii: ".")] + args[1] : Array("..".utf8))
            default:
                let s = String(decoding: request, as: UTF8.self)
                braces += TroffReader.braceDepth(Substring(s))
                braces = max(0, braces)
            }
        }
        return .none
    }

    /// Whether a name looks like a manual page's: `*.[0-9n]`, or `*.[0-9]` followed by letters
    /// (`3pm`, `1ssl`, `3tcl`).
    static func hasManualName(_ name: [UInt8]) -> Bool {
        sectionFromName(name) != nil
    }

    /// The section a name gives (`ls.1` → "1", `Foo.3pm` → "3pm", `after.n` → "n").
    static func sectionFromName(_ name: [UInt8]) -> String? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return nil }
        let ext = name[(dot + 1)...]
        guard let first = ext.first, ext.count <= 8 else { return nil }
        if ext.count == 1, first == UInt8(ascii: "n") { return "n" }
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              ext.dropFirst().allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return String(decoding: ext, as: UTF8.self).lowercased()
    }

    /// `ls` for `ls.1`.
    static func nameWithoutSection(_ name: [UInt8]) -> String? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return nil }
        return String(decoding: name[..<dot], as: UTF8.self)
    }
}
