import FoundationEssentials
import GRDB
import Indexing

/// A page of a query without words, newest first, read by walking the index of that order
/// (`items_newest`: `modified DESC, path`) from its start, instead of reading and sorting every
/// match: the same rows in the same order, or nil, and then `QueryEngine` reads every match.
///
/// A key design decision: the walk is bounded. SQLite left to itself walks an order index until
/// the page is full, which for a filter that few items pass is a scan of every item (the
/// reason the full query writes `+items.modified`). Here the first W items in the order are
/// taken (from the index alone), and the filter is applied to them; when at least `offset +
/// limit` of them match, they are the first matches of the whole order (every other item comes
/// after all of them). Else (`Settings.walks`) the full query answers.
///
/// For example `kind:python --limit 20` over a million items, a quarter of them Python, reads
/// about a thousand rows instead of 250,000 (0.2 s). Cost when the filter is rare: the walks
/// (a few milliseconds) on top of the full query. Type tests in the walk look up each item's
/// types (`SQLBuilder.typesPerItem`) instead of listing every item of the type first.
struct OrderedWalk {
    let spec: QuerySpec
    let query: ResultQuery
    let settings: Settings
    /// `offset + limit`: the matches the prefix of the order must hold.
    let wanted: Int

    /// How far the walks go: each is `max(minimum, wanted × factor)` items.
    ///
    /// One walk by default, of a thousand items or so (about 2 ms when it fails): the newest
    /// items cluster (a folder just unpacked), and on the bench corpus the newest 1,024 held no
    /// source code at all while 13 % of the items are code; a second walk of 8,192 cost 15 ms
    /// more before the full query.
    struct Settings: Sendable {
        var walks: [(minimum: Int, factor: Int)] = [(1024, 16)]
    }

    /// Nil when the query is not one this applies to: no words that rank, newest first (the
    /// default order of such a query unless it searches a name or has words in an OR, or
    /// `--sort modified`), with a limit.
    init?(_ spec: QuerySpec, settings: Settings = Settings()) {
        guard let limit = spec.limit, limit > 0, spec.offset >= 0, limit <= Int.max / 2 - spec.offset else { return nil }
        let predicate = spec.predicate.simplified
        guard predicate.splittingText().pattern == nil else { return nil }
        switch spec.sort {
        case .modified: break
        // Without an exact-name hint: with one (`a OR b`), items named so come first.
        case .relevance where !predicate.searchesName && (spec.exactNameHint ?? "").isEmpty: break
        default: return nil
        }
        guard let query = ResultQuery(spec, typesPerItem: true) else { return nil }
        self.spec = spec
        self.query = query
        self.settings = settings
        wanted = limit + spec.offset
    }

    /// The first W items in the order: `modified DESC, path ASC` (reversed with `--reverse`),
    /// the order of `items_newest`, so SQLite reads it from the index alone.
    var walkSQL: String {
        let (newest, path) = spec.reverse ? ("ASC", "DESC") : ("DESC", "ASC")
        return "SELECT items.id FROM items ORDER BY items.modified \(newest), items.path \(path) LIMIT ?"
    }

    /// The page's SQL for a walk of W items (W is its first argument).
    var sql: String {
        """
        SELECT \(query.columns), 0.0 AS score FROM (\(walkSQL)) AS walk JOIN items ON items.id = walk.id
        WHERE \(query.filters.sql)\(query.order.sql)\(query.limit.sql)
        """
    }

    func arguments(walk: Int) -> StatementArguments {
        let all: [any DatabaseValueConvertible] = [walk] + query.filters.arguments + query.order.arguments + query.limit.arguments
        return StatementArguments(all.map { $0.databaseValue })
    }

    /// The page, or nil when the walks did not reach enough matches.
    func rows(_ db: Database) throws -> [Row]? {
        guard let limit = spec.limit else { return nil }
        for step in settings.walks {
            let (w, overflow) = wanted.multipliedReportingOverflow(by: step.factor)
            let walk = overflow ? Int.max : max(step.minimum, w)
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments(walk: walk))
            if rows.count == limit { return rows }
        }
        return nil
    }
}
