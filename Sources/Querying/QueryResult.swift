import Attributes

/// One hit: the item's identifier (path bytes), its stored attributes (without text) and score.
package struct QueryResult: Sendable, Hashable {
    package var identifier: ItemIdentifier
    package var domain: String
    package var attributes: AttributeSet
    /// Lower is better (bm25 convention); 0 for queries without words.
    package var score: Double
    /// Text around the matched words, each word between `QueryEngine.snippetStart` and
    /// `snippetEnd`; nil unless asked for and the query has words.
    package var snippet: String?
    /// The item's row in the index, to fetch its snippet later (`QueryEngine.snippets`).
    package var rowID: Int64
    /// The host that indexed the item, where it must be said: in the shared index, when
    /// another host the querying role may see holds the same path (`HOST:PATH` in fsfind's
    /// output). Nil otherwise, and always for the local index.
    package var host: String?
    /// The volume it is on, when several indexes answer (`MergedBackend`); nil for the home index.
    package var origin: ResultOrigin?
    /// Which of a question's stages found it (`QuestionRouter`); nil for any other query.
    package var stage: QuestionRouter.Stage?

    package init(identifier: ItemIdentifier, domain: String, attributes: AttributeSet, score: Double, snippet: String? = nil,
                rowID: Int64 = 0, host: String? = nil) {
        self.rowID = rowID
        self.host = host
        self.identifier = identifier
        self.domain = domain
        self.attributes = attributes
        self.score = score
        self.snippet = snippet
    }
}
