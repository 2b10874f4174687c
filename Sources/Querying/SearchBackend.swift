import Attributes
import Indexing

/// What `QueryPipeline` needs of an index: the embedded SQLite one (`QueryEngine`) or the shared
/// PostgreSQL one (`SharedQueryEngine`). Both answer the same `QuerySpec`s, compiled once from the
/// same query language, so every front end works unchanged on either.
public protocol SearchBackend: Sendable {
    func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult]
    func count(_ spec: QuerySpec, keep: ItemKeeper?) throws(QueryError) -> Int
    func groupCounts(_ spec: QuerySpec, by group: GroupKey, keep: ItemKeeper?) throws(QueryError) -> [GroupCount]
    func statistics(_ spec: QuerySpec, of key: AttributeKey, keep: ItemKeeper?) throws(QueryError) -> AttributeStatistics
    func snippets(_ spec: QuerySpec, rowIDs: [Int64]) throws(QueryError) -> [Int64: String]
    func explain(_ spec: QuerySpec) throws(QueryError) -> [String]
    /// The `contentURL` of donated items, by identifier.
    func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String]
    /// One item with its text, or nil.
    func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem?
    /// Whether results are files on this machine, which the pipeline checks on disk. The
    /// shared index holds other hosts' files too: it decides who sees what itself.
    var checksFilesOnDisk: Bool { get }
}

extension QueryEngine: SearchBackend {
    public func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String] {
        do { return try store.contentURLs(identifiers) } catch { throw .index(error.description) }
    }

    public func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem? {
        do { return try store.item(identifier) } catch { throw .index(error.description) }
    }

    public var checksFilesOnDisk: Bool { true }
}
