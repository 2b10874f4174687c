import Attributes
import Foundation
import Indexing
import PostgresNIO
import Querying
import SharedIndex
#if canImport(Glibc)
import Glibc
#endif

/// Runs `QuerySpec`s against the shared PostgreSQL index: the same query language, the same
/// answers as `QueryEngine` on SQLite (see `SharedSQLBuilder` for how), ranked by the same rule
/// with `ts_rank` in place of bm25, which orders equally relevant items alike but weighs
/// frequencies otherwise (fsindex-query(7), RANKING).
///
/// Rows are filtered by the server's row-level security: a role sees what the user of the same
/// name may read on the host that indexed each file.
public final class SharedQueryEngine: SearchBackend, @unchecked Sendable {
    public let url: SharedIndexURL
    private var link: PostgresLink
    private let lock = NSLock()

    public init(url: SharedIndexURL) throws(QueryError) {
        self.url = url
        do {
            link = try PostgresLink.connect(url)
            try SharedSchema.check(link)
        } catch {
            throw .index(error.description, cause: error)
        }
    }

    public var checksFilesOnDisk: Bool { false }

    /// One element per batch committed to the shared index from now on (a connection of its
    /// own LISTENs on `fsindex_items`); it ends when the connection is lost.
    public func changes() throws(QueryError) -> ChangeFeed { .batches(try notifications()) }

    /// The notifications behind `changes()`.
    public func notifications() throws(QueryError) -> AsyncStream<Void> {
        let listener: PostgresLink
        do { listener = try PostgresLink.connect(url) } catch { throw .index(error.description, cause: error) }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        do {
            try listener.listen("fsindex_items") { _ in continuation.yield() }
        } catch {
            listener.close()
            throw .index(error.description, cause: error)
        }
        continuation.onTermination = { _ in listener.close() }
        return stream
    }

    /// Runs a statement, connecting again once if the connection was lost since the last one.
    func query(_ sql: String, _ values: [SQLValue], _ spec: QuerySpec?) throws(QueryError) -> [PostgresRow] {
        lock.lock()
        defer { lock.unlock() }
        if let deadline = spec?.deadline, deadline.hasPassed { throw .timeLimit(seconds: deadline.seconds) }
        do {
            if link.isClosed { link = try PostgresLink.connect(url) }
            if let deadline = spec?.deadline {
                let left = ContinuousClock.now.duration(to: deadline.instant)
                let ms = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                try link.execute("SET statement_timeout = \(ms)")
            }
            defer { if spec?.deadline != nil { try? link.execute("SET statement_timeout = 0") } }
            return try link.query(sql, values)
        } catch {
            if case .server(_, "57014", _) = error, let deadline = spec?.deadline { throw .timeLimit(seconds: deadline.seconds) }
            throw .index(error.description, cause: error)
        }
    }

    static let rowColumns = "items.id, items.host, items.path, items.domain, items.attributes::text AS attributes, items.types, items.name, items.title, items.other, items.body"

    /// Builds the query of a spec: the SQL, its values, and whether Swift must finish the filter.
    func select(_ spec: QuerySpec) -> (sql: String?, values: [SQLValue], residual: Bool, leaves: Int, plan: [String]) {
        let predicate = spec.predicate.simplified
        if predicate == .none { return (nil, [], false, 0, ["the query cannot match anything"]) }
        var b = SharedSQLBuilder()
        var plan: [String] = []
        let (pattern, rest) = predicate.splittingText()
        var conditions: [String] = []
        var score = "0.0"
        if let pattern, let q = SharedSQLBuilder.tsquery(pattern) {
            let query = b.bind(.text(q)) + "::tsquery"
            conditions.append("items.words @@ \(query)")
            score = "-ts_rank('{0.1, 0.3, 0.5, 1.0}', items.words, \(query))"
            let w = spec.ranking
            if w.recency != 0 || w.usage != 0 {
                let now = b.bind(.double(spec.now.timeIntervalSince1970)), d = b.bind(.double(w.decaySeconds))
                let r = b.bind(.double(w.recency)), u = b.bind(.double(w.usage))
                score += " * (1.0 + \(r) * \(d) / (\(d) + greatest(0.0, \(now) - coalesce(items.modified, 0.0))) + \(u) * \(d) / (\(d) + greatest(0.0, \(now) - coalesce(items.used, 0.0))))"
            }
            plan.append("full-text search: \(q)")
            if rest != .all {
                conditions.append(b.condition(rest))
                plan.append("then keep items where \(rest)")
            }
        } else if pattern != nil {
            return (nil, [], false, 0, ["the words hold nothing the index can search"])
        } else {
            conditions.append(b.condition(predicate))
            plan.append("items where \(predicate)")
        }
        conditions.append("(items.expiration IS NULL OR items.expiration > \(b.bind(.double(spec.now.timeIntervalSince1970))))")
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        let residual = b.residual
        var leafColumns = ""
        var leafCount = 0
        if residual {
            b.collectLeaves(predicate)
            leafCount = b.leaves.count
            leafColumns = b.leaves.enumerated().map { ", \($0.element) AS l\($0.offset)" }.joined()
            plan.append("then Spotlight's wildcard and modifier tests in fsindex, on the rows the server found")
        }
        var order: [(String, ascending: Bool)] = []
        switch spec.sort {
        case .relevance, .priority:
            if spec.sort == .priority {
                order.append(("coalesce(\(b.numeric(.isPriority)), 0.0)", false))
            }
            if let exact = spec.exactNameHint, !exact.isEmpty {
                order.append(("(\(Self.asciiLower("items.name")) = \(Self.asciiLower(b.bind(.text(exact)))))", false))
            }
            if pattern != nil {
                order.append(("score", true))
                plan.append("best first: an exact name, then ts_rank (name, title, subject/authors, text weighted 1, 0.5, 0.3, 0.1) × recency and usage boosts")
            } else if predicate.searchesName {
                order.append(("length(items.name)", true))
            } else {
                order.append(("items.modified", false))
            }
        case .name: order.append(("\(Self.asciiLower("items.name")) COLLATE \"C\"", true))
        case .size: order.append(("items.size", false))
        case .modified: order.append(("items.modified", false))
        case .created: order.append(("items.created", false))
        case .used: order.append(("items.used", false))
        }
        order.append(("items.path", true))
        var sql = "SELECT \(Self.rowColumns), \(score) AS score\(leafColumns) FROM items WHERE " + conditions.joined(separator: " AND ")
        // SQLite puts NULL first in ascending order and last in descending order.
        sql += " ORDER BY " + order.map { o in
            let asc = o.ascending != spec.reverse
            return "\(o.0) \(asc ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
        }.joined(separator: ", ")
        if !residual {
            if let limit = spec.limit { sql += " LIMIT \(b.bind(.int(Int64(limit))))" }
            if spec.offset > 0 { sql += " OFFSET \(b.bind(.int(Int64(spec.offset))))" }
        }
        return (sql, b.values, residual, leafCount, plan)
    }

    /// `translate` folds ASCII letters only, as SQLite's NOCASE does.
    static func asciiLower(_ sql: String) -> String {
        "translate(\(sql), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }

    public func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        let (sql, values, residual, leaves, _) = select(spec)
        guard let sql else { return [] }
        var out: [QueryResult] = []
        var skipped = 0
        let predicate = spec.predicate.simplified
        for row in try query(sql, values, spec) {
            let r = row.makeRandomAccess()
            let candidate = Candidate(r, leafCount: residual ? leaves : 0)
            if residual {
                var index = 0
                guard Self.evaluate(predicate, candidate, &index) else { continue }
                if skipped < spec.offset { skipped += 1; continue }
            }
            let attributes = spec.includeAttributes ? ((try? IndexStore.attributes(json: candidate.attributesJSON)) ?? AttributeSet()) : AttributeSet()
            out.append(QueryResult(identifier: ItemIdentifier(bytes: candidate.path), domain: candidate.domain,
                                   attributes: attributes, score: (try? r["score"].decode(Double.self)) ?? 0, rowID: candidate.id,
                                   host: candidate.host))
            if residual, let limit = spec.limit, out.count >= limit { break }
        }
        let ambiguous = try heldByOtherHosts(out.map(\.identifier.bytes), spec)
        for i in out.indices where !ambiguous.contains(out[i].identifier.bytes) { out[i].host = nil }
        if spec.snippet, !out.isEmpty {
            let snippets = try self.snippets(spec, rowIDs: out.map(\.rowID))
            for i in out.indices { out[i].snippet = snippets[out[i].rowID] }
        }
        return out
    }

    /// Those of `paths` that two hosts or more hold, as the role sees the index (its row-level
    /// security, expired items left out): their results name their host (`QueryResult.host`).
    /// Decided over the index, not over the answer, so that a path prints the same on every
    /// page and with any `--limit`. One statement after the query's (whose own SQL is
    /// unchanged): a lookup of the page's paths by the path index, which the server skips
    /// (a one-time filter) when the index has one host.
    func heldByOtherHosts(_ paths: [[UInt8]], _ spec: QuerySpec) throws(QueryError) -> Set<[UInt8]> {
        guard !paths.isEmpty else { return [] }
        let rows = try query("""
            SELECT path FROM items
            WHERE (SELECT count(*) FROM hosts) > 1 AND path = ANY($1::bytea[]) AND (expiration IS NULL OR expiration > $2)
            GROUP BY path HAVING count(DISTINCT host) > 1
            """, [.byteArrays(Array(Set(paths))), .double(spec.now.timeIntervalSince1970)], spec)
        return Set(rows.compactMap { $0.bytes("path") })
    }

    /// The matching rows' identifiers (for counts and summaries), the residual test applied.
    func matches(_ spec: QuerySpec) throws(QueryError) -> [Candidate] {
        var all = spec
        all.limit = nil
        all.offset = 0
        all.sort = .modified
        all.snippet = false
        let (sql, values, residual, leaves, _) = select(all)
        guard let sql else { return [] }
        let predicate = spec.predicate.simplified
        var out: [Candidate] = []
        for row in try query(sql, values, spec) {
            let candidate = Candidate(row.makeRandomAccess(), leafCount: residual ? leaves : 0)
            if residual {
                var index = 0
                guard Self.evaluate(predicate, candidate, &index) else { continue }
            }
            out.append(candidate)
        }
        return out
    }

    /// The rows of the spec's filter (no ranking) as `FROM … WHERE …`, when the server decides
    /// it all; nil when a residual test must run here.
    func serverFilter(_ spec: QuerySpec) -> (from: String, values: [SQLValue])? {
        let predicate = spec.predicate.simplified
        var b = SharedSQLBuilder()
        var conditions = [b.condition(predicate)]
        guard !b.residual else { return nil }
        conditions.append("(items.expiration IS NULL OR items.expiration > \(b.bind(.double(spec.now.timeIntervalSince1970))))")
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        return ("FROM items WHERE " + conditions.joined(separator: " AND "), b.values)
    }

    // Summaries ignore `keep`: the pipeline checks no file on disk for the shared index (its
    // files may be on other hosts), so it would keep every item anyway.
    public func count(_ spec: QuerySpec, keep: ItemKeeper?) throws(QueryError) -> Int {
        if spec.predicate.simplified == .none { return 0 }
        if let (from, values) = serverFilter(spec) {
            let rows = try query("SELECT count(*) AS n " + from, values, spec)
            return Int((try? rows.first?.makeRandomAccess()["n"].decode(Int64.self)) ?? 0)
        }
        return try matches(spec).count
    }

    public func groupCounts(_ spec: QuerySpec, by group: GroupKey, keep: ItemKeeper?) throws(QueryError) -> [GroupCount] {
        if case .fullText = SQLBuilder.storage(of: group.key), group.derivedExpression == nil {
            throw .badValue(attribute: group.key.rawValue, value: "--group-by", reason: "cannot be grouped: it is free text; group by an attribute such as kind, authors or contentModificationDate")
        }
        var counts: [String?: Int] = [:]
        // Attributes in a column, and the type tree, are counted by the server.
        let serverColumn: String? = switch SQLBuilder.storage(of: group.key) {
        case .typeTree: "unnest(items.types)"
        case .column where group.key.valueType != .date && group.derivedExpression == nil && group.key != .path:
            SharedSQLBuilder.columns[group.key]
        default: nil
        }
        if spec.predicate.simplified == .none { return [] }
        if let serverColumn, let (from, values) = serverFilter(spec) {
            for row in try query("SELECT \(serverColumn)::text AS v, count(*) AS n \(from) GROUP BY 1", values, spec) {
                let r = row.makeRandomAccess()
                counts[try? r["v"].decode(String.self), default: 0] += Int((try? r["n"].decode(Int64.self)) ?? 0)
            }
        } else {
            for var c in try matches(spec) {
                for v in c.groupValues(group) { counts[v, default: 0] += 1 }
            }
        }
        // As SQLite orders them: most first, then the value (NULL first, then bytes).
        return counts.map { GroupCount(value: $0.key, count: $0.value) }.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            guard let av = a.value else { return b.value != nil }
            guard let bv = b.value else { return false }
            return Array(av.utf8).lexicographicallyPrecedes(Array(bv.utf8))
        }
    }

    public func statistics(_ spec: QuerySpec, of key: AttributeKey, keep: ItemKeeper?) throws(QueryError) -> AttributeStatistics {
        switch (SQLBuilder.storage(of: key), key.valueType) {
        case (.column, .integer?), (.column, .double?), (.column, .date?), (.json, .integer?), (.json, .double?), (.json, .bool?), (.json, .date?):
            break
        default:
            throw .badValue(attribute: key.rawValue, value: "--stats", reason: "holds text: --stats needs a number or a date (such as fileSize, pixelWidth, duration, contentModificationDate); use --group-by for text")
        }
        var total = 0
        var values: [Double] = []
        for var c in try matches(spec) {
            total += 1
            if let v = c.number(key) { values.append(v) }
        }
        return AttributeStatistics(key: key, matches: total, count: values.count, sum: values.isEmpty ? nil : values.reduce(0, +),
                                   minimum: values.min(), maximum: values.max(),
                                   mean: values.isEmpty ? nil : values.reduce(0, +) / Double(values.count))
    }

    public func snippets(_ spec: QuerySpec, rowIDs: [Int64]) throws(QueryError) -> [Int64: String] {
        guard !rowIDs.isEmpty, let pattern = spec.predicate.simplified.splittingText().pattern,
              let q = SharedSQLBuilder.tsquery(pattern) else { return [:] }
        let rows = try query("""
            SELECT id, ts_headline('simple', coalesce(body, title, name), $1::tsquery,
                   'StartSel=\(QueryEngine.snippetStart), StopSel=\(QueryEngine.snippetEnd), MaxWords=12, MinWords=6, ShortWord=0, FragmentDelimiter=…, MaxFragments=1') AS snippet
            FROM items WHERE id = ANY($2::bigint[])
            """, [.text(q), .text("{" + rowIDs.map(String.init).joined(separator: ",") + "}")], spec)
        var out: [Int64: String] = [:]
        for row in rows {
            let r = row.makeRandomAccess()
            if let id = try? r["id"].decode(Int64.self), let s = try? r["snippet"].decode(String.self) { out[id] = s }
        }
        return out
    }

    public func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        let (sql, values, _, _, plan) = select(spec)
        guard let sql else { return plan }
        let steps = try query("EXPLAIN " + sql, values, spec).compactMap { row in
            (try? row.makeRandomAccess()["QUERY PLAN"].decode(String.self)).map { "  " + $0 }
        }
        return plan + ["database plan (PostgreSQL at \(url)):"] + steps
    }

    public func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String] {
        guard !identifiers.isEmpty else { return [:] }
        var out: [[UInt8]: String] = [:]
        for row in try query("SELECT path, attributes ->> 'contentURL' AS url FROM items WHERE path = ANY($1)", [.byteArrays(identifiers)], nil) {
            if let path = row.bytes("path"), let url = row.value("url", as: String.self) { out[path] = url }
        }
        return out
    }

    public func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem? {
        let host = SharedPublisher.hostName()
        let rows = try query("""
            SELECT domain, attributes::text AS attributes, body, expiration FROM items
            WHERE path = $1 AND (expiration IS NULL OR expiration > $2) ORDER BY (host = $3) DESC LIMIT 1
            """, [.bytes(identifier.bytes), .double(Date().timeIntervalSince1970), .text(host)], nil)
        guard let row = rows.first, let json = row.value("attributes", as: String.self),
              var attributes = try? IndexStore.attributes(json: json) else { return nil }
        if let body = row.value("body", as: String.self) { attributes.textContent = body }
        return SearchableItem(uniqueIdentifier: identifier, domainIdentifier: row.value("domain", as: String.self) ?? "",
                              attributes: attributes, expirationDate: row.value("expiration", as: Double.self).map { Date(timeIntervalSince1970: $0) })
    }
}

extension QueryPipeline {
    /// Opens the shared index on a PostgreSQL server: answers come as the URL's role sees them,
    /// and nothing is repaired (each watcher keeps its own host's files in step).
    public static func open(url: SharedIndexURL) throws(QueryError) -> QueryPipeline {
        QueryPipeline(engine: try SharedQueryEngine(url: url), repair: NoRepair())
    }
}
