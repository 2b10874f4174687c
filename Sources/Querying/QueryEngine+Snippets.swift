import FoundationEssentials
import GRDB
import Indexing

extension QueryEngine {
    /// The text around the matched words of these items (by row), for the items a front end
    /// shows: `QueryPipeline` asks for the page it prints, never for every match.
    ///
    /// A key design decision: snippets are made after the page is known, in a query of their
    /// own. FTS5's `snippet()` scores every candidate fragment against every matched position
    /// of the row (quadratic in the positions: a one-letter prefix such as `a*` matches
    /// thousands of words in a long text), and as a result column of the ranked query SQLite
    /// computed it for every match before sorting: `fsfind --snippet a` took 7-17 s where
    /// `fsfind a` took 0.08 s. Now the cost is that of the shown items only, and each costs
    /// time linear in its matches: `fsindex_snippet` (CFTS5CJK) replaces `snippet()`, which is
    /// quadratic in them (`fsfind --snippet a` over /usr/share/doc, every match shown: 8.9 s).
    package func snippets(_ spec: QuerySpec, rowIDs: [Int64]) throws(QueryError) -> [Int64: String] {
        guard !rowIDs.isEmpty, let pattern = spec.predicate.simplified.splittingText().pattern else { return [:] }
        return try read(spec) { db in try Self.snippets(db, pattern: pattern, rowIDs: rowIDs) }
    }

    /// One pass of the full-text query over the rows between the smallest and largest of
    /// `rowIDs` (FTS5 takes the range as a constraint), with `snippet()` computed for those rows
    /// only. The `+` keeps SQLite from handing the IN list to FTS5 as one lookup per row, which
    /// would evaluate the whole full-text query again for each.
    static func snippets(_ db: Database, pattern: SearchPattern, rowIDs: [Int64]) throws -> [Int64: String] {
        guard let low = rowIDs.min(), let high = rowIDs.max() else { return [:] }
        let sql = """
            SELECT rowid AS id, fsindex_snippet(\(Schema.ftsTable), -1, '\(snippetStart)', '\(snippetEnd)', '…', 12) AS snippet
            FROM \(Schema.ftsTable)
            WHERE \(Schema.ftsTable) MATCH ? AND rowid >= ? AND rowid <= ?
              AND +rowid IN (SELECT value FROM json_each(?))
            """
        let list = "[" + rowIDs.map(String.init).joined(separator: ",") + "]"
        var out: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: sql, arguments: [pattern.fts5, low, high, list]) {
            let id: Int64 = row["id"]
            out[id] = row["snippet"]
        }
        return out
    }
}
