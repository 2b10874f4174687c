import Attributes
import Foundation
import Indexing

/// What a front end asks of the index, in the front end's own terms: the query text as typed,
/// folders, order, a page, the attributes to fetch, and which answer it wants. `fsfind`, the
/// MCP server and the application socket all build one of these and read the same replies
/// (`QueryReply`) from `QueryPipeline`, so no front end carries query logic of its own.
package struct QueryRequest: Sendable, Hashable {
    /// The answer wanted: the items themselves, or a summary of them.
    package enum Answer: Sendable, Hashable {
        case items
        case count
        /// Match counts per value of an attribute (`GroupKey.parse` reads `kind`, `month`,
        /// `modified:week`).
        case table(GroupKey)
        case statistic(AttributeKey)
    }

    /// Query text in either form (Spotlight's or the short form, mixed); may be empty when
    /// `name` is given or the answer is a table or statistic over everything.
    package var text: String
    /// Take `text` as plain words: no fields, operators or quotes.
    package var literal: Bool
    /// Names containing this text (like `mdfind -name`).
    package var name: String?
    /// Folders (absolute path bytes) results must be inside; empty means anywhere.
    package var scopes: [[UInt8]]
    package var sort: SortOrder
    package var reverse: Bool
    /// Results to return at most, counted after the existence check and per-file de-duplication.
    package var limit: Int?
    /// Results to skip first, counted the same way.
    package var offset: Int
    /// Attributes each item carries; empty for identifiers alone (the cheapest).
    package var fetchAttributes: [AttributeKey]
    /// Whether items carry the text around the matched words.
    package var snippet: Bool
    /// Whether items inside a file (the messages of an mbox) are given once per file, as the
    /// file (paths to print), or each on its own (with its key).
    package var onePerFile: Bool
    package var answer: Answer
    package var ranking: RankingWeights
    package var now: Date
    /// Seconds the query may run (`[query] time_limit`); nil: no limit.
    package var timeLimit: Double?
    /// A condition every result must also meet, whatever the text asks: the kinds an agent's
    /// guidance allows (`fsindex-mcp --guidance focused:pdf`). Not part of the text, so an error
    /// in the text still points into the text as typed.
    package var restriction: ItemPredicate?
    /// Only items of these domains (`fsfind --domain notes`); empty: any.
    package var domains: [String] = []
    /// Whether plain words that read as a question go through `QuestionRouter`'s stages
    /// (`[query] questions`); false: every query runs as typed only.
    package var questions = true
    /// Whether a question's second stage also ranks by meaning (`[query] semantic`).
    package var semantic = true
    /// Who `me` is in `from:me`, `author:me` and `to:me` (`Identity.resolve`); nil: `me` is an error.
    package var identity: Identity?

    package init(text: String = "", literal: Bool = false, name: String? = nil, scopes: [[UInt8]] = [],
                sort: SortOrder = .relevance, reverse: Bool = false, limit: Int? = nil, offset: Int = 0,
                fetchAttributes: [AttributeKey] = [], snippet: Bool = false, onePerFile: Bool = false,
                answer: Answer = .items, ranking: RankingWeights = RankingWeights(), now: Date = Date(),
                timeLimit: Double? = nil, identity: Identity? = nil) {
        self.timeLimit = timeLimit
        self.identity = identity
        self.text = text
        self.literal = literal
        self.name = name
        self.scopes = scopes
        self.sort = sort
        self.reverse = reverse
        self.limit = limit
        self.offset = offset
        self.fetchAttributes = fetchAttributes
        self.snippet = snippet
        self.onePerFile = onePerFile
        self.answer = answer
        self.ranking = ranking
        self.now = now
    }

    /// The compiled query: text and name parsed into one predicate, with the page left to the
    /// pipeline (which pages over results it has checked).
    package func makeSpec() throws(QueryError) -> QuerySpec {
        let deadline = timeLimit.map { QueryDeadline(seconds: $0) }
        var parts: [ItemPredicate] = []
        var hint: String?
        var question: [String]?
        if !text.trimmingCharacters(in: .whitespaces).isEmpty {
            let parsed = try ShortQueryParser.parse(text, literal: literal, identity: identity)
            parts.append(parsed.predicate)
            hint = parsed.nameHint
            if let words = parsed.plainWords, QuestionRouter.isQuestion(words) { question = words }
        }
        if let name {
            guard !name.isEmpty else { throw .badValue(attribute: "name", value: name, reason: "must not be empty") }
            parts.append(.nameContains(name))
            hint = name
        }
        if parts.isEmpty, domains.isEmpty, answer == .items || answer == .count {
            throw .nothingToSearch(text)
        }
        if let restriction { parts.append(restriction) }
        if !domains.isEmpty { parts.append(.or(domains.map { .domain($0) })) }
        var spec = QuerySpec(predicate: parts.isEmpty ? .all : (parts.count == 1 ? parts[0] : .and(parts)), onlyIn: scopes,
                             now: now, exactNameHint: hint, includeAttributes: !fetchAttributes.isEmpty, sort: sort,
                             reverse: reverse, snippet: snippet, ranking: ranking, deadline: deadline)
        if sort == .relevance, name == nil, questions {
            spec.question = question
            spec.semantic = semantic
        }
        return spec
    }
}

extension GroupKey {
    /// A group-by as people write it: an attribute (`kind`, `kMDItemContentType`, `author`), a
    /// date attribute and a period (`modified:week`), or a period alone (`month`: by when the
    /// file changed).
    package static func parse(_ text: String) throws(QueryError) -> GroupKey {
        switch text.lowercased() {
        case "extension", "ext": return .fileExtension
        case "folder", "dir": return .folder
        default: break
        }
        let spelled = Period(rawValue: text.lowercased()) != nil ? "modified:" + text : text
        let parts = spelled.split(separator: ":", maxSplits: 1).map(String.init)
        let key = try AttributeNames.resolveForCommand(parts.first ?? spelled)
        guard parts.count == 2 else { return GroupKey(key, period: .month) }
        guard let period = Period(rawValue: parts[1].lowercased()), key.valueType == .date else {
            throw .badValue(attribute: "group-by", value: text,
                            reason: "takes a period (day, week, month, year) only after a date attribute, as modified:month")
        }
        return GroupKey(key, period: period)
    }
}

extension AttributeNames {
    /// An attribute named by a person or a program: ours, Spotlight's `kMDItem…` or a short alias
    /// (`width`, `pages`, `size`).
    package static func resolveForCommand(_ name: String) throws(QueryError) -> AttributeKey {
        if let k = ShortQueryParser.aliases[name.lowercased()] { return k }
        do { return try resolve(name) } catch { throw .unknownAttribute(error) }
    }
}

/// One answer from `QueryPipeline`, marked partial (more follows) or final.
package struct QueryReply: Sendable, Hashable {
    package enum Content: Sendable, Hashable {
        /// Items in order (one page of the results, or the current results of a live query).
        case items([FoundItem])
        case count(Int)
        case table([GroupCount])
        case statistic(AttributeKey, AttributeStatistics)
        /// A live query's change: items that started matching and items that stopped.
        case changes(added: [FoundItem], removed: [FoundItem])
        /// A live query's items whose `textContentSummary` arrived (they matched before and still do).
        case summarized([FoundItem])
        /// A live query's items whose `isPriority` changed (they matched before and still do;
        /// `fsfind --live` prints them as `! PATH`).
        case prioritized([FoundItem])
    }

    package var content: Content
    /// False while more replies follow (a live query's replies are never final).
    package var isFinal: Bool

    package init(_ content: Content, isFinal: Bool) {
        self.content = content
        self.isFinal = isFinal
    }
}

/// One result as front ends show it: the file's path, the key of an item inside it, the fetched
/// attributes, a score (higher is better) and a snippet.
package struct FoundItem: Sendable, Hashable {
    /// The file's path bytes (for an item inside a file, the file's).
    package var path: [UInt8]
    /// The key of an item inside the file (`message/3`), or nil for the file itself.
    package var childKey: String?
    /// The fetched attributes (only those asked for).
    package var attributes: AttributeSet
    /// Higher is better.
    package var score: Double
    /// The text around the matched words, each between `QueryEngine.snippetStart` and `snippetEnd`.
    package var snippet: String?
    /// The host that holds the item, when the shared index has the same path on another host
    /// (`QueryResult.host`); nil otherwise.
    package var host: String?
    /// The volume it is on (`MergedBackend`), offline or not; nil for the home index.
    package var origin: ResultOrigin?
    /// Which of a question's stages found it (`QuestionRouter`); nil for any other query.
    package var stage: QuestionRouter.Stage?

    package init(path: [UInt8], childKey: String? = nil, attributes: AttributeSet = AttributeSet(), score: Double = 0,
                snippet: String? = nil, host: String? = nil) {
        self.host = host
        self.path = path
        self.childKey = childKey
        self.attributes = attributes
        self.score = score
        self.snippet = snippet
    }

    /// The item's identifier in the index (`path`, or `path NUL key`).
    package var identifier: [UInt8] {
        guard let childKey else { return path }
        return ItemIdentifier.child(of: path, key: childKey).bytes
    }

    /// From an identifier and what the engine found.
    init(_ r: QueryResult, fetch: [AttributeKey]) {
        let (file, key) = ItemIdentifier.split(r.identifier.bytes)
        var chosen = AttributeSet()
        for k in fetch { chosen[k] = r.attributes[k] }
        self.init(path: file, childKey: key, attributes: chosen, score: Self.displayScore(r.score), snippet: r.snippet, host: r.host)
        origin = r.origin
        stage = r.stage
    }

    /// Scores as people read them: higher is better (bm25 is negative, lower better).
    static func displayScore(_ bm25: Double) -> Double {
        (-bm25 * 1000).rounded() / 1000 + 0.0   // + 0.0: never -0
    }
}
