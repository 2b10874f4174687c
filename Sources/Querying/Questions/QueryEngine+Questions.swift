import Embedding
import Glibc
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
            for var r in try runAnyWord(next, any, spec: spec) where seen.insert(r.rowID).inserted {
                r.stage = .anyWord
                found.append(r)
            }
            if byMeaning { found = try reorderedByMeaning(found, words: words, spec: spec) }
            results += found.prefix(target - results.count)
        }
        let page = results.dropFirst(spec.offset)
        return Array(spec.limit.map { page.prefix($0) } ?? page)
    }

    /// The second stage's page, as the whole any-word pattern ranks it, walking only the rows
    /// that hold one of the question's rarer words where that provably gives the same page.
    ///
    /// A key design decision, measured with `question-bench.sh --via fsindexd`: most of a
    /// question's time was FTS5 merging the matches of every word and form (`code`, `run`,
    /// `long`: 46,000 items of the bench corpus) to rank rows that mostly hold one common word.
    /// A row that holds none of the rarer words (`essentialSplit`) scores at most the commoner
    /// words' ceiling; when the page's last score is better than that ceiling times the
    /// largest boost, no such row can be on the page (MaxScore, Turtle and Flood 1995), and the
    /// narrowed query's page is the whole query's. Otherwise the whole query runs.
    func runAnyWord(_ next: QuerySpec, _ any: SearchPattern, spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        guard let limit = next.limit, limit > 0, next.sort == .relevance, !next.reverse else { return try runAsTyped(next) }
        // What both attempts need, read once: the boosts' bound, FTS5's rows, the words' counts.
        let (boost, rows, counts) = try read(spec) { db in
            (try ResultQuery.largestBoost(next, db), try IndexStore.fullTextRowCount(db),
             try IndexStore.termDocumentCounts(db, any.countableTerms))
        }
        guard let largest = boost, largest.isFinite, largest > 0, let rows, rows > 0 else { return try runAsTyped(next) }
        // First the commoner words as `commonShare` guesses them; when the page's last proves
        // too weak, its score bounds the whole page's last (a narrower query's rows are a part of
        // the whole's, with the same scores), and the words under that bound are left out.
        var below: Double? = nil
        for _ in 0..<2 {
            guard let split = Self.essentialSplit(any, rows: rows, counts: counts, largestBoost: largest, below: below) else { break }
            var narrowed = next
            narrowed.predicate = split.pattern.restricted(by: spec.predicate)
            let page = try runAsTyped(narrowed)
            guard page.count == limit, let last = page.last else { break }
            // Scores are ≤ 0, the best most negative; a row of the commoner words only scores
            // at least −ceiling × the largest boost. A margin far above rounding: a tie is
            // not proof.
            if split.ceiling * largest * (1 + 1e-9) < -last.score {
                return page
            }
            below = -last.score
        }
        return try runAsTyped(next)
    }

    /// The question's rarer words, which a row on the page must hold one of, and the most a row
    /// of the commoner ones alone can score: Σ idf × (k1 + 1) × √(their share of the words),
    /// `fsindex_rank`'s ceiling without the bonuses (those need every word). The commoner words
    /// are the commonest ones whose ceiling stays under `commonShare` of all the words' ceiling,
    /// or, with `below`, whose ceiling times `largestBoost` stays under it. Each needs a stored
    /// item count (`term_docs`, the idf `fsindex_rank` is given) for one of its forms: the idf
    /// of a word (its commonest form's) is at most that form's; `rows` is FTS5's row count.
    /// Nil: nothing to leave out.
    static func essentialSplit(_ any: SearchPattern, rows: Int, counts: [String: Int], largestBoost: Double,
                               below: Double?) -> (pattern: SearchPattern, ceiling: Double)? {
        let groups = any.groups
        guard any.anyGroup, groups.count >= 2, groups.count <= Self.maximumSplitWords, rows > 0 else { return nil }
        func idf(_ items: Int) -> Double { max(log((Double(rows - items) + 0.5) / (Double(items) + 0.5)), 1e-6) }
        // Each word's idf at most: that of its commonest form with a stored count.
        let bound: [Double?] = groups.map { group in
            var known: [Int] = []
            for term in group {
                for phrase in [term.whole, term.tokens].compactMap({ $0 }) where phrase.count == 1 {
                    if let n = counts[phrase[0]] { known.append(n) }
                }
            }
            return known.max().map(idf)
        }
        // The most any row can score from its words, each held at saturation.
        let all = groups.indices.reduce(0.0) { $0 + (bound[$1] ?? idf(1)) } * (Self.rankK1 + 1)
        let limit = below.map { $0 / (largestBoost * (1 + 1e-6)) } ?? Self.commonShare * all
        let byCommonness = groups.indices.filter { bound[$0] != nil }.sorted { bound[$0]! < bound[$1]! }
        var common: [Int] = [], sum = 0.0, ceiling = 0.0
        for g in byCommonness {
            let next = (sum + bound[g]!) * (Self.rankK1 + 1) * (Double(common.count + 1) / Double(groups.count)).squareRoot()
            guard next < limit else { break }
            common.append(g)
            sum += bound[g]!
            ceiling = next
        }
        guard !common.isEmpty, common.count < groups.count else { return nil }
        var narrowed = any
        narrowed.requiredGroups = groups.indices.filter { !common.contains($0) }
        return (narrowed, ceiling)
    }

    /// `fsindex_rank`'s k1 (fts5_rank.c, RANK_K1).
    static let rankK1 = 1.2
    /// Beyond `fsindex_rank`'s 32 words, its coordination counts no more words.
    static let maximumSplitWords = 32
    /// How much of the words' whole ceiling the commoner words may hold (see `essentialSplit`):
    /// measured with `question-bench.sh --via fsindexd` (medians, dev / held-out): none 60.8 /
    /// 68.2 ms; 0.05: 57.3 / 63.8; 0.12: 54.4 / 59.8; 0.18: 55.4 / 60.5; 0.25: 57.2 / 64.1; 0.35:
    /// 62.0 / 71.2. Too little leaves most rows in; too much often fails the proof, and a
    /// second narrowed query runs.
    static let commonShare = 0.12

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
        lines.append("stage 2 walks only the files holding one of its rarer words when its commoner words alone provably cannot reach the page (their most possible score, times the largest boost, below the page's last); else every match")
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
