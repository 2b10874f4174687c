import PostgresNIO
import Querying
import SharedIndex

/// `fsfind --name PART` with a limit, shortest names first, from the trigram indexes of the
/// names' length buckets (v3-scale): the names of under 12 characters first, then 12–15, then
/// 16–23, each bucket's matches found by its own partial trigram index and sorted, until the
/// page is full; the longer names through the whole trigram index last.
///
/// Why: a common part ("test", in 3 % of names at 1 M items) matches few short names, so
/// walking `items_name_length` in order read 148,000 entries before its 20th match (66 ms in
/// the server, 140 ms a query), and sorting every match instead reads 32,000 rows. The first
/// bucket held the page's 29 candidates: 0.2 ms. Each bucket holds a band of lengths, so the
/// buckets in turn give the shortest names first, and a name equal to PART (the first result
/// whatever its score) is in the first bucket that can hold PART at all. A bucket costs one
/// round trip; a rare part, with few matches in any bucket, costs four small ones.
///
/// A part without three letters or digits in a row has no trigram to look up (pg_trgm would
/// read the whole index), so it keeps the walk along `items_name_length`, which is quick for
/// a short part: short parts match many short names.
struct SharedNamePage {
    /// The buckets, shortest first: the partial index and its predicate, word for word (the
    /// planner uses a partial index only when the query states its predicate).
    static let buckets: [(index: String, range: String)] = [
        ("items_name_trgm_12", "length(items.name) < 12"),
        ("items_name_trgm_16", "length(items.name) >= 12 AND length(items.name) < 16"),
        ("items_name_trgm_24", "length(items.name) >= 16 AND length(items.name) < 24"),
        ("items_name_trgm", "length(items.name) >= 24"),
    ]

    /// Whether pg_trgm finds a trigram in `part` to look up: three ASCII letters or digits in a
    /// row (it cuts a pattern into words of letters and digits; other characters end a word).
    static func hasTrigram(_ part: String) -> Bool {
        var run = 0
        for b in part.utf8 {
            let alnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            run = alnum ? run + 1 : 0
            if run >= 3 { return true }
        }
        return false
    }
}

extension SharedQueryEngine {
    /// The statements of a name page, one a bucket (nil when `SharedNamePage` does not apply:
    /// another query, a sort other than relevance, no limit, a residual test, a part without a
    /// trigram), and the rows wanted (the page and those skipped before it).
    func namePageStatements(_ spec: QuerySpec) -> (statements: [(index: String, sql: String)], values: [SQLValue], wanted: Int)? {
        guard spec.sort == .relevance, !spec.reverse, let limit = spec.limit, limit > 0, spec.offset >= 0,
              case .nameContains(let part) = spec.predicate.simplified, !part.utf8.contains(0),
              SharedNamePage.hasTrigram(part),
              spec.exactNameHint == nil || spec.exactNameHint == part || spec.exactNameHint == "",
              let p = parts(spec), !p.residual, p.query == nil else { return nil }
        let (wanted, overflow) = limit.addingReportingOverflow(spec.offset)
        guard !overflow else { return nil }
        let filter = p.conditions.joined(separator: " AND ")
        let order = p.orderBy(reverse: false)
        let statements = SharedNamePage.buckets.map { bucket in
            (bucket.index, "SELECT \(Self.rowColumns), \(p.score) AS score FROM items WHERE \(filter) AND \(bucket.range)\(order)")
        }
        return (statements, p.b.values, wanted)
    }

    /// The page of a name query from the length buckets, or nil when they do not apply.
    func namePage(_ spec: QuerySpec) throws(QueryError) -> [PostgresRow]? {
        guard let (statements, values, wanted) = namePageStatements(spec) else { return nil }
        var rows: [PostgresRow] = []
        for statement in statements {
            rows += try query(statement.sql + " LIMIT \(wanted - rows.count)", values, spec)
            if rows.count >= wanted { break }
        }
        return Array(rows.dropFirst(spec.offset))
    }
}
