import Attributes

/// One hit: the item's identifier (path bytes), its stored attributes (without text) and score.
public struct QueryResult: Sendable, Hashable {
    public var identifier: ItemIdentifier
    public var domain: String
    public var attributes: AttributeSet
    /// Lower is better (bm25 convention); 0 for queries without words.
    public var score: Double
}
