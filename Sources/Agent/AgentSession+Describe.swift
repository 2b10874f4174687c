import Attributes
import Configuration
import MCP
import Querying

/// `describe`: what this server can answer, for a model to plan with.
extension AgentSession {
    /// What `describe` says of completions (Core Spotlight's `CSUserQuery` completions), which
    /// people get from fsfind and the desktop's search box rather than from a tool here.
    static let completionsLine = "fsfind --complete TEXT [--json] completes TEXT's last word with the index's words, field names (kind:, kMDItem…) and values (kind:pdf), most items first; the desktop search providers use it as you type"

    func describe(_ arguments: [String: Value]?) throws(AgentError) -> ToolReply {
        _ = try ToolArguments(arguments, known: [])
        var scopes: [Value] = []
        var lines: [String] = []
        for folder in options.scopes.folders {
            guard case .table(let rows) = try run(request("", scopes: [folder], answer: .table(GroupKey(.kind)))) else { continue }
            let items = rows.reduce(0) { $0 + $1.count }
            var kinds: [String: Value] = [:]
            for row in rows { kinds[row.value ?? "(none)"] = .int(row.count) }
            scopes.append(.object(["path": .string(ReplyValues.path(folder)), "items": .int(items), "kinds": .object(kinds)]))
            lines.append("\(ReplyValues.path(folder)): \(items) items (" + rows.prefix(8).map { "\($0.count) \($0.value ?? "(none)")" }.joined(separator: ", ") + (rows.count > 8 ? ", …" : "") + ")")
        }
        let attributes: [Value] = catalog.attributes.map { key in
            .object(["name": .string(key.rawValue), "type": .string(key.valueType.map { "\($0)" } ?? "string")])
        }
        var guidance: [String: Value] = ["mode": .string(String(options.guidance.description.prefix { $0 != ":" })),
                                         "techniques": .array(options.guidance.techniques.sorted().map { .string($0.rawValue) })]
        if let kinds = options.guidance.kinds { guidance["kinds"] = .array(kinds.map { .string($0) }) }
        let me: Value = options.identity.map { id in
            .object(["name": id.name.map { .string($0) } ?? .null, "emails": .array(id.emails.map { .string($0) }),
                     "source": .string(id.source)])
        } ?? .null
        let status = status(query: "describe", scopes: options.scopes.folders, isFinal: true, total: nil)
        var s = status.fields
        s["scopes"] = .array(scopes)
        s["attributes"] = .array(attributes)
        s["queryLanguage"] = .array(catalog.queryLanguageLines.map { .string($0) })
        s["me"] = me
        s["guidance"] = .object(guidance)
        s["maxResults"] = .int(options.maxResults)
        s["format"] = .string(options.format.rawValue)
        s["tools"] = .array(catalog.names.map { .string($0) })
        s["completions"] = .string(Self.completionsLine)
        var text = [status.line, "scopes:"] + lines.map { "  " + $0 }
        text.append("query language:")
        text += catalog.queryLanguageLines.map { "  " + $0 }
        text.append("attributes: " + catalog.attributes.map(\.rawValue).joined(separator: ", "))
        if let id = options.identity {
            text.append("me: " + ([id.name].compactMap { $0 } + id.emails).joined(separator: ", ") + " (from \(id.source))")
        } else {
            text.append("me: unknown (set [agent] me in the config)")
        }
        text.append("completions: " + Self.completionsLine)
        text.append("guidance: \(options.guidance); at most \(options.maxResults) results, \(options.format.rawValue) format")
        return ToolReply(structured: .object(s), text: text.joined(separator: "\n"))
    }
}
