import Attributes
import Foundation
import Querying

/// What the host lets the model do, as SpotlightSearchTool's guidance: everything (`complete`),
/// only some kinds of item (`focused:pdf,mail`), or only some search techniques
/// (`dynamic:text,dates`). Techniques that are not offered are left out of `tools/list` (whole
/// tools and single schema fields), so a small model reads less and cannot wander.
package enum Guidance: Sendable, Hashable, CustomStringConvertible {
    case complete
    /// Searches only ever return items of these kinds (fsfind's `kind:` words).
    case focused(kinds: [String])
    /// Only these techniques are offered.
    case dynamic(Set<Technique>)

    /// The ways of narrowing a search, and what each brings into the tools.
    package enum Technique: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Words inside documents; `read_text`.
        case text
        /// File names and extensions; `name:`, `ext:`, sort by name, tables by extension.
        case names
        /// `modified:`, `created:`, newest first, tables by month and year, date statistics,
        /// the recency and usage boosts.
        case dates
        /// Sizes, pages, pixels, durations: `size:`, number statistics, sort by size.
        case numbers
        /// Authors, senders, recipients, "me"; tables by author.
        case people
        /// Folders: the `scopes` argument, `dir:`, tables by folder.
        case places

        package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// `complete`, `focused:KIND,...` or `dynamic:TECHNIQUE,...`.
    package static func parse(_ text: String) throws(AgentError) -> Guidance {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t == "complete" { return .complete }
        guard let colon = t.firstIndex(of: ":") else {
            throw .options("guidance \"\(text)\" is not one of complete, focused:KIND,... or dynamic:TECHNIQUE,...")
        }
        let mode = t[..<colon]
        let list = t[t.index(after: colon)...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        switch mode {
        case "focused":
            guard !list.isEmpty else { throw .options("guidance focused: needs at least one kind, as focused:pdf,mail") }
            for kind in list where !KindWords.known.contains(kind) {
                throw .options("guidance focused: \"\(kind)\" is not a kind; kinds are \(KindWords.known.sorted().joined(separator: ", "))")
            }
            return .focused(kinds: list)
        case "dynamic":
            guard !list.isEmpty else { throw .options("guidance dynamic: needs at least one technique, as dynamic:text,dates") }
            var set = Set<Technique>()
            for word in list {
                guard let t = Technique(rawValue: word) else {
                    throw .options("guidance dynamic: \"\(word)\" is not a technique; techniques are \(Technique.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                set.insert(t)
            }
            return .dynamic(set)
        default:
            throw .options("guidance \"\(text)\" is not one of complete, focused:KIND,... or dynamic:TECHNIQUE,...")
        }
    }

    /// The techniques offered.
    package var techniques: Set<Technique> {
        if case .dynamic(let set) = self { return set }
        return Set(Technique.allCases)
    }

    package func offers(_ t: Technique) -> Bool { techniques.contains(t) }

    /// The kinds searches are limited to, or nil for all.
    package var kinds: [String]? {
        if case .focused(let kinds) = self { return kinds }
        return nil
    }

    package var description: String {
        switch self {
        case .complete: "complete"
        case .focused(let kinds): "focused:" + kinds.joined(separator: ",")
        case .dynamic(let set): "dynamic:" + set.sorted().map(\.rawValue).joined(separator: ",")
        }
    }
}

/// fsfind's `kind:` words (ShortQueryParser's), which `focused:` guidance names.
enum KindWords {
    static var known: Set<String> { Set(ShortQueryParser.kinds.keys) }

    /// Items of any of these kinds.
    static func predicate(_ kinds: [String]) -> ItemPredicate {
        .or(kinds.flatMap { (ShortQueryParser.kinds[$0] ?? []).map { .conformsTo(ContentType(rawValue: $0)) } })
    }
}
