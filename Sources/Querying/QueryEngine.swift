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
                    ? (try? IndexStore.attributes(row)) ?? AttributeSet() : AttributeSet()
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
        // The JSON and the columns that hold the attributes it leaves out (IndexStore.attributes(_:)).
        let attributesColumn = spec.includeAttributes
            ? "items.attributes, items.omitted, items.content_type, items.kind, items.extractor, items.size, items.modified, items.created"
            : "NULL AS attributes"
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
        // NULL sorts lowest in SQLite: descending puts the never used last.
        case .used: order.append(("+items.used", false)); plan.append("most recently used first, never used last")
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

    /// How a query will run: the predicate, the steps, and SQLite's plan.
    public func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        let (sql, args, plan) = select(spec)
        guard let sql else { return plan }
        let steps: [String] = try read(spec) { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: args).map { row in
                "  " + Self.planLine(row["detail"] as String? ?? "")
            }
        }
        return plan + ["database plan:"] + steps
    }

    /// A line of SQLite's plan in our words: the index SQLite makes for a UNIQUE column is
    /// named `sqlite_autoindex_<table>_<n>`, and SQLite's name never reaches a user (issue 11;
    /// found by the query fuzzer through `--explain dir:/…`).
    static func planLine(_ detail: String) -> String {
        detail.replacing(/sqlite_autoindex_(\w+?)_\d+/) { match in "the unique key of \(match.output.1)" }
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
