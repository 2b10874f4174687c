import Attributes
import FoundationEssentials
import GRDB
import Indexing

/// The SQL of a result query (`QueryEngine.run`), kept in its parts, each with its arguments in
/// the order they appear, so that `TopKRanking` can put the same columns, score, filters and
/// order around a candidate list instead of the whole full-text match.
///
/// For example, `budget kind:pdf --limit 10` is
/// ```sql
/// SELECT items.id, …, fsindex_rank(items_fts, …, ?) * (1.0 + …) AS score
/// FROM items_fts JOIN items ON items.id = items_fts.rowid
/// WHERE items_fts MATCH ? AND <kind:pdf> AND <not expired>
/// ORDER BY (items.name = ? COLLATE NOCASE) DESC, score ASC, items.path ASC LIMIT ? OFFSET ?
/// ```
struct ResultQuery {
    /// A piece of SQL and the arguments of its `?`s.
    struct Part {
        var sql: String
        var arguments: [any DatabaseValueConvertible] = []
    }

    /// `items.id, items.path, items.domain, items.name` and the attribute columns.
    let columns: String
    /// The full-text pattern that ranks and drives the query; nil: a query without words.
    private(set) var pattern: SearchPattern?
    /// How many rows the page needs (limit and offset) where only they need a score: an
    /// any-word pattern (a question's second stage) in relevance order, without an exact name
    /// first. `counted(_:top:)` passes it to `fsindex_rank` with each row's boost.
    let keepBest: Int?
    /// Whether the rank leaves out the rows that cannot be on the page (`keepBest`, counted).
    private(set) var ranksBestOnly = false
    /// With `ranksBestOnly`: the largest boost of the index, with which the WHERE leaves out a
    /// row that cannot reach the page before its item is read; nil: no such test.
    private(set) var largestBoost: Double?
    /// The query's spec, for `largestBoost(_:_:)` when counted.
    private let spec: QuerySpec
    /// The relevance of a full-text match (`fsindex_rank`, with the pattern's layout bound).
    private(set) var rank: Part
    /// What multiplies the relevance (` * (1.0 + …)`, recency and usage): empty without boosts.
    let boost: Part
    /// The conditions besides the full-text match, joined by AND.
    let filters: Part
    /// `ORDER BY …` (without LIMIT).
    let order: Part
    /// `LIMIT ? OFFSET ?`, or empty.
    let limit: Part
    let plan: [String]

    /// Nil for a query that cannot match anything. `typesPerItem`: see `SQLBuilder.typesPerItem`.
    init?(_ spec: QuerySpec, typesPerItem: Bool = false) {
        let predicate = spec.predicate.simplified
        if predicate == .none { return nil }
        self.spec = spec
        var plan: [String] = []
        let (pattern, rest) = predicate.splittingText()
        self.pattern = pattern
        // The JSON and the columns that hold the attributes it leaves out (IndexStore.attributes(_:)).
        let attributesColumn = spec.includeAttributes
            ? "items.attributes, items.omitted, items.content_type, items.kind, items.extractor, items.size, items.modified, items.created"
            : "NULL AS attributes"
        columns = "items.id, items.path, items.domain, items.name, \(attributesColumn)"

        rank = Part(sql: Self.rankFunction, arguments: [pattern?.rankLayout ?? ""])
        var boost = Part(sql: "")
        let w = spec.ranking
        if pattern != nil, w.recency != 0 || w.usage != 0 {
            // Plain arithmetic, so SQLite computes it without calling back into Swift.
            boost.sql = " * (1.0 + ? * ? / (? + max(0.0, ? - coalesce(items.modified, 0.0))) + ? * ? / (? + max(0.0, ? - coalesce(items.used, 0.0))))"
            let now = spec.now.timeIntervalSince1970
            boost.arguments = [w.recency, w.decaySeconds, w.decaySeconds, now, w.usage, w.decaySeconds, w.decaySeconds, now]
        }
        if pattern != nil {
            // Text read by OCR (issue 28) counts by the recognizer's confidence: from half at 0 %
            // to whole at 100 %, so a clean scan ranks almost like a text and a noisy one's
            // misread words fall behind. Never above 1, so the top-k proof's ceiling holds.
            boost.sql += " * coalesce(0.5 + items.ocr_confidence / 200.0, 1.0)"
        }
        self.boost = boost

        var b = SQLBuilder()
        b.typesPerItem = typesPerItem
        var conditions: [String] = []
        if let pattern {
            plan.append("full-text search: \(pattern.fts5)")
            if rest != .all {
                conditions.append(b.condition(rest))
                plan.append("then keep items where \(rest)")
            }
        } else {
            conditions.append(b.condition(predicate))
            plan.append("items where \(predicate)")
        }
        conditions.append("(items.expiration IS NULL OR items.expiration > ?)")
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) {
            conditions.append(c)
            plan.append("inside " + spec.onlyIn.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " or "))
        }
        filters = Part(sql: conditions.joined(separator: " AND "), arguments: b.arguments)

        var o = SQLBuilder()
        var order: [(String, ascending: Bool)] = []
        switch spec.sort {
        case .relevance, .priority:
            if spec.sort == .priority {
                // JSON's true reads as 1; an item never decided (not mail) as not priority.
                order.append(("coalesce(json_extract(items.attributes, '$.\(AttributeKey.isPriority.rawValue)'), 0)", false))
                plan.append("priority mail first (isPriority), then")
            }
            if let exact = spec.exactNameHint, !exact.isEmpty {
                order.append(("(items.name = ? COLLATE NOCASE)", false))
                o.appendArgument(exact)
            }
            if pattern != nil {
                order.append(("score", true))
                plan.append("best first: an exact name, then BM25F (name ×10, title ×5, subject/authors ×3, text ×1) with bonuses for a title, name or description equal to the words or holding them in order and for the words close together in the text, × recency and usage boosts")
            } else if predicate.searchesName {
                order.append(("length(items.name)", true))
                plan.append("shortest names first")
            } else {
                // `+` keeps SQLite from walking the date index for the order and reading every
                // row; the filter picks the rows, then they are sorted.
                order.append(("+items.modified", false))
                plan.append("newest first")
            }
        case .name: order.append(("items.name COLLATE NOCASE", true)); plan.append("by name")
        case .size: order.append(("+items.size", false)); plan.append("largest first")
        case .modified: order.append(("+items.modified", false)); plan.append("newest first")
        case .created: order.append(("+items.created", false)); plan.append("newest created first")
        // NULL sorts lowest in SQLite: descending puts the never used last.
        case .used: order.append(("+items.used", false)); plan.append("most recently used first, never used last")
        }
        order.append(("items.path", true))
        if spec.reverse { plan.append("reversed") }
        self.order = Part(sql: " ORDER BY " + order.map { "\($0.0) \($0.ascending != spec.reverse ? "ASC" : "DESC")" }.joined(separator: ", "),
                          arguments: o.arguments)

        let wanted = spec.limit.map { $0 + spec.offset }
        if let wanted, wanted > 0, wanted <= 1 << 20, pattern?.anyGroup == true, spec.sort == .relevance, !spec.reverse,
           (spec.exactNameHint ?? "").isEmpty {
            keepBest = wanted
        } else {
            keepBest = nil
        }

        var limit = Part(sql: "")
        if let n = spec.limit {
            limit = Part(sql: " LIMIT ? OFFSET ?", arguments: [n, spec.offset])
        } else if spec.offset > 0 {
            limit = Part(sql: " LIMIT -1 OFFSET ?", arguments: [spec.offset])
        }
        self.limit = limit
        self.plan = plan
    }

    /// The relevance over the weighted full-text columns (the best match is the most negative,
    /// as with bm25()): `fsindex_rank` (CFTS5CJK), whose last argument is the pattern's
    /// `rankLayout`.
    static let rankFunction = rankCall("")

    /// `fsindex_rank` with the layout and `more` arguments after it (`, ?` each): the row's
    /// boost, and the index's largest boost for the test of whether a row can reach the page.
    static func rankCall(_ more: String) -> String {
        "fsindex_rank(\(Schema.ftsTable), \(Schema.bm25Weights), ?\(more))"
    }

    /// The same query with the index's stored item counts of its words in the rank layout, so
    /// that `fsindex_rank` need not count them (`IndexStore.termDocumentCounts`). An index
    /// without the counts ranks the same, counting at query time.
    ///
    /// And the last word of several stops being a prefix when it is itself a common word of the
    /// index (`… in core arch Rust`): a prefix makes FTS5 merge the matches of every word that
    /// starts so (`rust*`: 4.3 ms, `the*`: 20 ms, `h*`: 54 ms in the bench corpus), most of a
    /// long query's time, for a word that was typed whole. A word still being typed (`direc`)
    /// is rarely a common word itself, and keeps its prefix; so does a query of one word.
    ///
    /// `top`: see `SearchPattern.rankLayout(documentCounts:top:)`.
    func counted(_ db: Database, top: Int? = nil) -> ResultQuery {
        guard var pattern else { return self }
        let counts = (try? IndexStore.termDocumentCounts(db, pattern.countableTerms)) ?? [:]
        guard !counts.isEmpty || (top != nil && pattern.anyGroup) else { return self }
        pattern.completeLastWord(common: counts)
        var out = self
        out.pattern = pattern
        out.rank.arguments = [pattern.rankLayout(documentCounts: counts, top: top)]
        return out
    }

    /// The largest boost any item can have (1 without boosts; the OCR factor is never above
    /// 1); nil when the boosts cannot be bounded (a decay that is not above zero, values that
    /// are not finite). Negative weights need no floor: bm25 is ≤ 0, so a smaller boost only
    /// raises a score.
    static func largestBoost(_ spec: QuerySpec, _ db: Database) throws -> Double? {
        let w = spec.ranking
        guard w.recency != 0 || w.usage != 0 else { return 1 }
        let d = w.decaySeconds, now = spec.now.timeIntervalSince1970
        guard d > 0, d.isFinite, now.isFinite, w.recency.isFinite, w.usage.isFinite else { return nil }
        // The newest values give the largest terms; an item without one counts as 0 (1970).
        let newest = try Row.fetchOne(db, sql: """
            SELECT (SELECT max(modified) FROM items), (SELECT max(used) FROM items WHERE used IS NOT NULL)
            """)
        let modified = max(newest?[0] as Double? ?? 0, 0), used = max(newest?[1] as Double? ?? 0, 0)
        let recencyTerm = d / (d + max(0, now - modified)), usageTerm = d / (d + max(0, now - used))
        return 1 + max(0, w.recency * recencyTerm) + max(0, w.usage * usageTerm)
    }

    /// The full query, counted, and ranking only the rows that can be on the page where
    /// `keepBest` allows it: each row's boost goes to `fsindex_rank` as its sixth argument,
    /// and a row left out scores 1.0 times its boost, after every page row.
    func countedForPage(_ db: Database) -> ResultQuery {
        guard let keepBest, pattern != nil else { return counted(db) }
        var out = counted(db, top: keepBest)
        out.ranksBestOnly = true
        out.largestBoost = (try? Self.largestBoost(spec, db)) ?? nil
        return out
    }

    /// The whole query: over every full-text match, or over every item for a query without words.
    var sql: String {
        if pattern != nil {
            // No snippet here: SQLite computes every result column of every match before it
            // sorts and cuts the page, and FTS5's snippet is costly (see `QueryEngine.snippets`).
            let rankSQL = ranksBestOnly ? Self.rankCall(", 1.0\(boost.sql)") : rank.sql
            // Only the full-text table's: SQLite tests it before it reads the row's item.
            let canReach = ranksBestOnly && largestBoost != nil ? Self.rankCall(", NULL, ?") + " = 0 AND " : ""
            return """
                SELECT \(columns),
                       \(rankSQL)\(boost.sql) AS score
                FROM \(Schema.ftsTable) JOIN items ON items.id = \(Schema.ftsTable).rowid
                WHERE \(Schema.ftsTable) MATCH ? AND \(canReach)\(filters.sql)\(order.sql)\(limit.sql)
                """
        }
        return "SELECT \(columns), 0.0 AS score FROM items WHERE \(filters.sql)\(order.sql)\(limit.sql)"
    }

    var arguments: StatementArguments {
        var all: [any DatabaseValueConvertible] = []
        if let pattern {
            all += rank.arguments + (ranksBestOnly ? boost.arguments : []) + boost.arguments
            all.append(pattern.fts5)
            if ranksBestOnly, let largestBoost { all += rank.arguments + [largestBoost] }
        }
        all += filters.arguments + order.arguments + limit.arguments
        return StatementArguments(all.map { $0.databaseValue })
    }
}
