import Embedding
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
            // By meaning, the stage's first `meaningDepth` are reordered: always the same ones,
            // whatever the page, so that pages follow each other. An index without vectors
            // (the pass has not run, or `semantic` was off) asks for the page only.
            let byMeaning = spec.semantic ? try read(spec) { db in try IndexStore.hasMeanings(db) } : false
            next.limit = byMeaning ? max(target, results.count + Self.meaningDepth) : target
            // An item named as the question holds its words in order: stage 1 found it. Without
            // the name first, the second stage scores only the rows that can reach the page
            // (`ResultQuery.keepBest`).
            next.exactNameHint = nil
            var seen = Set(results.map(\.rowID))
            var found: [QueryResult] = []
            for var r in try runAsTyped(next) where seen.insert(r.rowID).inserted {
                r.stage = .anyWord
                found.append(r)
            }
            if byMeaning { found = try reorderedByMeaning(found, words: words, spec: spec) }
            results += found.prefix(target - results.count)
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
        lines.append(try meaningLine(spec))
        asTyped.predicate = any.restricted(by: spec.predicate)
        return lines + (try explain(asTyped).filter { !$0.hasPrefix("full-text search:") })
    }

    /// What `explain` says of the order by meaning: on, or why not.
    func meaningLine(_ spec: QuerySpec) throws(QueryError) -> String {
        guard spec.semantic else { return "stage 2 does not rank by meaning: [query] semantic = false" }
        switch sentenceEncoder() {
        case .failure(let problem): return "stage 2 does not rank by meaning: \(problem)"
        case .success:
            let (have, pending) = try read(spec) { db in
                (try IndexStore.meaningCount(db), try IndexStore.pendingMeaningCount(db))
            }
            return "stage 2's first \(Self.meaningDepth) are reordered by meaning too: 1/(30 + rank by words) + 1/(30 + rank by closeness to the question), \(ModelLocation.name)'s vectors of name, title and description (\(have) items have one, \(pending) wait for the semantic pass)"
        }
    }

    /// Results a question's second stage may add to a query without a limit.
    static let questionExtra = 100

    /// How many of the second stage's best are reordered by meaning, and the damping of the
    /// fusion of the two orders (`reorderedByMeaning`).
    static let meaningDepth = 40, meaningDamping = 30.0

    /// The first `meaningDepth` of `found` (the second stage's, best first) in the order of
    /// reciprocal-rank fusion of their order by words and their order by closeness of their
    /// vectors to the question's: `1/(30 + rank by words) + 1/(30 + rank by meaning)`. An item
    /// without a vector (not read yet, or nothing to read) counts by its words only.
    ///
    /// A key design decision, measured with `question-bench.sh` (MiniLM's vectors of name,
    /// title and description; dev set of 160 questions / held-out set of 100):
    ///
    /// | second stage | dev hits@10 | MRR@20 | held-out hits@10 | MRR@20 |
    /// |---|---|---|---|---|
    /// | by words (before) | 57.5 % | 0.355 | 46.0 % | 0.292 |
    /// | static vectors (wordllama), fused over the index | 58.8 % | 0.348 | 50.0 % | 0.277 |
    /// | **MiniLM, the first 40 reordered** | **63.8 %** | **0.398** | **56.0 %** | **0.374** |
    /// | MiniLM, fused over the index (an estimate) | 65.0 % | 0.397 | 62.0 % | 0.384 |
    ///
    /// Fusing over the whole index needs a scan of every vector per question (or a vector
    /// index); reordering the candidates needs 40 reads and one encoding of the question, and
    /// keeps what the words found: a question whose words name the file still finds it.
    ///
    /// The model is loaded (once per process) only when a candidate has a vector: an index the
    /// pass has not read costs nothing more.
    func reorderedByMeaning(_ found: [QueryResult], words: [String], spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        let head = Array(found.prefix(Self.meaningDepth))
        let vectors = try read(spec) { db in try IndexStore.meanings(db, rowIDs: head.map(\.rowID)) }
        guard !vectors.isEmpty, case .success(let encoder) = sentenceEncoder() else { return found }
        let question = encoder.embed(words.joined(separator: " "))
        let closeness = head.map { r in vectors[r.rowID].flatMap { StoredVector.closeness(question, $0) } }
        var byMeaning: [Int: Int] = [:]
        for (rank, i) in head.indices.filter({ closeness[$0] != nil }).sorted(by: { closeness[$0]! > closeness[$1]! }).enumerated() {
            byMeaning[i] = rank + 1
        }
        let k = Self.meaningDamping
        let score = head.indices.map { i in 1 / (k + Double(i + 1)) + (byMeaning[i].map { 1 / (k + Double($0)) } ?? 0) }
        let order = head.indices.sorted { score[$0] != score[$1] ? score[$0] > score[$1] : $0 < $1 }
        return order.map { i in
            var r = head[i]
            if byMeaning[i] != nil { r.stage = .byMeaning }
            return r
        } + found.dropFirst(Self.meaningDepth)
    }

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
