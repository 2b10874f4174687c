import GRDB
import Indexing

extension QueryEngine {
    /// A question's two stages (`QuestionRouter`): its words in order, then any of its content
    /// words with their forms, the files holding most of them first, for what the page still
    /// lacks.
    ///
    /// Without a limit, the second stage adds at most `questionExtra` results: any word of a
    /// question matches much of an index.
    func runQuestion(_ spec: QuerySpec, words: [String]) throws(QueryError) -> [QueryResult] {
        var inOrder = spec
        inOrder.question = nil
        inOrder.offset = 0
        let wanted = spec.limit.map { $0 + spec.offset }
        inOrder.limit = wanted
        var results: [QueryResult] = []
        if let phrase = SearchPattern.Term(words.joined(separator: " ")), let pattern = SearchPattern(groups: [[phrase]]) {
            inOrder.predicate = pattern.restricted(by: spec.predicate)
            results = try runAsTyped(inOrder)
            for i in results.indices { results[i].stage = .inOrder }
        }
        let target = wanted ?? results.count + Self.questionExtra
        if results.count < target, let any = try anyWordPattern(spec, words: words) {
            var next = inOrder
            next.predicate = any.restricted(by: spec.predicate)
            next.limit = target
            // An item named as the question holds its words in order: stage 1 found it. Without
            // the name first, the second stage scores only the rows that can reach the page
            // (`ResultQuery.keepBest`).
            next.exactNameHint = nil
            var seen = Set(results.map(\.rowID))
            for var r in try runAsTyped(next) where results.count < target && seen.insert(r.rowID).inserted {
                r.stage = .anyWord
                results.append(r)
            }
        }
        let page = results.dropFirst(spec.offset)
        return Array(spec.limit.map { page.prefix($0) } ?? page)
    }

    /// `explain` for a question: each stage's full-text search, the words left out, how the
    /// second ranks, and the database plan of the second (the one that costs).
    func explainQuestion(_ spec: QuerySpec, words: [String]) throws(QueryError) -> [String] {
        var asTyped = spec
        asTyped.question = nil
        var lines = ["a question in plain words, in two stages (--literal asks the words as typed):"]
        if let phrase = SearchPattern.Term(words.joined(separator: " ")), let pattern = SearchPattern(groups: [[phrase]]) {
            lines.append("stage 1, \(QuestionRouter.Stage.inOrder.rawValue): full-text search: \(pattern.fts5)")
        }
        guard let any = try anyWordPattern(spec, words: words) else { return lines }
        lines.append("stage 2, \(QuestionRouter.Stage.anyWord.rawValue), for what stage 1 leaves of the page: full-text search: \(any.fts5)")
        let content = Set(QuestionRouter.content(words))
        let left = words.flatMap(SearchPattern.tokens).filter { !content.contains($0) }
        if !left.isEmpty { lines.append("left out of stage 2 as stop words: \(left.joined(separator: ", "))") }
        lines.append("stage 2 ranks by BM25F, each word and its forms one term, × the square root of the share of the words a file holds, with the same bonuses")
        if spec.limit != nil {
            lines.append("stage 2 scores only the files that can reach the page: one whose best possible score (from the words it holds, then its counts) is below the page's last so far is passed over")
        }
        asTyped.predicate = any.restricted(by: spec.predicate)
        return lines + (try explain(asTyped).filter { !$0.hasPrefix("full-text search:") })
    }

    /// Results a question's second stage may add to a query without a limit.
    static let questionExtra = 100

    /// Any of the question's content words, each with its forms in the index, ranked by how
    /// many of the words a file holds (`fsindex_rank`'s coordination).
    func anyWordPattern(_ spec: QuerySpec, words: [String]) throws(QueryError) -> SearchPattern? {
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
        guard var pattern = SearchPattern(groups: groups) else { return nil }
        pattern.anyGroup = true
        return pattern
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
