import Attributes
import Embedding
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
/// Cost: bm25 is computed for every item that matches the words. With a limit, only the best
/// by bm25 are then read and ranked with their boosts, when that provably gives the same first
/// results (`TopKRanking`); otherwise every match is, which costs time proportional to the hits.
package struct QueryEngine: Sendable {
    package let store: IndexStore
    /// How the first k of a ranked query are found without ranking every match (tests change it).
    var topK = TopKRanking.Settings()
    /// How far a query without words walks the newest-first index (tests change it).
    var walk = OrderedWalk.Settings()
    /// The sentence encoder of a question's order by meaning: the process's, loaded on first
    /// use (tests give theirs).
    package var sentenceEncoder: @Sendable () -> Result<SentenceEncoder, EmbeddingError> = { SentenceEncoder.shared }
    /// Subscribes to the index's changes, for live queries (`changes()`): set by a front end
    /// that knows who writes the index (fsindexd's control socket); nil, no live queries.
    package var changeSource: (@Sendable () throws(QueryError) -> AsyncStream<ItemChanges>)?

    package init(store: IndexStore, changeSource: (@Sendable () throws(QueryError) -> AsyncStream<ItemChanges>)? = nil) {
        self.store = store
        self.changeSource = changeSource
    }

    /// Marks that `snippet` puts around each matched word in `QueryResult.snippet`.
    package static let snippetStart = "\u{2}", snippetEnd = "\u{3}"

    package func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        if let words = spec.question { return try runQuestion(spec, words: words) }
        return try runAsTyped(spec)
    }

    /// The query as it is: one search.
    func runAsTyped(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        guard let query = ResultQuery(spec) else { return [] }
        return try read(spec) { db in
            // The best k of a ranked query without ranking every match when that can be proven
            // (`TopKRanking`), a page of the newest through their index (`OrderedWalk`); else
            // every match is read and sorted.
            let rows = try TopKRanking(spec, settings: topK)?.rows(db)
                ?? OrderedWalk(spec, settings: walk)?.rows(db)
                ?? { let counted = query.countedForPage(db); return try Row.fetchAll(db, sql: counted.sql, arguments: counted.arguments) }()
            var results = rows.map { row in
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
        guard let query = ResultQuery(spec) else { return (nil, [], ["the query cannot match anything"]) }
        return (query.sql, query.arguments, query.plan)
    }

    /// How a query will run: the predicate, the steps, and SQLite's plan.
    package func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        if let words = spec.question { return try explainQuestion(spec, words: words) }
        let (sql, args, plan) = select(spec)
        guard let sql else { return plan }
        return try read(spec) { db in
            func steps(_ sql: String, _ arguments: StatementArguments) throws -> [String] {
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { row in
                    "  " + Self.planLine(row["detail"] as String? ?? "")
                }
            }
            var lines = plan
            if TopKRanking(spec, settings: topK) != nil {
                lines.append("with the limit: the best by bm25 from the full-text index alone, then those ranked with their boosts; every match ranked when that cannot prove the page")
            } else if let walk = OrderedWalk(spec, settings: self.walk), let first = self.walk.walks.first {
                lines.append("with the limit: the newest \(max(first.minimum, walk.wanted * first.factor)) items in order, then every match if the page is not full; database plan of that walk:")
                lines += try steps(walk.sql, walk.arguments(walk: first.minimum))
            }
            return lines + ["database plan:"] + (try steps(sql, args))
        }
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
            throw .index(Self.message(for: error), cause: error)
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
    package var searchesName: Bool {
        switch self {
        case .nameContains: true
        case .compare(let c): c.key == .name
        case .and(let parts): parts.contains { $0.searchesName }
        default: false
        }
    }
}
