import Attributes
import FoundationEssentials
import GRDB
import Indexing

/// Runs a `QuerySpec` against an `IndexStore`: results, counts, group tables and statistics.
///
/// Ranking (`SortOrder.relevance`), best first: an exact name match (case-insensitive), then
/// bm25 over the weighted full-text columns (name ten times the body, see `Schema.bm25Weights`)
/// scaled by the recency and usage boosts of `RankingWeights`, then the path for a stable
/// order. Queries without words order name matches by name length, the rest newest first.
///
/// Cost: bm25 is computed for every item that matches the words before the best ones are
/// picked, so a very common word costs time proportional to its hits.
public struct QueryEngine: Sendable {
    public let store: IndexStore

    public init(store: IndexStore) { self.store = store }

    /// Marks that `snippet` puts around each matched word in `QueryResult.snippet`.
    public static let snippetStart = "\u{2}", snippetEnd = "\u{3}"

    public func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        let (sql, args, _) = select(spec)
        guard let sql else { return [] }
        return try read(spec) { db in
            var results = try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                let path: Data = row["path"]
                let attributes = spec.includeAttributes
                    ? (try? IndexStore.attributes(json: row["attributes"])) ?? AttributeSet() : AttributeSet()
                return QueryResult(identifier: ItemIdentifier(bytes: Array(path)), domain: row["domain"],
                                   attributes: attributes, score: row["score"], rowID: row["id"])
            }
            if spec.snippet, let pattern = spec.predicate.simplified.splittingText().pattern {
                let snippets = try Self.snippets(db, pattern: pattern, rowIDs: results.map(\.rowID))
                for i in results.indices { results[i].snippet = snippets[results[i].rowID] }
            }
            return results
        }
    }

    /// The SQL of a result query, its arguments and a description of how it runs.
    func select(_ spec: QuerySpec) -> (sql: String?, arguments: StatementArguments, plan: [String]) {
        let predicate = spec.predicate.simplified
        if predicate == .none { return (nil, [], ["the query cannot match anything"]) }
        var b = SQLBuilder()
        var plan: [String] = []
        let (pattern, rest) = predicate.splittingText()
        let attributesColumn = spec.includeAttributes ? "items.attributes" : "NULL AS attributes"
        var sql: String
        var conditions: [String] = []
        let w = spec.ranking
        if let pattern {
            var score = "bm25(\(Schema.ftsTable), \(Schema.bm25Weights))"
            if w.recency != 0 || w.usage != 0 {
                // Plain arithmetic, so SQLite computes it without calling back into Swift.
                score += " * (1.0 + ? * ? / (? + max(0.0, ? - coalesce(items.modified, 0.0))) + ? * ? / (? + max(0.0, ? - coalesce(items.used, 0.0))))"
                let now = spec.now.timeIntervalSince1970
                for v in [w.recency, w.decaySeconds, w.decaySeconds, now, w.usage, w.decaySeconds, w.decaySeconds, now] {
                    b.appendArgument(v)
                }
            }
            // No snippet here: SQLite computes every result column of every match before it
            // sorts and cuts the page, and FTS5's snippet is costly (see `snippets`).
            sql = """
                SELECT items.id, items.path, items.domain, items.name, \(attributesColumn),
                       \(score) AS score
                FROM \(Schema.ftsTable) JOIN items ON items.id = \(Schema.ftsTable).rowid
                """
            b.appendArgument(pattern.fts5)
            conditions.append("\(Schema.ftsTable) MATCH ?")
            plan.append("full-text search: \(pattern.fts5)")
            if rest != .all {
                conditions.append(b.condition(rest))
                plan.append("then keep items where \(rest)")
            }
        } else {
            sql = "SELECT items.id, items.path, items.domain, items.name, \(attributesColumn), 0.0 AS score FROM items"
            conditions.append(b.condition(predicate))
            plan.append("items where \(predicate)")
        }
        conditions.append("(items.expiration IS NULL OR items.expiration > ?)")
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) {
            conditions.append(c)
            plan.append("inside " + spec.onlyIn.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " or "))
        }
        sql += " WHERE " + conditions.joined(separator: " AND ")

        var order: [(String, ascending: Bool)] = []
        switch spec.sort {
        case .relevance:
            if let exact = spec.exactNameHint, !exact.isEmpty {
                order.append(("(items.name = ? COLLATE NOCASE)", false))
                b.appendArgument(exact)
            }
            if pattern != nil {
                order.append(("score", true))
                plan.append("best first: an exact name, then bm25 (name ×10, title ×5, subject/authors ×3, text ×1) × recency and usage boosts")
            } else if predicate.searchesName {
                order.append(("length(items.name)", true))
                plan.append("shortest names first")
            } else {
                // `+` keeps SQLite from walking the date index for the order and reading every
                // row; the filter picks the rows, then they are sorted.
                order.append(("+items.modified", false))
                plan.append("newest first")
            }
        case .name: order.append(("items.name COLLATE NOCASE", true)); plan.append("by name")
        case .size: order.append(("+items.size", false)); plan.append("largest first")
        case .modified: order.append(("+items.modified", false)); plan.append("newest first")
        case .created: order.append(("+items.created", false)); plan.append("newest created first")
        }
        order.append(("items.path", true))
        if spec.reverse { plan.append("reversed") }
        sql += " ORDER BY " + order.map { "\($0.0) \($0.ascending != spec.reverse ? "ASC" : "DESC")" }.joined(separator: ", ")
        if let limit = spec.limit {
            sql += " LIMIT ? OFFSET ?"
            b.appendArgument(limit)
            b.appendArgument(spec.offset)
        } else if spec.offset > 0 {
            sql += " LIMIT -1 OFFSET ?"
            b.appendArgument(spec.offset)
        }
        return (sql, StatementArguments(b.arguments.map { $0.databaseValue }), plan)
    }

    /// How many items match (without fetching them).
    public func count(_ spec: QuerySpec) throws(QueryError) -> Int {
        let (from, args) = filtered(spec)
        return try read(spec) { db in try Int.fetchOne(db, sql: "SELECT count(*) " + from, arguments: args) ?? 0 }
    }

    /// `FROM items WHERE …` for the spec's filter (no ranking), and its arguments.
    private func filtered(_ spec: QuerySpec, join: String = "", _ b: inout SQLBuilder) -> String {
        var conditions = [b.condition(spec.predicate.simplified), "(items.expiration IS NULL OR items.expiration > ?)"]
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        return "FROM items\(join) WHERE " + conditions.joined(separator: " AND ")
    }

    private func filtered(_ spec: QuerySpec) -> (String, StatementArguments) {
        var b = SQLBuilder()
        let from = filtered(spec, &b)
        return (from, StatementArguments(b.arguments.map { $0.databaseValue }))
    }

    // MARK: Answers

    /// Counts of matching items per value of an attribute, most frequent first. Lists count an
    /// item once per element (an item by two authors counts for both); dates are grouped by the
    /// given period, in local time.
    public func groupCounts(_ spec: QuerySpec, by group: GroupKey) throws(QueryError) -> [GroupCount] {
        var b = SQLBuilder()
        let value: String
        var join = ""
        switch SQLBuilder.storage(of: group.key) {
        case .column(let column):
            value = group.key.valueType == .date ? "strftime('\(group.period.format)', \(column), 'unixepoch', 'localtime')" : column
        case .json:
            b.appendArgument("$." + group.key.rawValue)
            value = group.key.valueType == .date
                ? "strftime('\(group.period.format)', json_extract(items.attributes, ?), 'localtime')"
                : "json_extract(items.attributes, ?)"
        case .list:
            b.appendArgument("$." + group.key.rawValue)
            join = ", json_each(items.attributes, ?) AS element"
            value = "element.value"
        case .typeTree:
            join = " JOIN \(Schema.typesTable) AS t ON t.item_id = items.id"
            value = "t.type"
        case .fullText:
            throw .badValue(attribute: group.key.rawValue, value: "--group-by", reason: "cannot be grouped: it is free text; group by an attribute such as kind, authors or contentModificationDate")
        }
        let from = filtered(spec, join: join, &b)
        let sql = "SELECT \(value) AS v, count(*) AS n \(from) GROUP BY v ORDER BY n DESC, v"
        let args = StatementArguments(b.arguments.map { $0.databaseValue })
        return try read(spec) { db in
            try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                let v: DatabaseValue = row["v"]
                let text: String? = switch v.storage {
                case .null: nil
                case .string(let s): s
                case .int64(let i): String(i)
                case .double(let d): QueryCompiler.format(d)
                case .blob(let d): String(decoding: d, as: UTF8.self)
                }
                return GroupCount(value: text, count: row["n"])
            }
        }
    }

    /// Count, sum, smallest, largest and mean of a number or date attribute over the matches.
    public func statistics(_ spec: QuerySpec, of key: AttributeKey) throws(QueryError) -> AttributeStatistics {
        var b = SQLBuilder()
        let value: String
        let type = key.valueType
        switch (SQLBuilder.storage(of: key), type) {
        case (.column(let column), .integer?), (.column(let column), .double?), (.column(let column), .date?):
            value = column
        case (.json, .integer?), (.json, .double?), (.json, .bool?):
            b.appendArgument("$." + key.rawValue)
            value = "json_extract(items.attributes, ?)"
        case (.json, .date?):
            b.appendArgument("$." + key.rawValue)
            value = "(julianday(json_extract(items.attributes, ?)) - 2440587.5) * 86400.0"
        default:
            throw .badValue(attribute: key.rawValue, value: "--stats", reason: "holds text: --stats needs a number or a date (such as fileSize, pixelWidth, duration, contentModificationDate); use --group-by for text")
        }
        let from = filtered(spec, &b)
        // count(*) counts every match; count(v) those that have the attribute.
        let sql = "SELECT count(v) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS mean, count(*) AS total FROM (SELECT \(value) AS v \(from))"
        let args = StatementArguments(b.arguments.map { $0.databaseValue })
        return try read(spec) { db in
            guard let row = try Row.fetchOne(db, sql: sql, arguments: args) else {
                return AttributeStatistics(key: key, matches: 0, count: 0, sum: nil, minimum: nil, maximum: nil, mean: nil)
            }
            return AttributeStatistics(key: key, matches: row["total"], count: row["n"], sum: row["s"],
                                       minimum: row["lo"], maximum: row["hi"], mean: row["mean"])
        }
    }

    /// How a query will run: the predicate, the steps, and SQLite's plan.
    public func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        let (sql, args, plan) = select(spec)
        guard let sql else { return plan }
        let steps: [String] = try read(spec) { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: args).map { row in
                "  " + (row["detail"] as String? ?? "")
            }
        }
        return plan + ["SQLite plan:"] + steps
    }

    // MARK: Reading

    /// Runs `body` in one read transaction (one snapshot of the index), within the spec's
    /// deadline; errors become `QueryError`s with no SQLite text.
    func read<T>(_ spec: QuerySpec, _ body: (Database) throws -> T) throws(QueryError) -> T {
        if let deadline = spec.deadline, deadline.hasPassed { throw .timeLimit(seconds: deadline.seconds) }
        do {
            return try store.read { db in
                QueryFunctions.install(in: db)
                guard let deadline = spec.deadline else { return try body(db) }
                return try deadline.enforce(on: db) { try body(db) }
            }
        } catch {
            if let deadline = spec.deadline, deadline.hasPassed, case .database(_, let code, _) = error, code & 0xFF == 9 {
                throw .timeLimit(seconds: deadline.seconds)
            }
            throw .index(Self.message(for: error))
        }
    }

    /// What to tell the user when the index cannot answer: never SQLite's own text, which may
    /// quote the query and means little to a user.
    static func message(for error: any Error) -> String {
        guard let e = error as? IndexError else { return "the index could not answer this query" }
        guard case let .database(path, code, _) = e else { return e.description }
        switch code & 0xFF {
        case 5, 6: return "the index at \(path) is locked by another process; try again in a moment (fsindexd may be writing a large batch)"
        case 7: return "the query ran out of memory; narrow it (more words, --onlyin)"
        case 9: return "the query was interrupted"
        case 11, 26: return "the index at \(path) is damaged; run `fsindex erase` and `fsindex index` to rebuild it"
        // SQLITE_ERROR and SQLITE_TOOBIG from a statement that compiled from a valid query mean
        // it went past one of SQLite's own limits (expression depth, statement length, terms of
        // a full-text query): the query's size is the thing to change.
        case 1, 18: return "the query is too large or too complex for the index to answer; use fewer terms or less nesting, or split it into several queries"
        default: return "the index at \(path) could not answer this query (error \(code)); check `fsindex status`, or rebuild it with `fsindex erase` and `fsindex index`"
        }
    }
}

extension SQLBuilder {
    mutating func appendArgument(_ v: any DatabaseValueConvertible) { arguments.append(v) }
}

extension ItemPredicate {
    /// Whether the query looks for a name (so shorter names rank first).
    var searchesName: Bool {
        switch self {
        case .nameContains: true
        case .compare(let c): c.key == .name
        case .and(let parts): parts.contains { $0.searchesName }
        default: false
        }
    }
}

/// An attribute to group by, and for dates the period.
public struct GroupKey: Sendable, Hashable {
    public var key: AttributeKey
    public var period: Period

    public enum Period: String, Sendable, Hashable, CaseIterable {
        case day, week, month, year
        var format: String {
            switch self {
            case .day: "%Y-%m-%d"
            case .week: "%Y-W%W"
            case .month: "%Y-%m"
            case .year: "%Y"
            }
        }
    }

    public init(_ key: AttributeKey, period: Period = .month) {
        self.key = key
        self.period = period
    }
}

/// One row of a `--group-by` table; `value` is nil for items without the attribute.
public struct GroupCount: Sendable, Hashable {
    public var value: String?
    public var count: Int
}

/// `--stats`: over the matches that have the attribute (`count` of `matches`).
public struct AttributeStatistics: Sendable, Hashable {
    public var key: AttributeKey
    public var matches: Int
    public var count: Int
    public var sum: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var mean: Double?
}
