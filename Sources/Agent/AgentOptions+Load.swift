import Attributes
import CommandSupport
import Configuration
import Indexing
import LocalIndex
import Querying
import SystemPackage

extension AgentOptions {
    /// The options of a server: the command line's, over `[agent]` of the config, over the
    /// built-in defaults (`settings`, loaded by the front end like every tool's). Scopes default
    /// to the index's roots.
    package static func load(settings: Settings, location: IndexLocation, scopes: [String], maxResults: Int?,
                            format: String?, guidance: String?) throws(AgentError) -> AgentOptions {
        let agent = settings.agent
        let formatText = format ?? agent.format
        guard let f = Format(rawValue: formatText) else { throw .options("format \"\(formatText)\" is not full or compact") }
        var scopeSet = try ScopeSet(folders: scopes.isEmpty ? agent.scopes : scopes)
        if scopeSet.isEmpty {
            // The index's roots: what it holds.
            let roots: [[UInt8]]
            do { roots = try IndexStore(location: location, readOnly: true).domains().map(\.root) } catch {
                throw .options("no scope given and the index at \(location.directory.string) cannot be read (\(error.description)); give --scope DIR or run `fsindex index DIR` first")
            }
            scopeSet = ScopeSet(resolved: roots)
            guard !scopeSet.isEmpty else {
                throw .options("no scope given and the index at \(location.directory.string) has no roots; give --scope DIR or run `fsindex index DIR` first")
            }
        }
        var options = try AgentOptions(scopes: scopeSet, maxResults: maxResults ?? agent.maxResults, format: f,
                                guidance: try Guidance.parse(guidance ?? agent.guidance),
                                identity: Identity.resolve(configured: agent.me),
                                ranking: RankingWeights(settings.query), timeLimit: settings.query.timeLimit)
        options.sharedURL = settings.index.sharedURL(explicit: nil)
        options.questions = settings.query.questions
        options.semantic = settings.query.semantic
        return options
    }
}

