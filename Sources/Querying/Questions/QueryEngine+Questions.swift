import GRDB
import Indexing

extension QueryEngine {
    /// A question's stages (`QuestionRouter`): as typed, then all its content words with their
    /// forms, then any of them, each for what the page still lacks.
    ///
    /// Without a limit, the later stages add at most `questionExtra` results: any word of a
    /// question matches much of an index.
    func runQuestion(_ spec: QuerySpec, words: [String]) throws(QueryError) -> [QueryResult] {
        var asTyped = spec
        asTyped.question = nil
        asTyped.offset = 0
        let wanted = spec.limit.map { $0 + spec.offset }
        asTyped.limit = wanted
        var results = try runAsTyped(asTyped)
        for i in results.indices { results[i].stage = .asTyped }
        let target = wanted ?? results.count + Self.questionExtra
        for (stage, pattern) in try questionPatterns(spec, words: words) where results.count < target {
            var next = asTyped
            next.predicate = pattern.restricted(by: spec.predicate)
            next.limit = target
            var seen = Set(results.map(\.rowID))
            for var r in try runAsTyped(next) where results.count < target && seen.insert(r.rowID).inserted {
                r.stage = stage
                results.append(r)
            }
        }
        let page = results.dropFirst(spec.offset)
        return Array(spec.limit.map { page.prefix($0) } ?? page)
    }

    /// Results a question's later stages may add to a query without a limit.
    static let questionExtra = 100

    /// The patterns of the stages after the first: all content words (each with its forms),
    /// then any of them (when there are two or more).
    func questionPatterns(_ spec: QuerySpec, words: [String]) throws(QueryError) -> [(QuestionRouter.Stage, SearchPattern)] {
        let content = QuestionRouter.content(words)
        let inflections = Inflections()
        let groups: [[SearchPattern.Term]] = try read(spec) { db in
            try content.map { word in
                let forms = try inflections.forms(of: word) { low, high, limit in
                    try IndexStore.vocabulary(db, from: low, to: high, limit: limit)
                }
                return ([word] + forms).compactMap { SearchPattern.Term($0) }
            }
        }.filter { !$0.isEmpty }
        guard let all = SearchPattern(groups: groups) else { return [] }
        var out: [(QuestionRouter.Stage, SearchPattern)] = [(.allWords, all)]
        if groups.count >= 2 {
            var any = all
            any.anyGroup = true
            out.append((.anyWord, any))
        }
        return out
    }
}

extension SearchPattern {
    /// `predicate` with its words replaced by this pattern: the rest of it (folders, kinds,
    /// dates) still applies.
    func restricted(by predicate: ItemPredicate) -> ItemPredicate {
        let (_, rest) = predicate.simplified.splittingText()
        if case .all = rest { return .text(self) }
        return .and([.text(self), rest])
    }
}
