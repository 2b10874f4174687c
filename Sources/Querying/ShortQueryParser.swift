import Attributes
import Foundation

/// A query as `fsfind` takes it: Spotlight's expressions, the short form, or both mixed.
package struct ParsedQuery: Sendable, Hashable {
    package var predicate: ItemPredicate
    /// The free words as typed (for "an exact name ranks first"), if any.
    package var nameHint: String?
    /// The words, when the query is nothing else: no field, quote, operator, exclusion or
    /// wildcard. What `QuestionRouter` may read as a question.
    package var plainWords: [String]? = nil
}

/// The short query form, for people, in the style of Recoll and web search engines:
///
/// ```
/// annual report              both words (in name, title, text...); the last one also as a prefix
/// "annual report"            the exact phrase
/// budget -draft              "budget" but not "draft"
/// invoice OR receipt         either (OR binds tighter than the implicit AND)
/// kind:pdf author:ada modified:>2026-01-01 size:>10MB dir:~/Documents name:*.tex ext:md tag:work
/// width:>1000  pages:10..20  encrypted:yes  modified:2026-01..2026-03  created:<7d
/// duration:>10m  duration:1h..2h  duration:<90s
/// ```
///
/// A Spotlight term (`kMDItemPixelWidth > 2000`, `InRange(…)`, or a parenthesized Spotlight
/// expression) may stand wherever a short term may, and `&&`, `||`, `!` work between terms too;
/// a query that is entirely Spotlight's syntax keeps Spotlight's precedence (`&&` before `||`).
package struct ShortQueryParser {
    private let query: String
    private let scalars: [Unicode.Scalar]
    private var i = 0
    private let compiler: QueryCompiler
    /// The free words that are not excluded, in order: the last becomes a prefix, and together
    /// they are the name that ranks first.
    private var words: [String] = []
    /// How many `-` or `!` enclose the term being parsed.
    private var negations = 0
    /// Nesting and terms so far, against `QueryLimits`.
    private var counter: LimitCounter
    /// Who `me` is in `from:me`, `author:me` and `to:me`; nil: `me` is an error.
    private var identity: Identity?

    /// Records a free word; returns its index among the words that are not excluded.
    private mutating func positiveWord(_ w: String) -> Int? {
        guard negations == 0 else { return nil }
        words.append(w)
        return words.count - 1
    }

    /// Kinds for `kind:`, each the types it stands for (an item matches when its type tree holds one).
    package static let kinds: [String: [String]] = [
        "pdf": ["com.adobe.pdf"],
        "image": ["public.image"], "images": ["public.image"], "picture": ["public.image"], "photo": ["public.image"],
        "audio": ["public.audio"], "music": ["public.audio"],
        "video": ["public.movie"], "movie": ["public.movie"],
        "document": ["public.composite-content", "com.adobe.pdf", "com.adobe.postscript", "com.microsoft.word.doc",
                     "org.openxmlformats.wordprocessingml.document", "org.oasis-open.opendocument.text", "public.rtf",
                     "org.idpf.epub-container", "public.spreadsheet", "public.presentation"],
        "text": ["public.text"],
        "code": ["public.source-code"], "source": ["public.source-code"],
        "folder": ["public.folder", "public.directory"], "directory": ["public.folder", "public.directory"],
        "archive": ["public.archive"],
        "mail": ["public.email-message", "public.mbox"], "email": ["public.email-message", "public.mbox"],
        "message": ["public.email-message"],
        "presentation": ["public.presentation"], "spreadsheet": ["public.spreadsheet"],
        "book": ["org.idpf.epub-container"], "ebook": ["org.idpf.epub-container"],
        "manual": [ContentType.manualPage.rawValue], "man": [ContentType.manualPage.rawValue],
        // As people name them (issue 43): a web page, a Word document, slides, a screenshot.
        "html": ["public.html", "public.xhtml"], "web": ["public.html", "public.xhtml"],
        "webpage": ["public.html", "public.xhtml"], "web page": ["public.html", "public.xhtml"], "page": ["public.html", "public.xhtml"],
        "word": wordProcessing, "word document": wordProcessing, "doc": wordProcessing, "docx": wordProcessing,
        "odt": ["org.oasis-open.opendocument.text"], "rtf": ["public.rtf"],
        "slides": ["public.presentation"], "slideshow": ["public.presentation"], "powerpoint": ["public.presentation"],
        "sheet": ["public.spreadsheet"], "excel": ["public.spreadsheet"], "csv": ["public.comma-separated-values-text"],
        "markdown": ["net.daringfireball.markdown"], "json": ["public.json"], "xml": ["public.xml"], "yaml": ["public.yaml"],
        "script": ["public.script"], "header": ["public.c-header", "public.c-plus-plus-header"],
        "python": ["public.python-script"], "rust": ["org.rust-lang.rust-source"], "swift": ["public.swift-source"],
        "c": ["public.c-source", "public.c-header"], "c++": ["public.c-plus-plus-source", "public.c-plus-plus-header"],
        "java": ["com.sun.java-source"], "javascript": ["com.netscape.javascript-source"], "shell": ["public.shell-script"],
        "font": ["public.font"], "calendar": ["public.calendar-event"], "contact": ["public.vcard"], "subtitles": ["public.subrip-subtitle", "org.w3.webvtt"],
        "screenshot": ["public.png"], "screenshots": ["public.png"],
    ]

    /// Word processors' documents: what "a Word document" means to most people.
    static let wordProcessing = ["com.microsoft.word.doc", "org.openxmlformats.wordprocessingml.document",
                                 "org.oasis-open.opendocument.text", "public.rtf"]

    /// Names screenshot tools give their pictures (GNOME, KDE's Spectacle, macOS, Windows, and
    /// GNOME's German "Bildschirmfoto"): `kind:screenshot` is a PNG named so, as Spotlight's
    /// `kMDItemIsScreenCapture` is a flag the capture tool sets.
    static let screenshotNames = ["screenshot*", "screen shot*", "screencast*", "bildschirmfoto*", "capture d'écran*", "snapshot*"]

    /// Short names for attributes, beside ours and Spotlight's.
    package static let aliases: [String: AttributeKey] = [
        "width": .pixelWidth, "height": .pixelHeight, "pages": .pageCount, "size": .fileSize,
        "modified": .fsContentChangeDate, "created": .fsCreationDate, "used": .lastUsedDate,
        "uses": .useCount,
        "type": .contentType, "mime": .mimeType, "lang": .language, "camera": .acquisitionModel,
        "make": .acquisitionMake, "keyword": .keywords,
        "track": .audioTrackNumber, "year": .recordingDate, "members": .memberCount, "messages": .messageCount,
        "summary": .textContentSummary, "section": .manualSection,
        "priority": .isPriority,
    ]

    /// The field names with their own meaning, for suggestions.
    static let fields = ["name", "ext", "kind", "author", "title", "from", "to", "dir", "modified", "created", "size", "domain", "tag",
                         "duration"]

    /// Parses `query`. `identity` is who `me` stands for in `from:me`, `author:me` and `to:me`
    /// (without one, those are an error that says how to set it).
    package static func parse(_ query: String, clock: QueryClock = QueryClock(), literal: Bool = false,
                             limits: QueryLimits = QueryLimits(), identity: Identity? = nil) throws(QueryError) -> ParsedQuery {
        if let e = limits.lengthError(query) { throw .syntax(e) }
        let compiler = QueryCompiler(clock: clock)
        if literal {
            let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.count > limits.maximumTerms {
                throw .syntax(limits.termsError(query, at: query.unicodeScalars.count))
            }
            guard let pattern = SearchPattern(words: words) else { throw .nothingToSearch(query) }
            return ParsedQuery(predicate: .text(pattern), nameHint: words.joined(separator: " "))
        }
        // Entirely Spotlight's syntax: its own precedence. A query past a limit is past it in
        // either form.
        do {
            let e = try QueryParser.parse(query, limits: limits)
            return ParsedQuery(predicate: try compiler.compile(e), nameHint: nil)
        } catch let e as QuerySyntaxError where e.exceededLimit != nil {
            throw .syntax(e)
        } catch let e as QueryError {
            throw e
        } catch {}
        var p = ShortQueryParser(query: query, scalars: Array(query.unicodeScalars), compiler: compiler,
                                 counter: LimitCounter(limits), identity: identity)
        let node = try p.sequence(closing: false)
        p.skipSpace()
        if p.i < p.scalars.count { throw p.syntax("unexpected \")\": there is no \"(\" to close") }
        guard let node else { throw .syntax(QuerySyntaxError(query: query, position: 0, message: "the query is empty: give words, field:value terms or a Spotlight expression")) }
        let predicate = try node.predicate(prefixWord: p.words.count - 1).simplified
        let hint = p.words.isEmpty ? nil : p.words.joined(separator: " ")
        var parsed = ParsedQuery(predicate: predicate, nameHint: hint)
        if node.isPlainWords { parsed.plainWords = p.words }
        return parsed
    }

    // MARK: Grammar

    /// The parse tree before words become full-text patterns (which needs to know the last word).
    indirect enum Node {
        /// A free word or phrase; `index` counts the words that are not excluded, so the last of
        /// them (and only it) becomes a prefix.
        case word(String, phrase: Bool, index: Int?)
        case predicate(ItemPredicate)
        case and([Node]), or([Node]), not(Node)
        /// A word of symbols only (`{}`, `///`, `->`): nothing to search for. Among other words
        /// it is left out ("printed with {}" searches for the rest, as every search engine
        /// does); alone, after OR or excluded, it is an error that points at it.
        case symbols(String, at: Int)

        /// Free words only, none quoted or ending in `*`.
        var isPlainWords: Bool {
            switch self {
            case .word(let text, let phrase, let index): !phrase && index != nil && !text.hasSuffix("*")
            case .and(let parts): parts.allSatisfy(\.isPlainWords)
            default: false
            }
        }

        func predicate(prefixWord: Int) throws(QueryError) -> ItemPredicate {
            switch self {
            case .word(let text, let phrase, let index):
                var body = text
                var prefix = !phrase && index == prefixWord
                while !phrase, body.hasSuffix("*") { body.removeLast(); prefix = true }
                guard let term = SearchPattern.Term(body, prefix: prefix) else { throw .nothingToSearch(text) }
                return .text(SearchPattern(groups: [[term]])!)
            case .predicate(let p): return p
            case .and(let parts):
                var out: [ItemPredicate] = []
                for part in parts { out.append(try part.predicate(prefixWord: prefixWord)) }
                return .and(out)
            case .or(let parts):
                var out: [ItemPredicate] = []
                for part in parts { out.append(try part.predicate(prefixWord: prefixWord)) }
                // Words OR words: one full-text group, so the pattern still ranks.
                let terms = out.compactMap { p -> SearchPattern.Term? in
                    if case .text(let s) = p, s.column == nil, s.groups.count == 1, s.groups[0].count == 1 { return s.groups[0][0] }
                    return nil
                }
                if terms.count == out.count { return .text(SearchPattern(groups: [terms])!) }
                return .or(out)
            case .not(let inner): return .not(try inner.predicate(prefixWord: prefixWord))
            case .symbols(let word, _): throw .nothingToSearch(word)    // `sequence` leaves it out first
            }
        }

        /// The word of symbols this is, if it is one.
        var symbols: (word: String, at: Int)? {
            if case .symbols(let w, let at) = self { return (w, at) }
            return nil
        }
    }

    /// The error for a word of symbols that stands where a term must.
    private func nothingToSearch(_ node: Node) -> QueryError? {
        guard let (word, at) = node.symbols else { return nil }
        return .syntax(QuerySyntaxError(query: query, position: at, message: "\"\(word)\" has no letters or digits to search for"))
    }

    /// Terms joined by juxtaposition (AND), until the end or a `)` when `closing`.
    private mutating func sequence(closing: Bool) throws(QueryError) -> Node? {
        var parts: [Node] = []
        while true {
            skipSpace()
            if i >= scalars.count { break }
            if scalars[i] == ")" {
                if closing { break }
                throw syntax("unexpected \")\": there is no \"(\" to close")
            }
            if takeKeyword("AND") || take("&&") { continue }
            guard let node = try disjunction(closing: closing) else { break }
            parts.append(node)
        }
        let terms = parts.filter { $0.symbols == nil }
        if terms.isEmpty, let first = parts.first, let error = nothingToSearch(first) { throw error }
        if terms.isEmpty { return nil }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func disjunction(closing: Bool) throws(QueryError) -> Node? {
        guard let first = try unary(closing: closing) else { return nil }
        var parts = [first]
        while true {
            let save = i
            skipSpace()
            if takeKeyword("OR") || take("||") {
                skipSpace()
                guard let next = try unary(closing: closing) else { throw syntax("expected a term after OR") }
                if let error = nothingToSearch(first) ?? nothingToSearch(next) { throw error }
                parts.append(next)
            } else {
                i = save
                break
            }
        }
        return parts.count == 1 ? first : .or(parts)
    }

    private mutating func unary(closing: Bool) throws(QueryError) -> Node? {
        skipSpace()
        guard i < scalars.count else { return nil }
        let c = scalars[i]
        if (c == "-" || c == "!") && i + 1 < scalars.count && !scalars[i + 1].properties.isWhitespace
            && !(c == "!" && scalars[i + 1] == "=") {
            try enter()
            defer { counter.leave() }
            i += 1
            negations += 1
            defer { negations -= 1 }
            guard let inner = try unary(closing: closing) else { throw syntax("expected a term to exclude") }
            if let error = nothingToSearch(inner) { throw error }
            return .not(inner)
        }
        if c == "(" {
            // A Spotlight expression in parentheses, or a group of short terms.
            if let (e, end) = try? QueryParser.parseTerm(query, scalars: scalars, at: i, counter: &counter) {
                i = end
                return .predicate(try compiler.compile(e))
            }
            try enter()
            defer { counter.leave() }
            let open = i
            i += 1
            let inner = try sequence(closing: true)
            guard i < scalars.count, scalars[i] == ")" else {
                throw .syntax(QuerySyntaxError(query: query, position: open, message: "this \"(\" is never closed"))
            }
            i += 1
            return inner ?? .predicate(.all)
        }
        if c == "\"" {
            try countTerm()
            let phrase = try quoted()
            guard !SearchPattern.tokens(phrase).isEmpty else { throw .nothingToSearch(phrase) }
            return .word(phrase, phrase: true, index: positiveWord(phrase))
        }
        if QueryParser.termStarts(in: scalars, at: i) {
            do {
                let (e, end) = try QueryParser.parseTerm(query, scalars: scalars, at: i, counter: &counter)
                i = end
                return .predicate(try compiler.compile(e))
            } catch let e as QuerySyntaxError {
                throw .syntax(e)
            } catch let e as QueryError {
                throw e
            } catch {
                throw .syntax(QuerySyntaxError(query: query, position: i, message: "\(error)"))
            }
        }
        if let field = fieldName() {
            try countTerm()
            let start = i
            i += field.unicodeScalars.count + 1
            let valueStart = i
            let value = try fieldValue(closing: closing)
            if value.lowercased() == "me", scalars[valueStart] != "\"", let role = Self.personRole(of: field) {
                return .predicate(try me(role, at: valueStart))
            }
            return .predicate(try self.field(field, value, at: start))
        }
        try countTerm()
        if let (value, end) = timePhrase(closing: closing) {
            i = end
            return .predicate(try dates(.fsContentChangeDate, name: "modified", value))
        }
        let start = i
        while i < scalars.count, !scalars[i].properties.isWhitespace, !(closing && scalars[i] == ")") { i += 1 }
        let word = String(String.UnicodeScalarView(scalars[start..<i]))
        guard !SearchPattern.tokens(word).isEmpty else { return .symbols(word, at: start) }
        return .word(word, phrase: false, index: positiveWord(word))
    }

    /// A time said in words that starts here ("last week", "since Monday": `TimePhrases`), as a
    /// `modified:` value and where it ends; nil when there is none, or when it would be the
    /// whole query (a file may be named "yesterday").
    private func timePhrase(closing: Bool) -> (String, Int)? {
        var words: [String] = [], ends: [Int] = []
        var k = i
        while words.count < 4, k < scalars.count {
            let start = k
            while k < scalars.count, !scalars[k].properties.isWhitespace, !(closing && scalars[k] == ")") { k += 1 }
            guard k > start else { break }
            words.append(String(String.UnicodeScalarView(scalars[start..<k])))
            ends.append(k)
            while k < scalars.count, scalars[k].properties.isWhitespace { k += 1 }
        }
        guard let (value, count) = TimePhrases.match(words, clock: compiler.clock) else { return nil }
        let all = query.split(whereSeparator: \.isWhitespace).count
        guard all > count else { return nil }
        // At the start or the end of the query (or of its group): "photos from last week",
        // "last week's photos"; inside a question ("days between my birthday and today in
        // Python") the word is the subject, not a date.
        var after = ends[count - 1]
        while after < scalars.count, scalars[after].properties.isWhitespace { after += 1 }
        let atEnd = after == scalars.count || scalars[after] == ")"
        var before = i - 1
        while before >= 0, scalars[before].properties.isWhitespace { before -= 1 }
        let atStart = before < 0 || scalars[before] == "("
        return atStart || atEnd ? (value, ends[count - 1]) : nil
    }

    /// `field` when `field:value` starts here (letters, digits and `_`, a colon, then a value
    /// that does not start with `//` as a URL's would).
    private func fieldName() -> String? {
        var k = i
        var name = ""
        while k < scalars.count, scalars[k].properties.isAlphabetic || ("0"..."9").contains(scalars[k]) || scalars[k] == "_" {
            name.unicodeScalars.append(scalars[k]); k += 1
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic,
              k + 1 < scalars.count, scalars[k] == ":", !scalars[k + 1].properties.isWhitespace, scalars[k + 1] != ":" else { return nil }
        if k + 2 < scalars.count, scalars[k + 1] == "/", scalars[k + 2] == "/" { return nil }
        return name
    }

    /// The text between the double quote here and the next one.
    private mutating func quoted() throws(QueryError) -> String {
        let open = i
        i += 1
        var text = String.UnicodeScalarView()
        while i < scalars.count, scalars[i] != "\"" { text.append(scalars[i]); i += 1 }
        guard i < scalars.count else { throw .syntax(QuerySyntaxError(query: query, position: open, message: "this quote is never closed")) }
        i += 1
        return String(text)
    }

    private mutating func fieldValue(closing: Bool) throws(QueryError) -> String {
        if i < scalars.count, scalars[i] == "\"" { return try quoted() }
        let start = i
        while i < scalars.count, !scalars[i].properties.isWhitespace, !(closing && scalars[i] == ")") { i += 1 }
        return String(String.UnicodeScalarView(scalars[start..<i]))
    }

    // MARK: Fields

    private func field(_ name: String, _ value: String, at position: Int) throws(QueryError) -> ItemPredicate {
        let lower = name.lowercased()
        func contains(_ keys: [AttributeKey]) -> ItemPredicate {
            .or(keys.map { .compare(AttributeComparison($0, .equal, .text(Self.wordsPattern(value)))) })
        }
        switch lower {
        case "name":
            if Self.hasWildcard(value) {
                return .compare(AttributeComparison(.name, .equal, .text(TextPattern(value, [.caseInsensitive, .diacriticInsensitive]))))
            }
            return .nameContains(value)
        case "ext", "extension":
            let exts = value.split(separator: ",").map { $0.hasPrefix(".") ? $0.dropFirst() : $0 }.filter { !$0.isEmpty }
            guard !exts.isEmpty else { throw .badValue(attribute: name, value: value, reason: "is not an extension: write ext:pdf or ext:jpg,png") }
            return .or(exts.map { .compare(AttributeComparison(.name, .equal, .text(TextPattern("*." + TextPattern.literal(String($0)), [.caseInsensitive])))) })
        case "kind":
            var types: [ItemPredicate] = []
            for k in value.split(separator: ",").map({ $0.lowercased() }) {
                if k == "screenshot" || k == "screenshots" {
                    let names: [ItemPredicate] = Self.screenshotNames.map {
                        .compare(AttributeComparison(.name, .equal, .text(TextPattern($0, [.caseInsensitive, .diacriticInsensitive]))))
                    }
                    types.append(.and([.conformsTo(.png), .or(names)]))
                } else if let list = Self.kinds[k] {
                    types += list.map { .conformsTo(ContentType(rawValue: $0)) }
                } else if k.contains("/") {   // a MIME type: its UTI and every type below it
                    types.append(.conformsTo(ContentType.forQuery(mimeType: k)))
                } else if k.contains(".") {
                    types.append(.conformsTo(ContentType(rawValue: k)))
                } else {
                    let near = AttributeNames.nearest(to: k, in: Array(Self.kinds.keys))
                    throw .badValue(attribute: "kind", value: k, reason: "is not a kind" + (near.isEmpty ? "" : "; did you mean \(near.joined(separator: ", "))?")
                        + " Kinds: " + Self.kinds.keys.sorted().joined(separator: ", ") + ", or a type such as public.jpeg or application/gzip")
                }
            }
            return .or(types)
        case "author", "authors", "by":
            return contains([.authors, .authorNames, .authorEmailAddresses])
        case "from":
            return contains([.authors, .authorNames, .authorEmailAddresses])
        case "to":
            return contains([.recipients, .recipientNames, .recipientEmailAddresses])
        case "title":
            return contains([.title])
        case "dir", "folder", "in":
            return try folder(value, name: name)
        case "domain":
            // An app's domain (`domain:notes`), matched whole.
            return .domain(value)
        case "tag", "tags":
            return Self.tagged(value)
        default:
            let key: AttributeKey
            if let k = Self.aliases[lower] {
                key = k
            } else {
                do { key = try AttributeNames.resolve(name) } catch {
                    var e = error
                    e.suggestions = AttributeNames.nearest(to: name, in: AttributeNames.all + Self.fields + Array(Self.aliases.keys))
                    throw .unknownAttribute(e)
                }
            }
            return try typed(key, name: name, value)
        }
    }

    /// `tag:work`: items tagged "work" (`userTags`, from `user.xdg.tags`) or with the keyword
    /// "work" (`keywords`, which a document states about itself: Spotlight's tags in the wider
    /// sense, and what `tag:` matched before user tags existed). A whole tag, ignoring case and
    /// accents: `tag:work` finds "Work" but not "homework" or "work-in-progress"; a wildcard
    /// makes it a glob over the whole tag (`tag:proj*`).
    static func tagged(_ value: String) -> ItemPredicate {
        let pattern = TextPattern(hasWildcard(value) ? value : TextPattern.literal(value), [.caseInsensitive, .diacriticInsensitive])
        return .or([AttributeKey.userTags, .keywords].map { .compare(AttributeComparison($0, .equal, .text(pattern))) })
    }

    /// The people a field names `me` among: `from:`, `author:` (`authors:`, `by:`) and `to:`.
    static func personRole(of field: String) -> ItemPredicate.PersonRole? {
        switch field.lowercased() {
        case "from", "author", "authors", "by": .author
        case "to": .recipient
        default: nil
        }
    }

    /// `from:me`, `author:me`, `to:me`: the identity's name or addresses, matched exactly.
    private func me(_ role: ItemPredicate.PersonRole, at position: Int) throws(QueryError) -> ItemPredicate {
        guard let identity, !identity.isEmpty else {
            throw .syntax(QuerySyntaxError(query: query, position: position, message: Self.unknownMe))
        }
        return .involving(identity, as: role)
    }

    /// What `me` without an identity says.
    static let unknownMe = "`me` is not known: set `[agent] me = { name = \"…\", emails = [\"…\"] }` in the config, or user.name and user.email in ~/.gitconfig; to search for the word, quote it: from:\"me\""

    /// `attr:value` for any attribute, by its type.
    private func typed(_ key: AttributeKey, name: String, _ value: String) throws(QueryError) -> ItemPredicate {
        if key == .textContent {
            return try compiler.fullText(key, name: name, .equal, .string(value), [])
        }
        switch key.valueType ?? .string {
        case .string, .strings:
            if key == .contentTypeTree || key == .contentType, !Self.hasWildcard(value) {
                return key == .contentTypeTree ? .conformsTo(ContentType.forQuery(value))
                    : .compare(AttributeComparison(key, .equal, .text(TextPattern(value, [.caseInsensitive]))))
            }
            return .compare(AttributeComparison(key, .equal, .text(Self.wordsPattern(value))))
        case .bool:
            guard let b = QueryCompiler.bool(value) else {
                throw .badValue(attribute: name, value: value, reason: "is not yes or no (true/false, 1/0)")
            }
            return .compare(AttributeComparison(key, .equal, .bool(b)))
        case .integer, .double:
            return try numbers(key, name: name, value)
        case .date:
            return try dates(key, name: name, value)
        }
    }

    /// `N`, `>N`, `>=N`, `<N`, `<=N`, `=N`, `N..M`, `N..`, `..M`; sizes take units (`10MB`), and
    /// so do durations (`duration:>10m`, `duration:1h..2h`, in seconds: `kMDItemDurationSeconds`).
    private func numbers(_ key: AttributeKey, name: String, _ value: String) throws(QueryError) -> ItemPredicate {
        let isSize = key == .fileSize, isDuration = key == .duration
        func number(_ text: String) throws(QueryError) -> (Double, unit: Double) {
            if isSize, let s = QueryValues.size(text) { return (s.bytes, s.unit) }
            if isDuration, let s = QueryValues.seconds(text) { return (s.seconds, s.unit) }
            if let n = Double(text), n.isFinite { return (n, 1) }
            throw .badValue(attribute: name, value: text, reason: isSize
                ? "is not a size: write a number with an optional unit, such as 4096, 10MB, 1.5G or 512KiB"
                : isDuration ? "is not a length of time: write 90s, 10m, 1.5h, 1h30m, 1:30:00 or seconds (600)"
                : "is not a number")
        }
        func cmp(_ op: ComparisonOperator, _ n: Double) -> ItemPredicate { .compare(AttributeComparison(key, op, .number(n))) }
        if let range = value.range(of: "..") {
            let lo = String(value[..<range.lowerBound]), hi = String(value[range.upperBound...])
            guard !lo.isEmpty || !hi.isEmpty else { throw .badValue(attribute: name, value: value, reason: "is not a range: write 10..20, 10.. or ..20") }
            var parts: [ItemPredicate] = []
            if !lo.isEmpty { parts.append(cmp(.greaterOrEqual, try number(lo).0)) }
            if !hi.isEmpty {
                let (h, unit) = try number(hi)
                // A duration range ends at its end: `duration:1h..2h` is at most two hours.
                parts.append(unit > 1 && !isDuration ? cmp(.less, h + unit) : cmp(.lessOrEqual, h))
            }
            return .and(parts)
        }
        for (prefix, op) in [(">=", ComparisonOperator.greaterOrEqual), ("<=", .lessOrEqual), ("!=", .notEqual),
                             (">", .greater), ("<", .less), ("=", .equal)] where value.hasPrefix(prefix) {
            return cmp(op, try number(String(value.dropFirst(prefix.count))).0)
        }
        let (n, unit) = try number(value)
        // `size:10MB` means 10 MB up to (not including) 11 MB, as a person reads it.
        return unit > 1 ? .and([cmp(.greaterOrEqual, n), cmp(.less, n + unit)]) : cmp(.equal, n)
    }

    /// Dates: `2026-01-15`, `2026-01`, `2026`, ranges `2026-01..2026-03`, `>2026-01-01`,
    /// `today`, `yesterday`, `this_week`, `last_month`, durations `<7d` (within the last 7 days)
    /// and `>7d` (longer ago).
    private func dates(_ key: AttributeKey, name: String, _ value: String) throws(QueryError) -> ItemPredicate {
        let clock = compiler.clock
        func span(_ text: String) throws(QueryError) -> TimeSpan {
            if let s = QueryValues.date(text, clock) ?? QueryValues.namedPeriod(text, clock) { return s }
            if let start = QueryValues.ago(text, clock) { return TimeSpan(start: start, end: clock.now) }
            throw .badValue(attribute: name, value: text, reason: "is not a date: write 2026-01-31, 2026-01, 2026, today, yesterday, this_week, this_month, this_year, 7d (days), 2w, 3m (months) or a range such as 2026-01..2026-03")
        }
        func at(_ op: ComparisonOperator, _ d: Date) -> ItemPredicate { .compare(AttributeComparison(key, op, .date(d))) }
        if let range = value.range(of: "..") {
            let lo = String(value[..<range.lowerBound]), hi = String(value[range.upperBound...])
            guard !lo.isEmpty || !hi.isEmpty else { throw .badValue(attribute: name, value: value, reason: "is not a range: write 2026-01..2026-03") }
            var parts: [ItemPredicate] = []
            if !lo.isEmpty, let s = try span(lo).start { parts.append(at(.greaterOrEqual, s)) }
            if !hi.isEmpty, let e = try span(hi).end { parts.append(at(.less, e)) }
            return .and(parts)
        }
        for (prefix, op) in [(">=", ComparisonOperator.greaterOrEqual), ("<=", .lessOrEqual), (">", .greater), ("<", .less), ("=", .equal)]
            where value.hasPrefix(prefix) {
            let rest = String(value.dropFirst(prefix.count))
            if let start = QueryValues.ago(rest, clock) {
                // A duration counts back from now: `<7d` is newer than 7 days ago.
                switch op {
                case .less, .lessOrEqual, .equal: return at(.greaterOrEqual, start)
                default: return at(.less, start)
                }
            }
            let s = try span(rest)
            return QueryCompiler.dateCondition(key, op, instant: s.start ?? clock.now, period: s)
        }
        let s = try span(value)
        return QueryCompiler.dateCondition(key, .equal, instant: s.start ?? clock.now, period: s)
    }

    /// `dir:`: an absolute or `~` path is a folder to search in; a bare name is any folder so named.
    private func folder(_ value: String, name: String) throws(QueryError) -> ItemPredicate {
        var path = value
        if path == "~" || path.hasPrefix("~/") {
            let home = ProcessEnvironment.home
            path = home + path.dropFirst()
        }
        if path.hasPrefix("/") {
            var bytes = Array(path.utf8)
            while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
            return .inside(bytes)
        }
        let trimmed = path.split(separator: "/").last.map(String.init) ?? ""
        guard !trimmed.isEmpty else { throw .badValue(attribute: name, value: value, reason: "is not a folder: write dir:/abs/path, dir:~/Documents or dir:NAME") }
        return .folderNamed(trimmed)
    }

    static func hasWildcard(_ s: String) -> Bool { s.contains("*") || s.contains("?") }

    /// `field:value` for text: words of the value that start with it, ignoring case and accents
    /// (`author:bron` finds "Emily Brontë", `title:"annual rep"` finds "Annual report 2026"), as
    /// Spotlight's own search field matches; with a wildcard, the whole value as a glob.
    static func wordsPattern(_ value: String) -> TextPattern {
        if hasWildcard(value) { return TextPattern(value, [.caseInsensitive, .diacriticInsensitive]) }
        return TextPattern(TextPattern.literal(value) + "*", [.caseInsensitive, .diacriticInsensitive, .wordBased])
    }

    // MARK: Tokens

    private mutating func skipSpace() {
        while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 }
    }

    private mutating func take(_ s: String) -> Bool {
        let u = Array(s.unicodeScalars)
        guard i + u.count <= scalars.count, Array(scalars[i..<(i + u.count)]) == u else { return false }
        i += u.count
        return true
    }

    /// A keyword such as `OR` as a whole word (followed by space or the end).
    private mutating func takeKeyword(_ s: String) -> Bool {
        let u = Array(s.unicodeScalars)
        guard i + u.count <= scalars.count, Array(scalars[i..<(i + u.count)]) == u,
              i + u.count == scalars.count || scalars[i + u.count].properties.isWhitespace else { return false }
        i += u.count
        return true
    }

    /// One level deeper here (a `(` or a negation), within `QueryLimits.maximumDepth`.
    private mutating func enter() throws(QueryError) {
        do { try counter.enter(query, at: i) } catch { throw .syntax(error) }
    }

    /// One more term here, within `QueryLimits.maximumTerms`.
    private mutating func countTerm() throws(QueryError) {
        do { try counter.term(query, at: i) } catch { throw .syntax(error) }
    }

    private func syntax(_ message: String) -> QueryError {
        .syntax(QuerySyntaxError(query: query, position: i, message: message))
    }
}

/// The user's home folder, for `~` in `dir:`.
enum ProcessEnvironment {
    static var home: String {
        if let h = getenv("HOME") { return String(cString: h) }
        return "/"
    }
}

import Glibc
