import Attributes
import FoundationEssentials
import MemberwiseInit

/// A validated, high-level query, built by the command line (`fsfind`) and run by `QueryEngine`.
///
/// Both query languages (Spotlight's expressions and the short form) compile to the same
/// `ItemPredicate` tree; the rest says which results to return and in what order.
package struct QuerySpec: Sendable, Hashable {
    package var predicate: ItemPredicate
    /// Folders (absolute path bytes) that results must be inside; empty means anywhere.
    package var onlyIn: [[UInt8]]
    package var limit: Int?
    /// Results to skip before the first one returned (paging with `limit`).
    package var offset: Int
    /// The instant expiration and the recency boost are judged against.
    package var now: Date
    /// A file whose whole name equals this (case-insensitive) ranks first: the words as typed,
    /// or the `--name` text.
    package var exactNameHint: String?
    /// Whether results carry their stored attributes. Decoding them costs more than the search
    /// itself for queries with many hits, so plain path output leaves them out.
    package var includeAttributes: Bool
    package var sort: SortOrder
    /// Reverse the sort order.
    package var reverse: Bool
    /// Whether results carry a snippet of the text around the matched words.
    package var snippet: Bool
    package var ranking: RankingWeights
    /// When the query must be done by (`QueryError.timeLimit` after it); nil: no limit.
    package var deadline: QueryDeadline?
    /// The words of a question in plain words (`QuestionRouter`): the query as typed runs
    /// first, then, for a page it did not fill, its content words with their other forms, then
    /// any of them. Nil: the query runs as typed only.
    package var question: [String]? = nil
    /// Whether a question's second stage reorders its best candidates by closeness of meaning
    /// (`QueryEngine.runQuestion`), where the sentence model is installed and items have vectors.
    package var semantic = false

    package init(predicate: ItemPredicate, onlyIn: [[UInt8]] = [], limit: Int? = nil, offset: Int = 0,
                now: Date = Date(), exactNameHint: String? = nil, includeAttributes: Bool = true,
                sort: SortOrder = .relevance, reverse: Bool = false, snippet: Bool = false,
                ranking: RankingWeights = RankingWeights(), deadline: QueryDeadline? = nil) {
        self.deadline = deadline
        self.includeAttributes = includeAttributes
        self.predicate = predicate
        self.exactNameHint = exactNameHint
        self.onlyIn = onlyIn
        self.limit = limit
        self.offset = offset
        self.now = now
        self.sort = sort
        self.reverse = reverse
        self.snippet = snippet
        self.ranking = ranking
    }
}

/// The orders results can come in.
package enum SortOrder: String, Sendable, Hashable, CaseIterable {
    /// Best first: an exact name, then bm25 with the recency and usage boosts. Without words:
    /// shorter names first when a name is searched, else the newest first.
    case relevance
    /// A to Z, ignoring case.
    case name
    /// Largest first.
    case size
    /// Newest first (the file's modification time).
    case modified
    /// Newest first (the file's creation time).
    case created
    /// Most recently used first (`fsindex used`, the desktop's recently-used list); items
    /// never used come last.
    case used
    /// Priority mail first (`isPriority`, decided by the priority pass), then by relevance.
    case priority
}

/// How much recent change and recent use lift a result's text score.
///
/// A result's bm25 score is multiplied by `1 + recency·D/(D + age) + usage·D/(D + unused)`, with
/// D = 30 days: age is the time since the file last changed, unused the time since its last
/// recorded use (`lastUsedDate`: `fsindex used`, or fsindexd reading the desktop's
/// recently-used list). A boost is whole for a file changed now, half at 30 days, a tenth at
/// 270. An item with no recorded use gets no usage boost: the file's access time is not a use
/// (a backup or `grep` moves it, relatime and noatime freeze it). With equal text a newer file
/// comes first; a much better text match still beats a newer file.
@MemberwiseInit
package struct RankingWeights: Sendable, Hashable {
    package var recency: Double = 0.5
    package var usage: Double = 0.25
    /// The age at which a boost has fallen to half.
    package var decaySeconds: Double = 30 * 86400
}

/// A filter over items. `text` predicates are answered by the FTS5 index; the rest by columns,
/// the item-type table or the stored attributes.
package indirect enum ItemPredicate: Sendable, Hashable {
    /// Every item.
    case all
    /// Nothing (a query that cannot match, such as an empty `kind:` list).
    case none
    /// Full-text words over name, title, other text attributes and text.
    case text(SearchPattern)
    /// The file name contains this text (case-insensitive), like `mdfind -name`.
    case nameContains(String)
    /// The item's type is this one or conforms to it (`contentTypeTree`).
    case conformsTo(ContentType)
    /// An attribute compared with a value (`pixelWidth > 1000`, `title == "*report*"c`).
    case compare(AttributeComparison)
    /// The item is inside this folder (absolute path bytes, the folder itself included).
    case inside([UInt8])
    /// Some folder on the item's path has this name (case-insensitive): `dir:src`.
    case folderNamed(String)
    /// One of these items (for live queries: which of the changed items match now).
    case identifiers([[UInt8]])
    /// Items of this domain: an app's (`notes`), or a crawled root's.
    case domain(String)
    case and([ItemPredicate])
    case or([ItemPredicate])
    case not(ItemPredicate)

    /// The full-text pattern that ranks results and drives the FTS join: the `text` parts joined
    /// by the top-level `and` (those on the same columns), and what is left to filter by.
    package func splittingText() -> (pattern: SearchPattern?, rest: ItemPredicate) {
        switch self {
        case .text(let p): return (p, .all)
        case .and(let parts):
            // The groups are gathered first and the pattern made once: joining them one by one
            // would de-duplicate the growing list again for every word (quadratic).
            var first: SearchPattern?
            var groups: [[SearchPattern.Term]] = []
            var rest: [ItemPredicate] = []
            for part in parts {
                if case .text(let p) = part {
                    if let have = first {
                        if have.column == p.column { groups += p.groups; continue }
                    } else {
                        first = p
                        groups = p.groups
                        continue
                    }
                }
                rest.append(part)
            }
            let pattern = first.flatMap { SearchPattern(groups: groups, column: $0.column) }
            return (pattern, rest.isEmpty ? .all : (rest.count == 1 ? rest[0] : .and(rest)))
        default: return (nil, self)
        }
    }

    /// Simplified: nested `and`s and `or`s flattened, `all`/`none` folded away.
    package var simplified: ItemPredicate {
        switch self {
        case .and(let parts):
            var out: [ItemPredicate] = []
            for p in parts.map(\.simplified) {
                switch p {
                case .all: continue
                case .none: return .none
                case .and(let inner): out += inner
                default: out.append(p)
                }
            }
            return out.isEmpty ? .all : (out.count == 1 ? out[0] : .and(out))
        case .or(let parts):
            var out: [ItemPredicate] = []
            for p in parts.map(\.simplified) {
                switch p {
                case .none: continue
                case .all: return .all
                case .or(let inner): out += inner
                default: out.append(p)
                }
            }
            return out.isEmpty ? .none : (out.count == 1 ? out[0] : .or(out))
        case .not(let inner):
            switch inner.simplified {
            case .all: return .none
            case .none: return .all
            case .not(let x): return x
            case let s: return .not(s)
            }
        default: return self
        }
    }
}

/// A bad query or an index that cannot answer, with what to do about it. The messages never
/// carry SQLite's own error text.
package enum QueryError: Error, Sendable, CustomStringConvertible {
    case nothingToSearch(String)
    case syntax(QuerySyntaxError)
    case unknownAttribute(UnknownAttribute)
    /// A value that does not fit the attribute (`size:>abc`, a bad date).
    case badValue(attribute: String, value: String, reason: String)
    /// The index cannot answer: `message` says what to do; `cause` is the error underneath (an
    /// `IndexError`, the shared index's connection error), kept for programs that tell causes
    /// apart, never shown (SQLite's own text stays out of messages).
    case index(String, cause: (any Error & Sendable)? = nil)
    /// The config file cannot be used: its error, which names the file, the line and the key.
    case settings(any Error & Sendable)
    /// The query ran past its time limit (`[query] time_limit`, `fsfind --time-limit`).
    case timeLimit(seconds: Double)

    package var description: String {
        switch self {
        case .nothingToSearch(let q): "the query \"\(q)\" has no letters or digits to search for"
        case .syntax(let e): e.description
        case .unknownAttribute(let e): e.description
        case .badValue(let attribute, let value, let reason): "\(attribute): \"\(value)\" \(reason)"
        case .index(let message, _): message
        case .settings(let error): "\(error)"
        case .timeLimit(let seconds):
            "the query took longer than its time limit of \(QueryCompiler.format(seconds)) s and was stopped; narrow it (more words, fewer OR terms, --onlyin, --limit) or raise the limit with --time-limit or [query] time_limit"
        }
    }
}
