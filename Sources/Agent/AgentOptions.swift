import Attributes
import Configuration
import Querying

/// How this server answers: its folders, its cap on results, its format, its guidance and who
/// "me" is. Built once at start from the command line over `[agent]` of the config; every tool
/// call is bounded by it.
package struct AgentOptions: Sendable {
    /// `full`: one JSON object per item. `compact`: one line per item, for small context windows.
    package enum Format: String, Sendable, Hashable, CaseIterable {
        case full, compact
    }

    /// The most results one call may return, whatever the host or the model asks.
    package static let resultCap = 200

    package var scopes: ScopeSet
    /// Results per search unless the call asks for fewer (1...`resultCap`).
    package var maxResults: Int
    package var format: Format
    package var guidance: Guidance
    /// Who "me" is in `from:me`, `author:me`, `to:me`; nil when nothing says.
    package var identity: Identity?
    package var ranking: RankingWeights
    /// Seconds one query may run.
    package var timeLimit: Double
    /// `[query] questions`: whether questions go through `QuestionRouter`'s stages.
    package var questions = true
    /// `[query] semantic`: whether a question's second stage also ranks by meaning.
    package var semantic = true
    /// The shared PostgreSQL index to query instead of the local one (`[index] url`, `--index-url`).
    package var sharedURL: String?

    package init(scopes: ScopeSet, maxResults: Int = 20, format: Format = .full, guidance: Guidance = .complete,
                identity: Identity? = nil, ranking: RankingWeights = RankingWeights(), timeLimit: Double = 10) throws(AgentError) {
        guard (1...Self.resultCap).contains(maxResults) else {
            throw .options("max-results must be from 1 to \(Self.resultCap) (it is \(maxResults))")
        }
        self.scopes = scopes
        self.maxResults = maxResults
        self.format = format
        self.guidance = guidance
        self.identity = identity
        self.ranking = ranking
        self.timeLimit = timeLimit
    }
}
