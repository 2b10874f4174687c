import Attributes
import FoundationEssentials
import GRDB
import Indexing

/// Runs a `QuerySpec` against an `IndexStore`.
///
/// Ranking, best first: an exact name match (case-insensitive), then bm25 over the weighted
/// full-text columns (name ten times the body, see `Schema.bm25Weights`), then the path for a
/// stable order. Queries without words order name matches by name length, then path.
///
/// Cost: bm25 is computed for every item that matches the words before the best ones are
/// picked, so a very common word costs time proportional to its hits.
public struct QueryEngine: Sendable {
    public let store: IndexStore

    public init(store: IndexStore) { self.store = store }

    public func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        var b = SQLBuilder()
        let ranking = spec.predicate.rankingPattern
        var sql: String
        let attributesColumn = spec.includeAttributes ? "items.attributes" : "NULL AS attributes"
        var conditions: [String] = []
        if let ranking {
            sql = """
                SELECT items.id, items.path, items.domain, items.name, \(attributesColumn),
                       bm25(items_fts, 10.0, 5.0, 3.0, 1.0) AS score
                FROM items_fts JOIN items ON items.id = items_fts.rowid
                """
            b.appendArgument(ranking.fts5)
            conditions.append("items_fts MATCH ?")
            let rest = spec.predicate.removing(ranking)
            if rest != .all { conditions.append(b.condition(rest)) }
        } else {
            sql = "SELECT items.id, items.path, items.domain, items.name, \(attributesColumn), 0.0 AS score FROM items"
            conditions.append(b.condition(spec.predicate))
        }
        conditions.append("(items.expiration IS NULL OR items.expiration > ?)")
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        sql += " WHERE " + conditions.joined(separator: " AND ")

        let exact = spec.exactNameHint
        var order: [String] = []
        if let exact {
            order.append("(items.name = ? COLLATE NOCASE) DESC")
            b.appendArgument(exact)
        }
        order.append(ranking != nil ? "score" : "length(items.name)")
        order.append("items.path")
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = spec.limit {
            sql += " LIMIT ?"
            b.appendArgument(limit)
        }
        let args = StatementArguments(b.arguments.map { $0.databaseValue })
        do {
            return try store.read { db in
                try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                    let path: Data = row["path"]
                    let attributes = spec.includeAttributes
                        ? (try? IndexStore.attributes(json: row["attributes"])) ?? AttributeSet() : AttributeSet()
                    return QueryResult(identifier: ItemIdentifier(bytes: Array(path)), domain: row["domain"],
                                       attributes: attributes, score: row["score"])
                }
            }
        } catch {
            throw .index(error.description)
        }
    }

    /// How many items match (without fetching them).
    public func count(_ spec: QuerySpec) throws(QueryError) -> Int {
        var b = SQLBuilder()
        var conditions = [b.condition(spec.predicate), "(items.expiration IS NULL OR items.expiration > ?)"]
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        let sql = "SELECT count(*) FROM items WHERE " + conditions.joined(separator: " AND ")
        let args = StatementArguments(b.arguments.map { $0.databaseValue })
        do {
            return try store.read { db in try Int.fetchOne(db, sql: sql, arguments: args) ?? 0 }
        } catch {
            throw .index(error.description)
        }
    }
}

extension SQLBuilder {
    mutating func appendArgument(_ v: any DatabaseValueConvertible) { arguments.append(v) }
}

extension ItemPredicate {
    /// This predicate without the given text pattern (used once the pattern drives the FTS join).
    func removing(_ pattern: SearchPattern) -> ItemPredicate {
        switch self {
        case .text(let p) where p == pattern: return .all
        case .and(let parts):
            var out: [ItemPredicate] = []
            var removed = false
            for part in parts {
                if !removed, case .text(let p) = part, p == pattern { removed = true; continue }
                out.append(part)
            }
            return out.isEmpty ? .all : (out.count == 1 ? out[0] : .and(out))
        default: return self
        }
    }
}
