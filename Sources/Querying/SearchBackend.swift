import Attributes
import Indexing
import SystemPackage

/// What `QueryPipeline` needs of an index: the embedded SQLite one (`QueryEngine`) or the shared
/// PostgreSQL one (`SharedQueryEngine`). Both answer the same `QuerySpec`s, compiled once from the
/// same query language, so every front end works unchanged on either.
package protocol SearchBackend: Sendable {
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
    /// Subscribes to the index's changes from now on, for a live query (`QueryPipeline.live`).
    /// Subscribe before the first answer, so that no change in between is lost. Throws when
    /// nothing publishes this index's changes.
    func changes() throws(QueryError) -> ChangeFeed
}

/// How an index tells of its changes, for a live query.
package enum ChangeFeed: Sendable {
    /// Which items changed, batch by batch (fsindexd's subscription for the SQLite index): a
    /// live query checks only those items against the query.
    case items(AsyncStream<ItemChanges>)
    /// Only that a batch was committed (PostgreSQL's NOTIFY for the shared index): a live query
    /// runs again and compares.
    case batches(AsyncStream<Void>)
}

extension QueryEngine: SearchBackend {
    package func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String] {
        do { return try store.contentURLs(identifiers) } catch { throw .index(error.description, cause: error) }
    }

    package func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem? {
        do { return try store.item(identifier) } catch { throw .index(error.description, cause: error) }
    }

    package var checksFilesOnDisk: Bool { true }

    /// The changes `changeSource` publishes: a SQLite index changes only through its one
    /// writer, fsindexd, whose subscription the front end plugs in.
    package func changes() throws(QueryError) -> ChangeFeed {
        guard let changeSource else {
            throw .index("live results need fsindexd, which publishes the changes of the index at \(store.location.directory.string); start it with `fsindexd`")
        }
        return .items(try changeSource())
    }
}
