import Attributes
import Foundation
import MCP
import Querying
import SystemCalls

/// `search`: the items themselves, best first, re-scored by the call's stages.
extension AgentSession {
    /// A re-scoring stage, as SpotlightSearchTool's custom stages.
    struct Stage: Sendable {
        enum Name: String, Sendable { case recency_boost, usage_boost }
        var name: Name
        var weight: Double
    }

    /// The attributes every item of a search carries, beside those the call fetches.
    static let searchBase: [AttributeKey] = [.name, .kind, .contentTypeTree, .contentModificationDate, .fsContentChangeDate,
                                            .lastUsedDate, .textContentSummary]

    func search(_ arguments: [String: Value]?, progress: ProgressReporter) async throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "search"))
        let query = try a.string("query", required: true) ?? ""
        let scopes = try options.scopes.narrowed(to: a.strings("scopes"))
        // More than the cap is what agents ask for all the time: cut to the cap, and the reply
        // says `partial` with the total (as SpotlightSearchTool does), rather than an error.
        let maxResults = min(try a.integer("maxResults", atLeast: 1) ?? options.maxResults, options.maxResults)
        var fetch: [AttributeKey] = []
        for name in try a.strings("fetchAttributes", maxCount: 32, maxLength: 128) {
            fetch.append(try attribute(name, argument: "fetchAttributes"))
        }
        let sort = try a.choice("sort", catalog.sorts) ?? "relevance"
        var stages: [Stage] = []
        for (i, o) in try a.objects("stages", maxCount: 4).enumerated() {
            let name = "stages[\(i)]"
            for key in o.keys where key != "name" && key != "weight" {
                throw .badArgument(name: name, reason: "has \"\(key)\"; a stage takes only name and weight")
            }
            guard let s = o["name"]?.stringValue, let stage = Stage.Name(rawValue: s), catalog.stageNames.contains(s) else {
                throw .badArgument(name: name + ".name", reason: "must be one of \(catalog.stageNames.joined(separator: ", "))")
            }
            let weight = try o["weight"].map { v throws(AgentError) in try a.number(v, name: name + ".weight", in: 0...10) } ?? 1
            stages.append(Stage(name: stage, weight: weight))
        }

        await progress.report(0, of: 3, "searching")
        var request = request(query, scopes: scopes, answer: .items)
        request.sort = SortOrder(rawValue: sort) ?? .relevance
        // Stages re-rank a wider set than they return, as a re-ranking stage should.
        request.limit = stages.isEmpty ? maxResults : min(AgentOptions.resultCap, max(maxResults * 5, 100))
        request.fetchAttributes = Self.searchBase + fetch
        guard case .items(let found) = try run(request) else { throw .query("the index gave no items") }
        var items = found.map(withinScopes)
        await progress.report(1, of: 3, "found \(items.count)")
        // The total only costs a second query when the page is full.
        var total = items.count
        if let limit = request.limit, items.count >= limit {
            request.limit = nil
            if case .count(let n) = try run(self.request(query, scopes: scopes, answer: .count)) { total = max(n, items.count) }
        }
        if !stages.isEmpty {
            items = rescored(items, by: stages, now: request.now)
            await progress.report(2, of: 3, "re-scored by \(stages.map(\.name.rawValue).joined(separator: ", "))")
        }
        let shown = Array(items.prefix(maxResults))
        remember(shown)
        let status = status(query: query, scopes: scopes, isFinal: total <= shown.count, total: total)
        await progress.report(3, of: 3, "done")
        return options.format == .compact ? compact(shown, fetch: fetch, status: status) : full(shown, fetch: fetch, status: status)
    }

    /// `item` with no path above the scopes: a file's `domainIdentifier` is its index root,
    /// which may be a folder above the scope the model is given (the whole home folder, say).
    /// It reads as the scope holding the file, as `table`'s folder rows do.
    func withinScopes(_ item: FoundItem) -> FoundItem {
        guard case .string(let domain)? = item.attributes[.domainIdentifier], domain.hasPrefix("/") else { return item }
        let bytes = ArgumentBytes.bytes(of: domain)
        guard !options.scopes.contains(bytes) else { return item }
        var item = item
        item.attributes[.domainIdentifier] = options.scopes.relative(item.path).map { .string(ReplyValues.path($0.folder)) }
        return item
    }

    /// A name of ours, Spotlight's or an alias, offered under this guidance.
    func attribute(_ name: String, argument: String) throws(AgentError) -> AttributeKey {
        let key: AttributeKey
        do { key = try AttributeNames.resolveForCommand(name) } catch { throw .badArgument(name: argument, reason: error.description) }
        guard catalog.attributes.contains(key) else {
            throw .badArgument(name: argument, reason: "\"\(name)\" is not offered by this server (see describe for the attributes)")
        }
        return key
    }

    /// Each stage multiplies the score by `1 + weight·f` and adds `weight·f`, where `f` is
    /// `D/(D+age)` (D: `[query] decay_days`) of the file's modification (recency) or last use
    /// (usage): a fresh file nearly doubles at weight 1, and queries without words (score 0)
    /// come out newest first.
    func rescored(_ items: [FoundItem], by stages: [Stage], now: Date) -> [FoundItem] {
        let d = options.ranking.decaySeconds
        let scored = items.enumerated().map { (i, item) -> (Int, FoundItem) in
            var item = item
            for stage in stages {
                let date: Date? = switch stage.name {
                case .recency_boost: item.attributes.date(.contentModificationDate) ?? item.attributes.date(.fsContentChangeDate)
                case .usage_boost: item.attributes.date(.lastUsedDate)
                }
                guard let date else { continue }
                let f = d / (d + max(0, now.timeIntervalSince(date)))
                item.score = ((item.score * (1 + stage.weight * f) + stage.weight * f) * 1000).rounded() / 1000
            }
            return (i, item)
        }
        // Stable: equal scores keep the index's order.
        return scored.sorted { $0.1.score != $1.1.score ? $0.1.score > $1.1.score : $0.0 < $1.0 }.map(\.1)
    }

    // MARK: - The two formats

    func full(_ items: [FoundItem], fetch: [AttributeKey], status: ReplyStatus) -> ToolReply {
        var objects: [Value] = []
        for item in items {
            var o: [String: Value] = ["path": .string(ReplyValues.path(item.path)), "name": .string(ReplyValues.name(item.path)),
                                      "score": .double(item.score)]
            // The shared index holds the path on several hosts: which one this is.
            if let host = item.host { o["host"] = .string(host) }
            if let kind = item.attributes.kind { o["kind"] = .string(kind) }
            if let date = item.attributes.date(.contentModificationDate) ?? item.attributes.date(.fsContentChangeDate) {
                o["contentModificationDate"] = .string(AttributeValue.iso8601(date))
            }
            if let summary = item.attributes.string(.textContentSummary) { o["textContentSummary"] = .string(summary) }
            // An item without the attribute has no such key (no nulls to read).
            for key in fetch { if let v = item.attributes[key] { o[key.rawValue] = ReplyValues.json(v) } }
            objects.append(.object(o))
        }
        var s = status.fields
        s["returned"] = .int(items.count)
        s["items"] = .array(objects)
        let structured = Value.object(s)
        return ToolReply(structured: structured, text: status.line + "\n" + ReplyValues.encode(.array(objects)))
    }

    /// One line per item, tab-separated under a header: the path relative to its scope, the
    /// kind word, the day, the fetched attributes and the summary cut short. No key is repeated.
    func compact(_ items: [FoundItem], fetch: [AttributeKey], status: ReplyStatus) -> ToolReply {
        let scopes = options.scopes
        let several = scopes.folders.count > 1
        let columns = ["path", "kind", "modified"] + fetch.map(\.rawValue) + ["summary"]
        var lines: [String] = []
        for item in items {
            var path = ReplyValues.path(item.path)
            var scope = ""
            if let (folder, rel) = scopes.relative(item.path) {
                path = ReplyValues.path(rel)
                if several, let i = scopes.folders.firstIndex(of: folder) { scope = "[\(i)] " }
            }
            // The shared index holds the path on several hosts: `HOST:PATH`, as fsfind prints it.
            if let host = item.host { path = host + ":" + path }
            path = scope + path
            var fields = [ReplyValues.oneLine(path),
                          ReplyValues.kindWord(types: item.attributes.contentTypeTree, fallback: item.attributes.kind),
                          (item.attributes.date(.contentModificationDate) ?? item.attributes.date(.fsContentChangeDate)).map(ReplyValues.day) ?? ""]
            for key in fetch { fields.append(item.attributes[key].map(ReplyValues.line) ?? "") }
            fields.append(item.attributes.string(.textContentSummary).map { ReplyValues.cut($0, to: 60) } ?? "")
            lines.append(fields.joined(separator: "\t"))
        }
        var s = status.fields
        s["returned"] = .int(items.count)
        s["scopes"] = .array(scopes.display.map { .string($0) })
        s["columns"] = .array(columns.map { .string($0) })
        s["lines"] = .array(lines.map { .string($0) })
        let header = status.line + "\n" + (several ? scopes.display.enumerated().map { "[\($0)] \($1)" }.joined(separator: "\n") : scopes.display.joined()) + "\n"
        return ToolReply(structured: .object(s), text: header + columns.joined(separator: "\t") + "\n" + lines.joined(separator: "\n"))
    }
}

extension ReplyValues {
    /// JSON text of a value, keys sorted, slashes unescaped: what the model reads.
    static func encode(_ value: Value) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: e.encode(value), as: UTF8.self)) ?? ""
    }
}
