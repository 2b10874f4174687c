import Attributes
import FoundationEssentials
import GRDB
import Indexing

/// Compiles an `ItemPredicate` to a SQL condition over `items` with bound arguments only: no user
/// text is ever spliced into SQL. Attribute names reach SQL only as bound JSON paths of known
/// `AttributeKey`s; values only as bound values; full-text patterns only through `SearchPattern`.
package struct SQLBuilder {
    var arguments: [any DatabaseValueConvertible] = []
    /// Type tests as a lookup per item (`EXISTS (… item_id = items.id)`) instead of the list of
    /// every item of the type (`items.id IN (SELECT item_id …)`), which SQLite builds in full
    /// before the first row: for a query that walks an order index and stops early
    /// (`OrderedWalk`), where a common type would cost a list of hundreds of thousands of rows.
    var typesPerItem = false

    mutating func condition(_ p: ItemPredicate) -> String {
        switch p {
        case .all:
            return "1"
        case .none:
            return "0"
        case .text(let pattern):
            arguments.append(pattern.fts5)
            return "items.id IN (SELECT rowid FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ?)"
        case .nameContains(let text):
            // No file name holds a NUL byte; and FTS5 would read the pattern only up to it, then
            // fail on the unclosed quote (found by fsindex-fuzz short-query).
            if text.utf8.contains(0) { return "0" }
            // The trigram index answers a quoted phrase of 3 or more characters as a substring
            // match. LIKE with ESCAPE would be correct too but is never accelerated by FTS5, so it
            // is kept for shorter texts, which trigrams cannot index anyway.
            if let phrase = Self.trigramPhrase(text) {
                arguments.append(phrase)
                return "items.id IN (SELECT rowid FROM \(Schema.namesTable) WHERE \(Schema.namesTable) MATCH ?)"
            }
            arguments.append("%" + Self.escapeLike(text) + "%")
            return "items.id IN (SELECT rowid FROM \(Schema.namesTable) WHERE name LIKE ? ESCAPE '\\')"
        case .conformsTo(let type):
            arguments.append(type.rawValue)
            return typeCondition("type = ?")
        case .compare(let c):
            return comparison(c)
        case .inside(let folder):
            return onlyIn([folder]) ?? "1"
        case .folderNamed(let name):
            let pattern = TextPattern("*/" + TextPattern.literal(name) + "/*", [.caseInsensitive, .diacriticInsensitive])
            arguments.append(pattern.raw)
            arguments.append(Int(pattern.modifiers.rawValue))
            return "fs_match(items.path, ?, ?)"
        case .domain(let name):
            arguments.append(name)
            return "items.domain = ?"
        case .identifiers(let paths):
            if paths.isEmpty { return "0" }
            for p in paths { arguments.append(Data(p)) }
            return "items.path IN (" + Array(repeating: "?", count: paths.count).joined(separator: ",") + ")"
        case .and(let parts):
            if parts.isEmpty { return "1" }
            return balanced(joined(parts, "AND")[...], "AND")
        case .or(let parts):
            if parts.isEmpty { return "0" }
            return balanced(joined(parts, "OR")[...], "OR")
        case .not(let inner):
            // SQL's NOT of NULL is NULL; an item without the attribute must count as not matching
            // the inner condition, so the NOT is taken of a value that is never NULL.
            return "NOT coalesce(" + condition(inner) + ", 0)"
        }
    }

    /// The item has a type (a row of `item_types`) that meets `test` (over its `type` column).
    ///
    /// Per item, the item's own set of types (`items.type_tree`, v22) is looked up in
    /// `type_trees` directly: through the `item_types` view, SQLite read the item's row a
    /// second time for each item it walked (`kind:text modified:this_year`, newest first, was
    /// 12 % slower than before v22).
    func typeCondition(_ test: String) -> String {
        typesPerItem
            ? "EXISTS (SELECT 1 FROM \(Schema.typeTreesTable) WHERE (\(test)) AND \(Schema.typeTreesTable).tree = items.type_tree)"
            : "items.id IN (SELECT item_id FROM \(Schema.typesTable) WHERE \(test))"
    }

    /// The conditions of the parts of one `AND` or `OR`, with the full-text leaves of each table
    /// merged into one `MATCH`: `id IN (… MATCH a) OR id IN (… MATCH b)` is `id IN (… MATCH
    /// (a) OR (b))`, and likewise for AND, and types go into one `IN` list.
    ///
    /// Why: each `IN (SELECT …)` is a subquery SQLite compiles by itself, and where an OR of
    /// them is a filter rather than the plan's driver, SQLite's code generator compares each new
    /// subquery with every earlier one (`sqlite3ExprCodeRunJustOnce`): 2,000 names ANDed with 2,000
    /// names took 115 s to prepare, before the first row and out of reach of the time limit,
    /// which SQLite checks while a statement runs. Merged, they are one subquery, and FTS5 reads
    /// the whole OR in one pass over its index.
    mutating func joined(_ parts: [ItemPredicate], _ op: String) -> [String] {
        var names: [String] = [], texts: [String] = [], types: [String] = []
        var columnValues: [(column: String, values: [String])] = []
        var conditions: [String] = []
        for part in parts {
            if case .nameContains(let text) = part, let phrase = Self.trigramPhrase(text) {
                names.append(phrase)
            } else if case .text(let pattern) = part {
                texts.append(pattern.fts5)
            } else if op == "OR", case .conformsTo(let type) = part {
                types.append(type.rawValue)
            } else if op == "OR", case .compare(let c) = part, let (column, value) = Self.literalColumnValue(c) {
                if let i = columnValues.firstIndex(where: { $0.column == column }) {
                    columnValues[i].values.append(value)
                } else {
                    columnValues.append((column, [value]))
                }
            } else {
                conditions.append(condition(part))
            }
        }
        func merged(_ queries: [String]) -> String {
            queries.count == 1 ? queries[0] : queries.map { "(" + $0 + ")" }.joined(separator: " \(op) ")
        }
        if !names.isEmpty {
            arguments.append(merged(names))
            conditions.append("items.id IN (SELECT rowid FROM \(Schema.namesTable) WHERE \(Schema.namesTable) MATCH ?)")
        }
        if !texts.isEmpty {
            arguments.append(merged(texts))
            conditions.append("items.id IN (SELECT rowid FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ?)")
        }
        if !types.isEmpty {
            for t in types { arguments.append(t) }
            conditions.append(typeCondition("type IN (" + Array(repeating: "?", count: types.count).joined(separator: ",") + ")"))
        }
        for (column, values) in columnValues {
            for v in values { arguments.append(v) }
            conditions.append(values.count == 1 ? "\(column) = ?"
                : "\(column) IN (" + Array(repeating: "?", count: values.count).joined(separator: ",") + ")")
        }
        return conditions
    }

    /// The column and value of `column == "literal"` (no wildcard, no c/d/w), which ORed
    /// together make one `IN` list: SQLite's own rewrite of ORed equalities into `IN` compares
    /// each term with the others, and took 2.7 s for 4,000 names.
    static func literalColumnValue(_ c: AttributeComparison) -> (String, String)? {
        guard c.op == .equal, case .text(let pattern) = c.operand, pattern.modifiers.isEmpty,
              let literal = pattern.literalText, case .column(let column) = storage(of: c.key) else { return nil }
        return (column, literal)
    }

    /// `text` as a phrase for the trigram index of names, which answers it as a substring
    /// match; nil when the index cannot: under 3 characters, or with a NUL byte (no name holds
    /// one, and FTS5 would read the pattern only up to it).
    static func trigramPhrase(_ text: String) -> String? {
        guard text.unicodeScalars.count >= 3, !text.utf8.contains(0) else { return nil }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    /// Conditions joined by `AND` or `OR` as a balanced tree: `((a OR b) OR (c OR d))`.
    /// SQLite parses a flat `a OR b OR c …` into a tree as deep as the list is long and refuses
    /// one deeper than 1,000 (`SQLITE_MAX_EXPR_DEPTH`): a query ORing 3,000 names failed. Balanced,
    /// `QueryLimits.maximumTerms` conditions nest 12 deep.
    func balanced(_ conditions: ArraySlice<String>, _ op: String) -> String {
        if conditions.count <= 2 { return "(" + conditions.joined(separator: " \(op) ") + ")" }
        let mid = conditions.startIndex + conditions.count / 2
        return "(" + balanced(conditions[..<mid], op) + " \(op) " + balanced(conditions[mid...], op) + ")"
    }

    /// `items.path` inside one of these folders (the folder itself included).
    mutating func onlyIn(_ folders: [[UInt8]]) -> String? {
        guard !folders.isEmpty, let spans = FolderSpan.spans(folders) else { return nil }
        var parts: [String] = []
        for span in spans {
            arguments += [Data(span.folder), Data(span.lower), Data(span.upper)]
            parts.append("(items.path = ? OR (items.path >= ? AND items.path < ?))")
        }
        return balanced(parts[...], "OR")
    }

    // MARK: Attribute comparisons

    /// Where an attribute's value lives.
    package enum Storage: Equatable {
        /// A column of `items`; dates there are seconds since 1970.
        case column(String)
        /// A scalar in the attribute JSON (dates as ISO 8601 text, which sorts as time does).
        case json
        /// A list of strings in the attribute JSON.
        case list
        /// `contentTypeTree`: the `item_types` table.
        case typeTree
        /// The full-text table: one column, or all four for `*`.
        case fullText(SearchPattern.Column?)
    }

    package static func storage(of key: AttributeKey) -> Storage {
        if let column = Schema.attributeColumns[key] { return .column("items." + column) }
        return switch key {
        case .path: .column("CAST(items.path AS TEXT)")   // a BLOB: LIKE and fs_match need text
        case .contentTypeTree: .typeTree
        case .textContent: .fullText(.text)
        case .anyText: .fullText(nil)
        default: key.valueType == .strings ? .list : .json
        }
    }

    mutating func comparison(_ c: AttributeComparison) -> String {
        // Text attributes that are also in the full-text index: a word-based match must start
        // with a word the index holds, so the index first narrows the rows the exact test reads
        // (the JSON of every item otherwise: half a second on 110,000 files).
        // A list element matched whole (`tag:work`) starts with a word of the list too.
        if c.op == .equal, case .text(let pattern) = c.operand, pattern.modifiers.contains(.wordBased) || c.key.valueType == .strings,
           let column = Self.fullTextColumn(of: c.key), let lead = pattern.leadingASCIIWord,
           let term = SearchPattern.Term(lead, prefix: true), let narrowing = SearchPattern(groups: [[term]], column: column) {
            arguments.append(narrowing.fts5)
            let exact = exactComparison(c)
            return "(items.id IN (SELECT rowid FROM \(Schema.ftsTable) WHERE \(Schema.ftsTable) MATCH ?) AND \(exact))"
        }
        return exactComparison(c)
    }

    /// The full-text column that holds an attribute's words, if any.
    static func fullTextColumn(of key: AttributeKey) -> SearchPattern.Column? {
        if key == .title { return .title }
        if AttributeKey.otherTextKeys.contains(key) { return .other }
        return nil
    }

    mutating func exactComparison(_ c: AttributeComparison) -> String {
        let storage = Self.storage(of: c.key)
        // The value as SQL sees it, for the scalar storages.
        func valueSQL() -> String {
            switch storage {
            case .column(let name): return name
            default:
                arguments.append("$." + c.key.rawValue)
                return "json_extract(items.attributes, ?)"
            }
        }
        switch storage {
        case .list:
            // Any element matches (`authors == "ada*"`); `!=`: the list exists and no element equals.
            let path = "$." + c.key.rawValue
            if c.op == .notEqual {
                var equal = c
                equal.op = .equal
                arguments.append(path)
                arguments.append(path)
                let inner = elementCondition(equal, "value")
                return "(json_type(items.attributes, ?) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(items.attributes, ?) WHERE \(inner)))"
            }
            arguments.append(path)
            return "EXISTS (SELECT 1 FROM json_each(items.attributes, ?) WHERE \(elementCondition(c, "value")))"
        case .typeTree:
            let inner = elementCondition(AttributeComparison(c.key, c.op == .notEqual ? .equal : c.op, c.operand), "type")
            let sql = typeCondition(inner)
            return c.op == .notEqual ? "NOT (" + sql + ")" : sql
        case .fullText(let column):
            // Only reached for patterns FTS5 cannot answer (a wildcard inside or before a word):
            // the stored text is matched directly, which reads every row's text.
            let columns = column.map { [$0.rawValue] } ?? ["name", "title", "other", "text"]
            var equal = c
            equal.op = .equal
            let tests = columns.map { elementCondition(equal, "f." + $0) }
            let sql = "EXISTS (SELECT 1 FROM \(Schema.ftsTable) f WHERE f.rowid = items.id AND (" + tests.joined(separator: " OR ") + "))"
            return c.op == .notEqual ? "NOT " + sql : sql
        case .column, .json:
            let value = valueSQL()
            return elementCondition(c, value)
        }
    }

    /// The test of one value (`expr`) against the comparison's operand.
    mutating func elementCondition(_ c: AttributeComparison, _ expr: String) -> String {
        let storage = Self.storage(of: c.key)
        let op = c.op == .notEqual ? "!=" : (c.op == .equal ? "=" : c.op.rawValue)
        switch c.operand {
        case .number(let n):
            arguments.append(n)
            return "\(expr) \(op) ?"
        case .bool(let b):
            arguments.append(b ? 1 : 0)
            return "\(expr) \(op) ?"
        case .date(let d):
            if case .column = storage {
                arguments.append(d.timeIntervalSince1970)
            } else {
                arguments.append(AttributeValue.iso8601(d))
            }
            return "\(expr) \(op) ?"
        case .text(let pattern):
            let flags = Int(pattern.modifiers.rawValue)
            switch c.op {
            case .equal, .notEqual:
                let negate = c.op == .notEqual
                if pattern.modifiers.isEmpty, let literal = pattern.literalText {
                    arguments.append(literal)
                    return "\(expr) \(negate ? "!=" : "=") ?"
                }
                if let like = Self.likePattern(pattern) {
                    arguments.append(like)
                    return "\(expr) \(negate ? "NOT LIKE" : "LIKE") ? ESCAPE '\\'"
                }
                arguments.append(pattern.raw)
                arguments.append(flags)
                // (`expr` may hold a bound path, so it appears once; NULL, no value, is not a match.)
                return negate ? "coalesce(NOT fs_match(\(expr), ?, ?), 0)" : "fs_match(\(expr), ?, ?)"
            default:
                arguments.append(pattern.literalText ?? pattern.raw)
                arguments.append(flags)
                return "fs_compare(\(expr), ?, ?) \(c.op.rawValue) 0"
            }
        }
    }

    /// A LIKE pattern equivalent to `pattern`, when there is one: SQLite's LIKE ignores case for
    /// ASCII letters only, so only ASCII patterns with `c` (and not `w`, not `?`) qualify. It saves
    /// a call into Swift per row for the commonest forms (`ext:pdf`, `"*report*"c`). Not with `d`:
    /// LIKE keeps the value's accents, so `"ete"cd` would miss "été".
    package static func likePattern(_ pattern: TextPattern) -> String? {
        guard pattern.modifiers == .caseInsensitive,
              pattern.raw.unicodeScalars.allSatisfy({ $0.isASCII }) else { return nil }
        var out = ""
        for piece in pattern.pieces {
            switch piece {
            case .any: out += "%"
            case .one: return nil
            case .literal(let c):
                if c == "%" || c == "_" || c == "\\" { out.append("\\") }
                out.append(c)
            }
        }
        return out
    }

    /// `s` with LIKE's `%`, `_` and `\\` escaped by a backslash.
    package static func escapeLike(_ s: String) -> String { escape(s, ["%", "_", "\\"]) }

    package static func escape(_ s: String, _ special: Set<Character>) -> String {
        var out = ""
        for c in s {
            if special.contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}

extension AttributeKey {
    /// `*` in a Spotlight query: any text attribute (name, title, the other text attributes, text).
    package static let anyText = AttributeKey("*")
}
