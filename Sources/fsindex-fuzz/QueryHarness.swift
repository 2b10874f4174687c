import Attributes
import FoundationEssentials
import Indexing
import Querying
import SystemPackage
import Glibc

/// The query targets: a query string in, parsed, compiled, and run against a real index.
///
/// Running it is the point: the parser promises that whatever it accepts becomes SQL with bound
/// values and full-text patterns that SQLite and FTS5 accept (`SearchPattern` is the one
/// sanitizer), so a parsed query that SQLite refuses is a finding, as is a crash. The index
/// holds one item with text, names, numbers and dates, so that every kind of condition is
/// evaluated (FTS5 parses a pattern only when it looks for a row). Syntax errors must point
/// inside the query, since their caret is drawn from the position.
enum QueryHarness {
    /// A fixed "now", so that a finding replays the same way tomorrow.
    static let clock = QueryClock(now: Date(timeIntervalSince1970: 1_780_000_000))

    /// The one-item index, in a fresh temporary folder removed when the process exits.
    static let engine: QueryEngine = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/fsindex-fuzz-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            fatalError("fsindex-fuzz: cannot make a temporary folder in \(base): \(String(cString: strerror(errno)))")
        }
        let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Self.directory = directory
        atexit { QueryHarness.removeIndex() }
        do {
            let store = try IndexStore(location: IndexLocation(directory: FilePath(directory)))
            var a = AttributeSet()
            a[.name] = .string("Annual report 2026.pdf")
            a.title = "Annual report"
            a.textContent = "budget annual report free software café naïve Brontë"
            a.contentType = .pdf
            a.contentTypeTree = ContentType.pdf.tree
            a.kind = ContentType.pdf.wellKnown?.kind
            a[.authors] = .strings(["Emily Brontë", "ada@example.org"])
            a[.fileSize] = .integer(123_456)
            a[.pixelWidth] = .double(1024)
            a[.fsContentChangeDate] = .date(Date(timeIntervalSince1970: 1_770_000_000))
            try store.indexSearchableItems([SearchableItem(uniqueIdentifier: ItemIdentifier("/fuzz/Annual report 2026.pdf"),
                                                           domainIdentifier: "/fuzz", attributes: a)])
            return QueryEngine(store: store)
        } catch {
            fatalError("fsindex-fuzz: cannot make the index in \(directory): \(error)")
        }
    }()
    nonisolated(unsafe) static var directory: String?

    static func removeIndex() {
        guard let directory, let dir = opendir(directory) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { unlink(directory + "/" + name) }
        }
        closedir(dir)
        rmdir(directory)
    }

    /// Spotlight's form alone: `QueryParser`, then `QueryCompiler`.
    static func spotlight(_ bytes: [UInt8]) {
        let query = String(decoding: bytes, as: UTF8.self)
        let expression: QueryExpression
        do throws(QuerySyntaxError) {
            expression = try QueryParser.parse(query)
        } catch {
            return check(error, query: query)
        }
        do throws(QueryError) {
            run(try QueryCompiler(clock: clock).compile(expression), query: query)
        } catch {
            check(error, query: query)
        }
    }

    /// fsfind's parser: the short form, Spotlight's form and both mixed; then as `--literal`.
    static func short(_ bytes: [UInt8]) {
        let query = String(decoding: bytes, as: UTF8.self)
        for literal in [false, true] {
            do throws(QueryError) {
                let parsed = try ShortQueryParser.parse(query, clock: clock, literal: literal)
                run(parsed.predicate, query: query, hint: parsed.nameHint)
            } catch {
                check(error, query: query)
            }
        }
    }

    static func run(_ predicate: ItemPredicate, query: String, hint: String? = nil) {
        _ = predicate.description
        let spec = QuerySpec(predicate: predicate, limit: 5, now: clock.now, exactNameHint: hint, snippet: true)
        do {
            _ = try engine.run(spec)
            _ = try engine.count(spec)
        } catch {
            fatalError("query: the index refused a parsed query (\(error)); predicate: \(predicate.description)")
        }
    }

    /// A rejected query must say why, with a caret inside the query.
    static func check(_ error: QueryError, query: String) {
        if case .syntax(let e) = error { check(e, query: query) }
        if case .index = error { fatalError("query: an index error while parsing: \(error)") }
        _ = error.description
    }

    static func check(_ error: QuerySyntaxError, query: String) {
        guard (0...query.unicodeScalars.count).contains(error.position) else {
            fatalError("query: syntax error at \(error.position), outside the \(query.unicodeScalars.count) scalars of the query")
        }
        _ = error.description
    }
}
