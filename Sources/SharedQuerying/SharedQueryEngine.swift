import Attributes
import Foundation
import Indexing
import PostgresNIO
import Querying
import SharedIndex
import Synchronization
import Glibc

/// Runs `QuerySpec`s against the shared PostgreSQL index: the same query language, the same
/// answers as `QueryEngine` on SQLite (see `SharedSQLBuilder` for how), ranked by the same rule
/// with `ts_rank` in place of bm25, which orders equally relevant items alike but weighs
/// frequencies otherwise (fsindex-query(7), RANKING).
///
/// Rows are filtered by the server's row-level security: a role sees what the user of the same
/// name may read on the host that indexed each file.
package final class SharedQueryEngine: SearchBackend, @unchecked Sendable {
    package let url: SharedIndexURL
    /// The connection, one statement at a time.
    private let session: Mutex<Session>
    private struct Session {
        var link: PostgresLink
        /// The session's statement_timeout in ms (0: none), as this engine last set it.
        var timeout = 0
    }
    /// What the shared index has (the RUM index on words), as the schema check found it.
    let features: SharedSchema.Features

    package init(url: SharedIndexURL) throws(QueryError) {
        self.url = url
        do {
            let link = try PostgresLink.connect(url)
            features = try SharedSchema.check(link)
            session = Mutex(Session(link: link))
        } catch {
            throw .index(error.description, cause: error)
        }
    }

    package var checksFilesOnDisk: Bool { false }

    /// One element per batch committed to the shared index from now on (a connection of its
    /// own LISTENs on `fsindex_items`); it ends when the connection is lost.
    package func changes() throws(QueryError) -> ChangeFeed { .batches(try notifications()) }

    /// The notifications behind `changes()`.
    package func notifications() throws(QueryError) -> AsyncStream<Void> {
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
        try session.withLock { (s) throws(QueryError) -> [PostgresRow] in try query(sql, values, spec, &s) }
    }

    private func query(_ sql: String, _ values: [SQLValue], _ spec: QuerySpec?, _ s: inout Session) throws(QueryError) -> [PostgresRow] {
        if let deadline = spec?.deadline, deadline.hasPassed { throw .timeLimit(seconds: deadline.seconds) }
        do {
            if s.link.isClosed {
                s = Session(link: try PostgresLink.connect(url))
            }
            // The session's statement_timeout is set when it must change, and left as it is after
            // the statement: a round trip less per query (fsfind makes one query, then exits).
            var ms = 0
            if let deadline = spec?.deadline {
                let left = ContinuousClock.now.duration(to: deadline.instant)
                ms = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            }
            if ms != s.timeout {
                try s.link.execute("SET statement_timeout = \(ms)")
                s.timeout = ms
            }
            return try s.link.query(sql, values)
        } catch {
            if case .server(_, "57014", _) = error, let deadline = spec?.deadline { throw .timeLimit(seconds: deadline.seconds) }
            throw .index(error.description, cause: error)
        }
    }

    static let rowColumns = "items.id, items.host, items.path, items.domain, items.attributes::text AS attributes, items.types, items.name, items.title, items.other, NULL::text AS body"
    /// `rowColumns` with the text itself, which only a residual test reads: a page of 20
    /// results otherwise brought up to 120 KB of text it did not print (3–4 ms of a query).
    static let rowColumnsWithText = rowColumns.replacingOccurrences(of: "NULL::text AS body", with: "items.body")

    /// The pieces of a spec's query, before they are put together: `select` makes the query
    /// that lists every match in order; `SharedWordRanking` the one that ranks the RUM index's
    /// best matches only.
    struct QueryParts {
        var b = SharedSQLBuilder()
        var conditions: [String] = []
        /// ts_rank times the boosts, negated (best first in ascending order); "0.0" without words.
        var score = "0.0"
        /// The bound tsquery (`$n::tsquery`) and its text, when the query has words.
        var query: String?
        var tsquery: String?
        /// The exact-name test, when the order starts with it.
        var exactName: String?
        var order: [OrderTerm] = []
        var residual = false
        var leafColumns = ""
        var leafCount = 0
        var plan: [String] = []

        /// The ORDER BY clause. A column that is never NULL is ordered without NULLS FIRST or
        /// LAST, so that an index in its plain order (`items_name_length`, the path) gives it.
        func orderBy(reverse: Bool) -> String {
            " ORDER BY " + order.map { o in
                let asc = o.ascending != reverse
                guard o.nullable else { return "\(o.sql) \(asc ? "ASC" : "DESC")" }
                return "\(o.sql) \(asc ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
            }.joined(separator: ", ")
        }
    }

    struct OrderTerm {
        var sql: String
        var ascending: Bool
        var nullable = true
    }

    /// The ts_rank weights of words in the name, title, other text attributes and text
    /// (PostgreSQL's order: D, C, B, A), as fsindex-query(7) RANKING documents them. They are
    /// RUM's own fixed weights, so that RUM's order of one word's matches is this ranking's
    /// order before boosts, and a page of RUM's best matches can be proven with nothing lost to
    /// a bound (`SharedWordRanking`). With 0.5 and 0.3 for title and other attributes, ours
    /// was up to 1.5 times RUM's score, and items that tie (the same text, as copies have)
    /// failed that proof at 1 M items.
    static let rankWeights = [0.1, 0.2, 0.4, 1.0]

    func parts(_ spec: QuerySpec) -> QueryParts? {
        let predicate = spec.predicate.simplified
        if predicate == .none { return nil }
        var p = QueryParts()
        let (pattern, rest) = predicate.splittingText()
        if let pattern, let q = SharedSQLBuilder.tsquery(pattern) {
            let query = p.b.bind(.text(q)) + "::tsquery"
            p.query = query
            p.tsquery = q
            p.conditions.append("items.words @@ \(query)")
            p.score = "-ts_rank('{\(Self.rankWeights.map { String($0) }.joined(separator: ", "))}', items.words, \(query))"
            let w = spec.ranking
            if w.recency != 0 || w.usage != 0 {
                let now = p.b.bind(.double(spec.now.timeIntervalSince1970)), d = p.b.bind(.double(w.decaySeconds))
                let r = p.b.bind(.double(w.recency)), u = p.b.bind(.double(w.usage))
                p.score += " * (1.0 + \(r) * \(d) / (\(d) + greatest(0.0, \(now) - coalesce(items.modified, 0.0))) + \(u) * \(d) / (\(d) + greatest(0.0, \(now) - coalesce(items.used, 0.0))))"
            }
            p.plan.append("full-text search: \(q)")
            if rest != .all {
                p.conditions.append(p.b.condition(rest))
                p.plan.append("then keep items where \(rest)")
            }
        } else if pattern != nil {
            var p = QueryParts()
            p.plan = ["the words hold nothing the index can search"]
            return p
        } else {
            p.conditions.append(p.b.condition(predicate))
            p.plan.append("items where \(predicate)")
        }
        p.conditions.append("(items.expiration IS NULL OR items.expiration > \(p.b.bind(.double(spec.now.timeIntervalSince1970))))")
        if let c = p.b.onlyIn(spec.onlyIn) { p.conditions.append(c) }
        p.residual = p.b.residual
        if p.residual {
            p.b.collectLeaves(predicate)
            p.leafCount = p.b.leaves.count
            p.leafColumns = p.b.leaves.enumerated().map { ", \($0.element) AS l\($0.offset)" }.joined()
            p.plan.append("then Spotlight's wildcard and modifier tests in fsindex, on the rows the server found")
        }
        switch spec.sort {
        case .relevance, .priority:
            if spec.sort == .priority {
                p.order.append(OrderTerm(sql: "coalesce(\(p.b.numeric(.isPriority)), 0.0)", ascending: false, nullable: false))
            }
            if let exact = spec.exactNameHint, !exact.isEmpty {
                let test = "(\(Self.asciiLower("items.name")) = \(Self.asciiLower(p.b.bind(.text(exact)))))"
                if spec.sort == .relevance { p.exactName = test }
                p.order.append(OrderTerm(sql: test, ascending: false, nullable: false))
            }
            if pattern != nil {
                p.order.append(OrderTerm(sql: "score", ascending: true, nullable: false))
                p.plan.append("best first: an exact name, then ts_rank (name, title, subject/authors, text weighted 1, 0.4, 0.2, 0.1) × recency and usage boosts")
            } else if predicate.searchesName {
                p.order.append(OrderTerm(sql: "length(items.name)", ascending: true, nullable: false))
            } else {
                p.order.append(OrderTerm(sql: "items.modified", ascending: false))
            }
        case .name: p.order.append(OrderTerm(sql: "\(Self.asciiLower("items.name")) COLLATE \"C\"", ascending: true, nullable: false))
        case .size: p.order.append(OrderTerm(sql: "items.size", ascending: false))
        case .modified: p.order.append(OrderTerm(sql: "items.modified", ascending: false))
        case .created: p.order.append(OrderTerm(sql: "items.created", ascending: false))
        case .used: p.order.append(OrderTerm(sql: "items.used", ascending: false))
        }
        p.order.append(OrderTerm(sql: "items.path", ascending: true, nullable: false))
        return p
    }

    /// Builds the query of a spec: the SQL, its values, and whether Swift must finish the filter.
    func select(_ spec: QuerySpec) -> (sql: String?, values: [SQLValue], residual: Bool, leaves: Int, plan: [String]) {
        guard var p = parts(spec) else { return (nil, [], false, 0, ["the query cannot match anything"]) }
        guard !p.conditions.isEmpty else { return (nil, [], false, 0, p.plan) }
        let from = " FROM items WHERE " + p.conditions.joined(separator: " AND ")
        var sql = "SELECT \(p.residual ? Self.rowColumnsWithText : Self.rowColumns), \(p.score) AS score\(p.leafColumns)" + from + p.orderBy(reverse: spec.reverse)
        if let named = nameOrdered(spec, &p) {
            sql = named
            p.plan.append(Self.nameOrderedPlan + " (the names in the index itself), each row read only once it matches")
        }
        if !p.residual {
            if let limit = spec.limit { sql += " LIMIT \(p.b.bind(.int(Int64(limit))))" }
            if spec.offset > 0 { sql += " OFFSET \(p.b.bind(.int(Int64(spec.offset))))" }
        }
        return (sql, p.b.values, p.residual, p.leafCount, p.plan)
    }

    /// `fsfind --name PART` with a limit: the matches in `items_name_length`'s order (shorter
    /// names first, then the path), found by an index-only scan of it (the index holds the
    /// name), so the first page reads the index up to its last row and the table for those rows
    /// only, however many names match. Sorting every match by length was the cost before.
    /// The exact name's rank needs no index of its own: a name equal to PART is as short as a
    /// name holding PART can be, so among the rows of that length it sorts first, and an
    /// incremental sort of one length's rows puts it there.
    /// Rows with a path or name of 1 KiB or more are not in that index (an entry holds at most
    /// 2,704 bytes): they are few, found through `items_long_names`, sorted, and merged in.
    /// Nil for other queries (a name with other conditions in the same predicate, wildcards).
    func nameOrdered(_ spec: QuerySpec, _ p: inout QueryParts) -> String? {
        guard spec.sort == .relevance, spec.limit != nil, !p.residual, p.query == nil,
              case .nameContains(let part) = spec.predicate.simplified, !part.utf8.contains(0),
              spec.exactNameHint == nil || spec.exactNameHint == part || spec.exactNameHint == "" else { return nil }
        let like = p.b.bind(.text("%" + SQLBuilder.escapeLike(part) + "%"))
        // The first condition is the name's own; the others (expiration, folders) hold for the rows found.
        let rest = p.conditions.dropFirst()
        var order = [OrderTerm(sql: "c.l", ascending: true, nullable: false)]
        if let exact = p.exactName { order.append(OrderTerm(sql: exact, ascending: false, nullable: false)) }
        order.append(OrderTerm(sql: "c.p", ascending: true, nullable: false))
        var ordered = p
        ordered.order = order
        return "SELECT \(Self.rowColumns), \(p.score) AS score FROM "
            + "((SELECT c.id, length(c.name) AS l, c.path AS p FROM items c WHERE \(Self.shortNames) AND c.name ILIKE \(like) ORDER BY length(c.name), c.path)"
            + " UNION ALL (SELECT c.id, length(c.name) AS l, c.path AS p FROM items c WHERE NOT (\(Self.shortNames)) AND c.name ILIKE \(like) ORDER BY 2, 3)) AS c "
            + "JOIN items ON items.id = c.id" + (rest.isEmpty ? "" : " WHERE " + rest.joined(separator: " AND "))
            + ordered.orderBy(reverse: spec.reverse)
    }

    static let nameOrderedPlan = "shortest names first along items_name_length"

    /// The rows `items_name_length` holds (its predicate, word for word).
    static let shortNames = "octet_length(c.path) < 1024 AND octet_length(c.name) < 1024"

    /// `translate` folds ASCII letters only, as SQLite's NOCASE does.
    static func asciiLower(_ sql: String) -> String {
        "translate(\(sql), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }

    package func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        let rows: [PostgresRow], residual: Bool, leaves: Int
        if let ranked = try rankedWords(spec) {
            (rows, residual, leaves) = (ranked, false, 0)
        } else if let named = try namePage(spec) {
            (rows, residual, leaves) = (named, false, 0)
        } else {
            let (sql, values, r, l, _) = select(spec)
            guard let sql else { return [] }
            (rows, residual, leaves) = (try query(sql, values, spec), r, l)
        }
        var out: [QueryResult] = []
        var skipped = 0
        let predicate = spec.predicate.simplified
        for row in rows {
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
    package func count(_ spec: QuerySpec, keep: ItemKeeper?) throws(QueryError) -> Int {
        if spec.predicate.simplified == .none { return 0 }
        if let (from, values) = serverFilter(spec) {
            let rows = try query("SELECT count(*) AS n " + from, values, spec)
            return Int((try? rows.first?.makeRandomAccess()["n"].decode(Int64.self)) ?? 0)
        }
        return try matches(spec).count
    }

    package func groupCounts(_ spec: QuerySpec, by group: GroupKey, keep: ItemKeeper?) throws(QueryError) -> [GroupCount] {
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

    package func statistics(_ spec: QuerySpec, of key: AttributeKey, keep: ItemKeeper?) throws(QueryError) -> AttributeStatistics {
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

    package func snippets(_ spec: QuerySpec, rowIDs: [Int64]) throws(QueryError) -> [Int64: String] {
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

    package func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        var (sql, values, _, _, plan) = select(spec)
        guard sql != nil else { return plan }
        if let p = parts(spec), let q = p.tsquery, spec.sort == .relevance {
            if !features.rankedWords {
                plan.append("cost: every match is read and ranked: this shared index has no RUM index on words (the server lacks the rum extension, or the role that made the schema could not create it; see fsindex(1), SHARED INDEX)")
            } else if !SharedWordRanking.isOneOperand(q) {
                plan.append("cost: every match is read and ranked: RUM's order bounds ts_rank for one word only")
            } else if let ranking = SharedWordRanking(spec), !p.residual, let round = SharedWordRanking.rounds.first,
                      let (s, v) = SharedWordRanking.statement(p, candidates: max(round.minimum, ranking.wanted * round.factor),
                                                                wanted: ranking.wanted, hint: spec.exactNameHint) {
                plan.append("the RUM index (\(SharedSchema.rankedWordsIndex)) gives the best matches by its score; ts_rank × boosts ranks those, and every match only when that cannot be proven")
                (sql, values) = (s, v)
            }
        }
        if let (statements, v, wanted) = namePageStatements(spec), let first = statements.first {
            plan.removeAll { $0.hasPrefix(Self.nameOrderedPlan) }
            plan.append("shortest names first, a band of lengths at a time, each from its own trigram index (\(statements.map(\.index).joined(separator: ", "))), until the page is full; the plan of the first:")
            (sql, values) = (first.sql + " LIMIT \(wanted)", v)
        }
        let steps = try query("EXPLAIN " + sql!, values, spec).compactMap { row in
            (try? row.makeRandomAccess()["QUERY PLAN"].decode(String.self)).map { "  " + $0 }
        }
        return plan + ["database plan (PostgreSQL at \(url)):"] + steps
    }

    package func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String] {
        guard !identifiers.isEmpty else { return [:] }
        var out: [[UInt8]: String] = [:]
        for row in try query("SELECT path, attributes ->> 'contentURL' AS url FROM items WHERE path = ANY($1)", [.byteArrays(identifiers)], nil) {
            if let path = row.bytes("path"), let url = row.value("url", as: String.self) { out[path] = url }
        }
        return out
    }

    package func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem? {
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
    package static func open(url: SharedIndexURL) throws(QueryError) -> QueryPipeline {
        QueryPipeline(engine: try SharedQueryEngine(url: url), repair: NoRepair())
    }
}
