import FoundationEssentials
import GRDB
import Indexing

/// The first k results of a ranked word query without ranking every match: the same rows, in
/// the same order, as the first k of the full ranking, or no answer (nil) when that cannot be
/// proven, and then `QueryEngine` ranks every match as before.
///
/// A key design decision: the ranking is split where its cost is. The full ranking joins every
/// match to its `items` row for the boosts and the exact-name test, and sorts them all with
/// their paths: for `function` (34,500 matches in the bench corpus) that was most of 80 ms.
/// Here, in one read transaction:
/// 1. **Candidates**: FTS5 alone gives the M best matches by plain bm25 (no `items` row read),
///    the items whose name equals the query first (found through the trigram table of names).
/// 2. **Exact ranking** of the candidates only: the same score expression, filters and order
///    as the full query (`ResultQuery`), over the candidates and the bm25 each was given.
/// 3. **Proof**: a match that is not a candidate has no exact name and a bm25 no better than
///    the last candidate's, β (bm25 is ≤ 0, the best most negative). Its boost is at most
///    `B = 1 + recency·t(newest change) + usage·t(latest use)` over the whole index (read from
///    the date indexes), so its score is at least β·B. When the k-th candidate has an exact
///    name, or a score below β·B (with a margin for rounding), no other match can come before
///    it, nor tie with it. When every match was a candidate, the ranking is exact as it is.
///
/// Otherwise (filters that leave fewer than k candidates, or boosts that spread the scores
/// wider than the candidates reach) the answer is nil. Cost: bm25 is still computed for every
/// match, inside FTS5; the rest (row reads, boosts, sorting paths) only for M of them.
struct TopKRanking {
    let spec: QuerySpec
    let query: ResultQuery
    let pattern: SearchPattern
    /// k: the rows to return plus those skipped.
    let wanted: Int
    /// How many candidates to take: k times `Settings.candidateFactor`, at least
    /// `Settings.minimumCandidates`.
    let candidates: Int
    let settings: Settings

    /// How many candidates are taken, and (for tests only) a wrong bound.
    struct Settings: Sendable {
        /// Candidates per result wanted, and the fewest taken: enough, on the bench corpus, for
        /// the proof to hold on common words with the default boosts.
        var candidateFactor = 8
        var minimumCandidates = 1024
        /// The first round ranks this many candidates per result wanted, at least the minimum.
        var firstRoundFactor = 2
        var firstRoundMinimum = 256
        /// The shortcut is tried only when no item's boost can exceed this. bm25 saturates: the
        /// best thousand of `function`'s 34,500 matches in the bench corpus all score between
        /// -1.60 and -1.73, so a possible boost of 1.5 (a file changed today) defeats the proof,
        /// and a failed attempt costs about half the full ranking on top of it.
        var largestCeiling = 1.1
        /// For tests only: a boost ceiling to use instead of the index's, to show that a wrong
        /// bound loses rows and that the tests see it.
        var boostCeilingOverride: Double?
    }

    /// Bigger k is left to the full ranking: the candidate list is bound as arguments.
    static let maximumWanted = 1024

    /// Nil when the query is not one this applies to: a ranked word query (relevance order, not
    /// reversed) with a limit.
    init?(_ spec: QuerySpec, settings: Settings = Settings()) {
        guard spec.sort == .relevance, !spec.reverse, let limit = spec.limit,
              limit > 0, spec.offset >= 0, limit <= Self.maximumWanted - spec.offset,
              let query = ResultQuery(spec), let pattern = query.pattern else { return nil }
        self.spec = spec
        self.query = query
        self.pattern = pattern
        wanted = limit + spec.offset
        self.settings = settings
        candidates = max(settings.minimumCandidates, wanted * settings.candidateFactor)
    }

    /// The page (after `spec.offset`), or nil when it cannot be proven to equal the full
    /// ranking's.
    func rows(_ db: Database) throws -> [Row]? {
        guard let ceiling = try boostCeiling(db), ceiling <= settings.largestCeiling else { return nil }
        let hint = exactNameHint
        // An any-word pattern (a question's second stage) scores only rows that can be among
        // the candidates; the others come back as 1.0 and are dropped (`fts5_rank.c`, "top").
        // Not with exact names first: those come first whatever their score.
        let top = pattern.anyGroup && hint == nil ? candidates : nil
        let query = query.counted(db, top: top)
        // 1. Candidates, best first: exact names, then plain bm25.
        var exactArguments: [any DatabaseValueConvertible] = []
        var exactFirst = "0"
        if let hint {
            // Every item named `hint` (ASCII case aside) holds it as a substring, which the
            // trigram table finds; shorter hints cannot be looked up there.
            guard let phrase = SQLBuilder.trigramPhrase(hint) else { return nil }
            exactFirst = """
                rowid IN (SELECT items.id FROM \(Schema.namesTable) JOIN items ON items.id = \(Schema.namesTable).rowid
                          WHERE \(Schema.namesTable) MATCH ? AND items.name = ? COLLATE NOCASE)
                """
            exactArguments = [phrase, hint]
        }
        let scored = """
            SELECT rowid AS id, \(query.rank.sql) AS b, \(exactFirst) AS e FROM \(Schema.ftsTable)
            WHERE \(Schema.ftsTable) MATCH ?
            """
        let candidateSQL = top == nil ? scored + " ORDER BY e DESC, b ASC LIMIT ?"
            : "SELECT id, b, e FROM (\(scored)) WHERE b <= 0 ORDER BY e DESC, b ASC LIMIT ?"
        let found = try Row.fetchAll(db, sql: candidateSQL,
                                     arguments: StatementArguments((query.rank.arguments + exactArguments + [(query.pattern ?? pattern).fts5, candidates]).map { $0.databaseValue }))
        let complete = found.count < candidates
        guard !found.isEmpty else { return [] }
        // A first round ranks the best few candidates only: it proves most pages, at a
        // quarter of the cost of ranking them all.
        var rounds = [found.count]
        let first = max(settings.firstRoundMinimum, wanted * settings.firstRoundFactor)
        if first < found.count { rounds.insert(first, at: 0) }
        for size in rounds {
            let part = found[..<size]
            let everything = complete && size == found.count
            let last = part[part.endIndex - 1]
            let beta: Double = last["b"], lastExact: Int = last["e"]
            // Every item with the exact name must be a candidate, and β a plain bm25 (≤ 0).
            guard everything || (lastExact == 0 && beta <= 0 && beta.isFinite) else { continue }
            let ranked = try rank(db, query, part)
            if everything { return Array(ranked.dropFirst(spec.offset)) }
            // 3. The proof.
            guard ranked.count == wanted, let kth = ranked.last else { continue }
            let exact: Int = kth["exact_name"]
            let score: Double = kth["score"]
            // β·B, lowered by a relative margin far above the rounding of a few operations.
            if exact == 1 || score < beta * ceiling * (1 + 1e-9) { return Array(ranked.dropFirst(spec.offset)) }
        }
        return nil
    }

    /// 2. The exact ranking of `candidates` (id, bm25), with the full query's score, filters
    /// and order; the first k, with a column `exact_name`.
    private func rank(_ db: Database, _ query: ResultQuery, _ candidates: ArraySlice<Row>) throws -> [Row] {
        var values: [any DatabaseValueConvertible] = []
        values.reserveCapacity(candidates.count * 2)
        for row in candidates {
            values.append(row["id"] as Int64)
            values.append(row["b"] as Double)
        }
        let hint = exactNameHint
        let sql = """
            WITH candidates(id, b) AS (VALUES \(Array(repeating: "(?, ?)", count: candidates.count).joined(separator: ", ")))
            SELECT \(query.columns), candidates.b\(query.boost.sql) AS score, \(hint == nil ? "0" : "(items.name = ? COLLATE NOCASE)") AS exact_name
            FROM candidates JOIN items ON items.id = candidates.id
            WHERE \(query.filters.sql)\(query.order.sql) LIMIT ?
            """
        var arguments = values + query.boost.arguments
        if let hint { arguments.append(hint) }
        arguments += query.filters.arguments + query.order.arguments + [wanted]
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments.map { $0.databaseValue }))
    }

    /// The name whose items come first (`QuerySpec.exactNameHint`), unless empty.
    var exactNameHint: String? { spec.exactNameHint.flatMap { $0.isEmpty ? nil : $0 } }

    /// The largest boost any item can have (1 without boosts); nil when the boosts cannot be
    /// bounded (a decay that is not above zero, values that are not finite). Negative weights
    /// need no floor: bm25 is ≤ 0, so a smaller boost only raises a score.
    func boostCeiling(_ db: Database) throws -> Double? {
        if let forced = settings.boostCeilingOverride { return forced }
        return try ResultQuery.largestBoost(spec, db)
    }
}
