import Attributes
import Foundation
import Indexing
import Querying
import SharedIndex

/// Compiles an `ItemPredicate` to a PostgreSQL condition over the shared `items` table, with
/// bound values only, meaning what `SQLBuilder` means on SQLite.
///
/// Most leaves translate exactly: words (`tsvector @@ tsquery` over the same tokens), names
/// (ILIKE, with the trigram index), types, folders, domains, numbers and dates, literal text.
/// Spotlight's wildcard patterns with the c/d/w modifiers have no exact PostgreSQL equivalent
/// (Foundation's folding, word runs), so those leaves are *residual*: the SQL is a superset
/// (`TRUE` for the leaf, or its negation's subset under `NOT`), each exact leaf is also selected
/// as a column, and `SharedQueryEngine` decides the residual leaves in Swift with the very
/// `TextMatcher` SQLite calls, then the whole predicate from the two. So the answers are the
/// same as SQLite's, not a near copy.
struct SharedSQLBuilder {
    var values: [SQLValue] = []
    /// The exact leaves' SQL, in the order of their `leaf` numbers.
    var leaves: [String] = []
    /// Whether some leaf is residual.
    var residual = false

    mutating func bind(_ v: SQLValue) -> String {
        values.append(v)
        return "$\(values.count)"
    }

    /// A superset (`superset: true`) or subset of the predicate's rows.
    mutating func condition(_ p: ItemPredicate, superset: Bool = true) -> String {
        switch p {
        case .all: return "TRUE"
        case .none: return "FALSE"
        case .and(let parts):
            if parts.isEmpty { return "TRUE" }
            return "(" + parts.map { condition($0, superset: superset) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            if parts.isEmpty { return "FALSE" }
            return "(" + parts.map { condition($0, superset: superset) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT coalesce(" + condition(inner, superset: !superset) + ", FALSE)"
        default:
            if let sql = exact(p) { return sql }
            residual = true
            if superset, let narrowing = narrowing(p) { return narrowing }
            return superset ? "TRUE" : "FALSE"
        }
    }

    /// The exact SQL of a leaf, or nil when it is residual.
    mutating func exact(_ p: ItemPredicate) -> String? {
        switch p {
        case .text(let pattern):
            guard let q = Self.tsquery(pattern) else { return "FALSE" }
            return "items.words @@ \(bind(.text(q)))::tsquery"
        case .nameContains(let text):
            if text.utf8.contains(0) { return "FALSE" }
            return "items.name ILIKE \(bind(.text("%" + SQLBuilder.escapeLike(text) + "%")))"
        case .conformsTo(let type):
            return "items.types @> ARRAY[\(bind(.text(type.rawValue)))]::text[]"
        case .inside(let folder):
            return onlyIn([folder]) ?? "TRUE"
        case .domain(let name):
            return "items.domain = \(bind(.text(name)))"
        case .identifiers(let paths):
            if paths.isEmpty { return "FALSE" }
            return "items.path = ANY(\(bind(.byteArrays(paths))))"
        case .compare(let c):
            return comparison(c)
        case .folderNamed:
            return nil
        default:
            return nil
        }
    }

    /// A superset of a residual leaf's rows that an index can find, when there is one: an
    /// ASCII pattern with `c` alone is matched by SQLite's LIKE, and ILIKE, which folds more
    /// letters, keeps every row LIKE keeps.
    mutating func narrowing(_ p: ItemPredicate) -> String? {
        guard case .compare(let c) = p, c.op == .equal, case .text(let pattern) = c.operand,
              let like = SQLBuilder.likePattern(pattern) else { return nil }
        switch SQLBuilder.storage(of: c.key) {
        case .column, .json:
            guard c.key != .path else { return nil }
            return "\(textValue(c.key)) ILIKE \(bind(.text(like)))"
        default:
            return nil
        }
    }

    /// The exact leaves, in the order `SharedQueryEngine.evaluate` meets them.
    mutating func collectLeaves(_ p: ItemPredicate) {
        switch p {
        case .all, .none: break
        case .and(let parts), .or(let parts): for part in parts { collectLeaves(part) }
        case .not(let inner): collectLeaves(inner)
        default:
            if let sql = exact(p) { leaves.append("coalesce(\(sql), FALSE)") }
        }
    }

    /// `items.path` inside one of these folders (the folder itself included).
    mutating func onlyIn(_ folders: [[UInt8]]) -> String? {
        guard !folders.isEmpty, let spans = FolderSpan.spans(folders) else { return nil }
        var parts: [String] = []
        for span in spans {
            let same = bind(.bytes(span.folder)), lower = bind(.bytes(span.lower)), upper = bind(.bytes(span.upper))
            parts.append("(items.path = \(same) OR (items.path >= \(lower) AND items.path < \(upper)))")
        }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    /// The PostgreSQL column of an attribute that `items` keeps in a column.
    static let columns: [AttributeKey: String] = [
        .name: "items.name", .fileSize: "items.size", .contentType: "items.content_type", .kind: "items.kind",
        .fsContentChangeDate: "items.modified", .fsCreationDate: "items.created", .domainIdentifier: "items.domain",
        .extractor: "items.extractor", .extractionError: "items.error", .lastUsedDate: "items.used",
    ]

    mutating func comparison(_ c: AttributeComparison) -> String? {
        let key = c.key
        let storage = SQLBuilder.storage(of: key)
        if case .fullText = storage { return nil }
        let op = c.op == .notEqual ? "<>" : (c.op == .equal ? "=" : c.op.rawValue)
        switch c.operand {
        case .number(let n):
            return "\(numeric(key)) \(op) \(bind(.double(n)))"
        case .bool(let b):
            // SQLite compares JSON's true and false as 1 and 0.
            return "\(numeric(key)) \(op) \(bind(.double(b ? 1 : 0)))"
        case .date(let d):
            if let column = Self.columns[key] { return "\(column) \(op) \(bind(.double(d.timeIntervalSince1970)))" }
            return "(items.attributes ->> \(bind(.text(key.rawValue)))) COLLATE \"C\" \(op) \(bind(.text(AttributeValue.iso8601(d))))"
        case .text(let pattern):
            guard c.op == .equal || c.op == .notEqual else { return nil }
            let negate = c.op == .notEqual
            let literal = pattern.modifiers.isEmpty ? pattern.literalText : nil
            let like = literal == nil ? SQLBuilder.likePattern(pattern) : nil
            guard literal != nil || like != nil else { return nil }
            // SQLite's LIKE folds ASCII letters only; ILIKE folds all, so only ASCII values are
            // compared with it, and a value with other letters is left to the residual test.
            if like != nil { return nil }
            let value = bind(.text(literal!))
            switch storage {
            case .typeTree:
                let test = "items.types @> ARRAY[\(value)]::text[]"
                return negate ? "NOT (\(test))" : test
            case .list:
                let k = bind(.text(key.rawValue))
                return negate
                    ? "(jsonb_exists(items.attributes, \(k)) AND NOT jsonb_exists(items.attributes -> \(k), \(value)))"
                    : "jsonb_exists(items.attributes -> \(k), \(value))"
            default:
                if key == .path {
                    return "items.path \(negate ? "<>" : "=") convert_to(\(value), 'UTF8')"
                }
                return "\(textValue(key)) \(negate ? "<>" : "=") \(value)"
            }
        }
    }

    /// A number attribute as SQL (NULL when missing or not a number).
    mutating func numeric(_ key: AttributeKey) -> String {
        if let column = Self.columns[key] { return column }
        let k = bind(.text(key.rawValue))
        return "(CASE jsonb_typeof(items.attributes -> \(k)) WHEN 'number' THEN (items.attributes ->> \(k))::double precision "
            + "WHEN 'boolean' THEN CASE WHEN (items.attributes -> \(k))::boolean THEN 1.0 ELSE 0.0 END END)"
    }

    /// A text attribute as SQL.
    mutating func textValue(_ key: AttributeKey) -> String {
        if let column = Self.columns[key] { return column }
        return "(items.attributes ->> \(bind(.text(key.rawValue))))"
    }

    /// The `tsquery` of a pattern: each term's words cut by the index's own tokenizer (as FTS5
    /// cuts a query's phrase), joined by `<->`, the last a prefix when the term is; groups of
    /// alternatives joined by `&`; a column becomes a weight (A name, B title, C other, D text).
    static func tsquery(_ pattern: SearchPattern) -> String? {
        let weight = switch pattern.column {
        case .name?: "A"
        case .title?: "B"
        case .other?: "C"
        case .text?: "D"
        case nil: ""
        }
        var groups: [String] = []
        for group in pattern.groups {
            var alternatives: [String] = []
            // A word with identifiers matches them whole or in parts, as in FTS5 (`SearchPattern.Term`).
            for term in group {
                for form in [term.whole, term.tokens].compactMap({ $0 }) {
                    let lexemes = WordVector.tokens(form.joined(separator: " "), query: true).map(\.token)
                    guard !lexemes.isEmpty else { continue }
                    let parts = lexemes.enumerated().map { i, lexeme in
                        let prefix = term.prefix && i == lexemes.count - 1 ? "*" : ""
                        let suffix = prefix + weight
                        return WordVector.quote(lexeme) + (suffix.isEmpty ? "" : ":" + suffix)
                    }
                    alternatives.append(parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " <-> ") + ")")
                }
            }
            // A group whose every term has no word can never match, as in FTS5.
            guard !alternatives.isEmpty else { return nil }
            groups.append(alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " | ") + ")")
        }
        return groups.isEmpty ? nil : groups.joined(separator: " & ")
    }
}
