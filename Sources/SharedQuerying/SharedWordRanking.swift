import Foundation
import Indexing
import PostgresNIO
import Querying
import SharedIndex

/// The first k results of a ranked word query from the RUM index, without ranking every match:
/// the same rows in the same order as the full ranking's first k, or no answer (nil) when that
/// cannot be proven, and then every match is ranked as before. The shared index's counterpart
/// of `TopKRanking` on SQLite.
///
/// Why it is exact: for a query of one word (a prefix, a column or neither: one tsquery
/// operand), RUM's score is `ts_rank` with RUM's fixed weights {0.1, 0.2, 0.4, 1.0} (D, C, B,
/// A), and `ts_rank` is, for one operand, a sum of the weights of its positions with
/// coefficients that do not depend on the weights (the best weight's position is the same
/// under both, as both order A > B > C > D). So our `ts_rank` with `rankWeights` is between 1
/// and `weightRatio` times RUM's score, for every item; with RUM's own weights, as now, the
/// ratio is 1 and the two are equal.
/// 1. **Candidates**: the RUM index gives the best M matches by its score (`ORDER BY words <=>
///    query LIMIT M`), the query's other conditions applied; with them, every match whose name
///    equals the query (through the trigram index).
/// 2. **Exact ranking** of the candidates: the very score (ts_rank × boosts) and order of
///    the full query.
/// 3. **Proof**: a match that is not a candidate has a RUM score s ≤ σ, the last candidate's,
///    no exact name, and a boost at most `B` (from the newest change and use among the rows,
///    through `items_modified_path` and `items_used`); so its score is at most ratio·σ·B. When the
///    k-th result has an exact name or a score above that (with a margin for float4 rounding),
///    nothing else can come before it or tie with it. When fewer than M matched, every match
///    was a candidate.
/// Queries of several words (`&`, phrases, alternatives) have no such bound: RUM scores them
/// with cover density, `ts_rank` otherwise. They are ranked in full, as are pages a round of
/// candidates cannot prove (`rounds`).
struct SharedWordRanking {
    let spec: QuerySpec
    /// k: the rows to return plus those skipped.
    let wanted: Int

    /// RUM's weights of D, C, B and A, fixed in the extension.
    static let rumWeights = [0.1, 0.2, 0.4, 1.0]
    /// The largest ratio of our weight to RUM's for one column: our `ts_rank` is at most this
    /// many times RUM's score.
    static let weightRatio = zip(SharedQueryEngine.rankWeights, rumWeights).map { $0 / $1 }.max() ?? 1
    /// Candidates per result wanted, and the fewest taken, per round: a second, larger round
    /// proves most pages the first cannot, at a fraction of ranking every match.
    static let rounds: [(factor: Int, minimum: Int)] = [(10, 200), (100, 2000)]
    static let maximumWanted = 1024

    init?(_ spec: QuerySpec) {
        guard spec.sort == .relevance, !spec.reverse, let limit = spec.limit, limit > 0, spec.offset >= 0,
              limit <= Self.maximumWanted - spec.offset else { return nil }
        self.spec = spec
        wanted = limit + spec.offset
    }

    /// Whether a tsquery is one operand: a quoted lexeme with an optional `:*` and weights.
    static func isOneOperand(_ q: String) -> Bool {
        let c = Array(q.unicodeScalars)
        guard c.first == "'" else { return false }
        var i = 1
        while i < c.count {
            if c[i] == "\\" { i += 2; continue }
            if c[i] == "'" {
                if i + 1 < c.count, c[i + 1] == "'" { i += 2; continue }
                break
            }
            i += 1
        }
        guard i < c.count else { return false }
        let tail = String(String.UnicodeScalarView(c[(i + 1)...]))
        return tail.isEmpty || tail.wholeMatch(of: /:\*?[ABCD]*/) != nil
    }

    /// The statement of one round of `candidates`: the page among the candidates, each row with
    /// the round's facts (how many candidates, the last one's RUM distance, the newest change
    /// and use for the boost ceiling).
    static func statement(_ p: SharedQueryEngine.QueryParts, candidates: Int, wanted: Int, hint: String?) -> (sql: String, values: [SQLValue])? {
        guard let query = p.query else { return nil }
        var p = p
        let filter = p.conditions.joined(separator: " AND ")
        let m = p.b.bind(.int(Int64(candidates)))
        var ids = "SELECT id FROM c"
        if let exact = p.exactName, let hint {
            ids += " UNION SELECT items.id FROM items WHERE \(filter) AND items.name ILIKE \(p.b.bind(.text(SQLBuilder.escapeLike(hint)))) AND \(exact)"
        }
        let k = p.b.bind(.int(Int64(wanted)))
        let sql = """
            WITH c AS MATERIALIZED (SELECT items.id, items.words <=> \(query) AS d FROM items WHERE \(filter) ORDER BY items.words <=> \(query) LIMIT \(m)), \
            n AS (SELECT count(*) AS candidates, max(d)::double precision AS cutoff, \
            (SELECT max(modified) FROM items) AS newest_modified, (SELECT max(used) FROM items) AS newest_used FROM c) \
            SELECT \(SharedQueryEngine.rowColumns), \(p.score) AS score, \(p.exactName ?? "FALSE") AS exact_name, \
            n.candidates, n.cutoff, n.newest_modified, n.newest_used \
            FROM items, n WHERE items.id IN (\(ids))\(p.orderBy(reverse: false)) LIMIT \(k)
            """
        return (sql, p.b.values)
    }

    /// The largest boost a row can have, from the newest change and use; nil when the boosts
    /// cannot be bounded (a decay that is not above zero, values that are not finite).
    func boostCeiling(newestModified: Double?, newestUsed: Double?) -> Double? {
        let w = spec.ranking
        guard w.recency != 0 || w.usage != 0 else { return 1 }
        let d = w.decaySeconds, now = spec.now.timeIntervalSince1970
        guard d > 0, d.isFinite, now.isFinite, w.recency.isFinite, w.usage.isFinite else { return nil }
        // An item without a date counts as 0 (1970), as the score's coalesce does.
        let modified = max(newestModified ?? 0, 0), used = max(newestUsed ?? 0, 0)
        guard modified.isFinite, used.isFinite else { return nil }
        let recencyTerm = d / (d + max(0, now - modified)), usageTerm = d / (d + max(0, now - used))
        return 1 + max(0, w.recency * recencyTerm) + max(0, w.usage * usageTerm)
    }

    /// The page of one round, or nil when it does not prove it.
    func proven(_ rows: [PostgresRow], candidates: Int) -> [PostgresRow]? {
        guard let first = rows.first?.makeRandomAccess() else { return [] }
        let found = Int((try? first["candidates"].decode(Int64.self)) ?? 0)
        if found < candidates { return rows }
        guard rows.count == wanted, let kth = rows.last?.makeRandomAccess() else { return nil }
        if (try? kth["exact_name"].decode(Bool.self)) == true { return rows }
        guard let cutoff = try? first["cutoff"].decode(Double.self), cutoff > 0, !cutoff.isNaN,
              let score = try? kth["score"].decode(Double.self), score.isFinite,
              let ceiling = boostCeiling(newestModified: try? first["newest_modified"].decode(Double.self),
                                         newestUsed: try? first["newest_used"].decode(Double.self)) else { return nil }
        // RUM's distance is 1 / its score; the score column is negated (best first ascending).
        let bound = Self.weightRatio * (1 / cutoff) * ceiling
        return -score > bound * (1 + 1e-5) ? rows : nil
    }
}

extension SharedQueryEngine {
    /// The page of a ranked one-word query from the RUM index, or nil when it does not apply
    /// (no RUM index, another query) or a round cannot prove its page.
    func rankedWords(_ spec: QuerySpec) throws(QueryError) -> [PostgresRow]? {
        guard features.rankedWords, let ranking = SharedWordRanking(spec), let p = parts(spec),
              !p.residual, let q = p.tsquery, SharedWordRanking.isOneOperand(q) else { return nil }
        for round in SharedWordRanking.rounds {
            let m = max(round.minimum, ranking.wanted * round.factor)
            guard let (sql, values) = SharedWordRanking.statement(p, candidates: m, wanted: ranking.wanted, hint: spec.exactNameHint) else { return nil }
            if let rows = ranking.proven(try query(sql, values, spec), candidates: m) { return Array(rows.dropFirst(spec.offset)) }
        }
        return nil
    }
}
