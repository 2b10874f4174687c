import Attributes
import FoundationEssentials

/// A validated, high-level query, built by the command line (`fsfind`) and run by `QueryEngine`.
///
/// The filter is a predicate tree so that the full query language (a later stage) compiles to the
/// same tree; the first commands use words, a name substring and `--onlyin` folders.
public struct QuerySpec: Sendable, Hashable {
    public var predicate: ItemPredicate
    /// Folders (absolute path bytes) that results must be inside; empty means anywhere.
    public var onlyIn: [[UInt8]]
    public var limit: Int?
    /// The instant expiration is judged against.
    public var now: Date
    /// A file whose whole name equals this (case-insensitive) ranks first: the words as typed,
    /// or the `--name` text.
    public var exactNameHint: String?
    /// Whether results carry their stored attributes. Decoding them costs more than the search
    /// itself for queries with many hits, so plain path output leaves them out.
    public var includeAttributes: Bool

    public init(predicate: ItemPredicate, onlyIn: [[UInt8]] = [], limit: Int? = nil, now: Date = Date(),
                exactNameHint: String? = nil, includeAttributes: Bool = true) {
        self.includeAttributes = includeAttributes
        self.predicate = predicate
        self.exactNameHint = exactNameHint
        self.onlyIn = onlyIn
        self.limit = limit
        self.now = now
    }
}

/// A filter over items. `text` predicates are answered by the FTS5 index; the rest by columns.
public indirect enum ItemPredicate: Sendable, Hashable {
    /// Every item.
    case all
    /// Full-text words over name, title, other text attributes and text.
    case text(SearchPattern)
    /// The file name contains this text (case-insensitive), like `mdfind -name`.
    case nameContains(String)
    /// The item's type is this one or conforms to it (`contentTypeTree`).
    case conformsTo(ContentType)
    /// One of these items (for live queries: which of the changed items match now).
    case identifiers([[UInt8]])
    case and([ItemPredicate])
    case or([ItemPredicate])
    case not(ItemPredicate)

    /// The full-text pattern that ranks results: the first `text` found through `and`s.
    var rankingPattern: SearchPattern? {
        switch self {
        case .text(let p): p
        case .and(let parts): parts.lazy.compactMap(\.rankingPattern).first
        default: nil
        }
    }
}

/// A bad query, with what to do about it.
public enum QueryError: Error, Sendable, CustomStringConvertible {
    case nothingToSearch(String)
    case index(String)

    public var description: String {
        switch self {
        case .nothingToSearch(let q): "the query \"\(q)\" has no letters or digits to search for"
        case .index(let message): message
        }
    }
}
