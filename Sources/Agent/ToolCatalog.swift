import Attributes
import MCP
import Querying

/// The tools as `tools/list` gives them: names, descriptions and JSON Schemas for input and
/// output, cut to the guidance in force. A technique that is not offered takes its tools and
/// schema fields with it (no `read_text` without `text`, no `scopes` without `places`), so a
/// model with a small context reads only what it may use.
struct ToolCatalog: Sendable {
    let options: AgentOptions
    let tools: [Tool]

    init(options: AgentOptions) {
        self.options = options
        self.tools = Self.make(options)
    }

    var names: [String] { tools.map(\.name) }

    func offers(_ tool: String) -> Bool { tools.contains { $0.name == tool } }

    /// The argument names a tool takes under this guidance.
    func arguments(of tool: String) -> Set<String> {
        guard let t = tools.first(where: { $0.name == tool }), case .object(let schema) = t.inputSchema,
              case .object(let properties)? = schema["properties"] else { return [] }
        return Set(properties.keys)
    }

    // MARK: - What each technique brings

    var guidance: Guidance { options.guidance }

    /// Sort orders offered.
    var sorts: [String] {
        var s = ["relevance"]
        if guidance.offers(.names) { s.append("name") }
        if guidance.offers(.numbers) { s.append("size") }
        if guidance.offers(.dates) { s += ["modified", "created", "used"] }
        // Priority mail first (issue 27): about people, and what they ask of "me".
        if guidance.offers(.people) { s.append("priority") }
        return s
    }

    /// fsfind's query language in a few lines, for what this guidance offers.
    var queryLanguageLines: [String] {
        var lines = ["plain words match names, titles and text; \"quarterly report\" for the phrase, -word to exclude, a OR b"]
        if options.questions {
            lines.append("a question may be asked whole in the user's words (\"how much free space is left on my disks\"): its words are searched as one phrase first, then any of its content words with their other forms, files with most of them first"
                         + (options.semantic ? " and closest in meaning (name, title, description), so the user's own words find files that say it otherwise" : ""))
        }
        lines.append("kind:pdf|image|audio|video|document|text|code|mail|archive|folder|presentation|spreadsheet|html|word|slides|screenshot")
        if guidance.offers(.dates) { lines.append("times in words beside other terms: yesterday, last week, past 3 days, in March, since Monday") }
        if guidance.offers(.names) { lines.append("name:*.tex ext:md,txt (names and extensions)") }
        if guidance.offers(.people) {
            lines.append("author:NAME from:NAME to:NAME, and from:me author:me to:me for the user")
            lines.append("priority:yes (mail that needs the user: direct, from someone they write to, or with a date soon; see priorityReasons)")
        }
        if guidance.offers(.dates) { lines.append("modified:>2026-01-01 modified:<7d created:2026-03 (dates, ranges a..b)") }
        if guidance.offers(.numbers) { lines.append("size:>10MB pages:>10 width:>2000 (numbers)") }
        if guidance.offers(.places) { lines.append("dir:FOLDER (inside a folder)") }
        lines.append("ATTR:value for any attribute; Spotlight's form too: kMDItemContentType == \"public.image\" && kMDItemFSSize > 1000000")
        return lines
    }

    var stageNames: [String] { guidance.offers(.dates) ? ["recency_boost", "usage_boost"] : [] }

    var groupings: [String] {
        var g = ["kind", "contentType"]
        if guidance.offers(.names) { g.append("extension") }
        if guidance.offers(.places) { g.append("folder") }
        if guidance.offers(.people) { g.append("author") }
        if guidance.offers(.dates) { g += ["month", "year"] }
        return g
    }

    /// Attributes that may be fetched and queried under this guidance, by name.
    var attributes: [AttributeKey] {
        AttributeKey.types.keys.filter { key in
            key != .textContent && Self.technique(of: key).map(guidance.offers) ?? true
        }.sorted()
    }

    /// Number and date attributes, for `statistic`.
    var statisticAttributes: [AttributeKey] {
        attributes.filter { [.integer, .double, .date].contains($0.valueType) }
    }

    /// The technique an attribute belongs to; nil for those every search may use (kind, type).
    static func technique(of key: AttributeKey) -> Guidance.Technique? {
        switch key {
        case .kind, .contentType, .contentTypeTree, .mimeType, .language: return nil
        case .latitude, .longitude, .altitude, .path: return .places
        case .name, .displayName: return .names
        case .authors, .authorNames, .authorEmailAddresses, .recipients, .recipientNames, .recipientEmailAddresses,
             .artist, .composer, .publishers, .ownerName, .groupName, .isPriority, .priorityReasons: return .people
        default: break
        }
        switch key.valueType {
        case .date?: return .dates
        case .integer?, .double?, .bool?: return .numbers
        default: return .text
        }
    }

    // MARK: - The schemas

    static func make(_ options: AgentOptions) -> [Tool] {
        let c = ToolCatalogBuilder(options: options)
        var tools = [c.search, c.count, c.table]
        if options.guidance.offers(.dates) || options.guidance.offers(.numbers) { tools.append(c.statistic) }
        if options.guidance.offers(.text) { tools.append(c.readText) }
        tools.append(c.describe)
        // Suggestions are about time (uses, events, edits), and cover every kind: not offered
        // without dates, nor under a guidance focused on some kinds.
        if options.guidance.offers(.dates) && options.guidance.kinds == nil { tools.append(c.suggest) }
        return tools
    }
}

/// Builds the schemas (kept apart from `ToolCatalog` so the catalog reads as the rules).
private struct ToolCatalogBuilder {
    let options: AgentOptions
    var catalog: ToolCatalog { ToolCatalog(options: options, tools: []) }

    static let readOnly = Tool.Annotations(readOnlyHint: true, openWorldHint: false)

    func object(_ properties: [String: Value], required: [String]) -> Value {
        ["type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
         "additionalProperties": false]
    }

    func strings(_ values: [String]) -> Value { .array(values.map { .string($0) }) }

    var queryLanguage: String { catalog.queryLanguageLines.joined(separator: "; ") }

    var commonInput: [String: Value] {
        var p: [String: Value] = [
            "query": ["type": "string", "maxLength": .int(ToolArguments.maximumString),
                      "description": .string("fsfind's query language: " + queryLanguage)],
        ]
        if options.guidance.offers(.places) {
            p["scopes"] = ["type": "array", "items": ["type": "string"], "maxItems": .int(ToolArguments.maximumList),
                           "description": .string("Folders to search in, inside the server's: \(options.scopes.display.joined(separator: ", ")). Narrows, never widens.")]
        }
        return p
    }

    var statusOutput: [String: Value] {
        ["queryToken": ["type": "string"], "stageToken": ["type": "string"],
         "status": ["type": "string", "enum": ["final", "partial"]],
         "total": ["type": "integer", "description": "How many in all, when status is partial."]]
    }

    func output(_ properties: [String: Value], required: [String]) -> Value {
        ["type": "object", "properties": .object(statusOutput.merging(properties) { a, _ in a }),
         "required": .array((["queryToken", "stageToken", "status"] + required).map { .string($0) })]
    }

    var search: Tool {
        let c = catalog
        var input = commonInput
        // No `maximum`: a client that checks the schema would refuse a larger number itself,
        // and the server cuts it to its cap anyway.
        input["maxResults"] = ["type": "integer", "minimum": 1,
                               "description": .string("At most this many items (default and most: \(options.maxResults); a larger number is cut to \(options.maxResults), and status says partial with the total).")]
        input["fetchAttributes"] = ["type": "array", "maxItems": 32, "items": ["type": "string", "enum": strings(c.attributes.map(\.rawValue))],
                                    "description": "Attributes to add to each item (see describe)."]
        if c.sorts.count > 1 {
            input["sort"] = ["type": "string", "enum": strings(c.sorts), "description": "Order of the items (default relevance)."]
        }
        if !c.stageNames.isEmpty {
            input["stages"] = ["type": "array", "maxItems": 4,
                               "description": "Re-score the items: recency_boost favours recently modified files, usage_boost recently used ones; weight 0-10 (default 1).",
                               "items": object(["name": ["type": "string", "enum": strings(c.stageNames)],
                                                "weight": ["type": "number", "minimum": 0, "maximum": 10]], required: ["name"])]
        }
        let outputSchema: Value
        switch options.format {
        case .full:
            outputSchema = output([
                "returned": ["type": "integer"],
                "items": ["type": "array", "items": [
                    "type": "object",
                    "properties": ["path": ["type": "string"], "name": ["type": "string"], "kind": ["type": "string"],
                                   "score": ["type": "number"], "contentModificationDate": ["type": "string"],
                                   "textContentSummary": ["type": "string"]],
                    "required": ["path", "name", "score"],
                ]],
            ], required: ["returned", "items"])
        case .compact:
            outputSchema = output([
                "returned": ["type": "integer"],
                "scopes": ["type": "array", "items": ["type": "string"], "description": "Paths are relative to these ([N] names the scope when there are several)."],
                "columns": ["type": "array", "items": ["type": "string"]],
                "lines": ["type": "array", "items": ["type": "string"], "description": "One item per line, fields separated by tabs, in the order of columns."],
            ], required: ["returned", "scopes", "columns", "lines"])
        }
        let focus = options.guidance.kinds.map { " Only items of kind \($0.joined(separator: ", ")) are searched." } ?? ""
        return Tool(name: "search", title: "Search files",
                    description: "Find files in \(options.scopes.display.joined(separator: ", ")) by words, names, kinds and attributes, best first.\(focus) status is partial when maxResults cut the list; total says how many matched.",
                    inputSchema: object(input, required: ["query"]), annotations: Self.readOnly, outputSchema: outputSchema)
    }

    var count: Tool {
        Tool(name: "count", title: "Count files", description: "How many files match a query.",
             inputSchema: object(commonInput, required: ["query"]), annotations: Self.readOnly,
             outputSchema: output(["count": ["type": "integer"]], required: ["count"]))
    }

    var table: Tool {
        var input = commonInput
        input["query"] = ["type": "string", "maxLength": .int(ToolArguments.maximumString),
                          "description": "As search's query; empty for every file in the scopes."]
        input["groupBy"] = ["type": "string", "enum": strings(catalog.groupings)]
        return Tool(name: "table", title: "Count files per value", description: "Count the matching files per kind, type, extension, folder, author, month or year, most first.",
                    inputSchema: object(input, required: ["query", "groupBy"]), annotations: Self.readOnly,
                    outputSchema: output(["groupBy": ["type": "string"],
                                          "rows": ["type": "array", "items": [
                                              "type": "object",
                                              "properties": ["value": ["type": ["string", "null"]], "count": ["type": "integer"]],
                                              "required": ["value", "count"]]]],
                                         required: ["groupBy", "rows"]))
    }

    var statistic: Tool {
        var input = commonInput
        input["query"] = ["type": "string", "maxLength": .int(ToolArguments.maximumString),
                          "description": "As search's query; empty for every file in the scopes."]
        input["attribute"] = ["type": "string", "enum": strings(catalog.statisticAttributes.map(\.rawValue))]
        let value: Value = ["type": ["number", "string", "null"], "description": "Dates are ISO 8601 text."]
        return Tool(name: "statistic", title: "Statistic of an attribute", description: "count, sum, min, max and mean of a number or date attribute over the matching files.",
                    inputSchema: object(input, required: ["query", "attribute"]), annotations: Self.readOnly,
                    outputSchema: output(["attribute": ["type": "string"], "matches": ["type": "integer"], "count": ["type": "integer"],
                                          "sum": value, "min": value, "max": value, "mean": value],
                                         required: ["attribute", "matches", "count", "sum", "min", "max", "mean"]))
    }

    var readText: Tool {
        let input: [String: Value] = [
            "path": ["type": "string", "maxLength": 4096, "description": "A path from search results (absolute, or relative to the only scope)."],
            "offset": ["type": "integer", "minimum": 0, "description": "Characters to skip (default 0)."],
            "length": ["type": "integer", "minimum": 1, "maximum": .int(ReadTextLimits.maximum), "description": .string("Characters to return (default \(ReadTextLimits.standard)).")],
        ]
        return Tool(name: "read_text", title: "Read a file's text", description: "The text the index holds for one file in the scopes, a part at a time, with its summary.",
                    inputSchema: object(input, required: ["path"]), annotations: Self.readOnly,
                    outputSchema: output(["path": ["type": "string"], "name": ["type": "string"], "kind": ["type": "string"],
                                          "offset": ["type": "integer"], "length": ["type": "integer"],
                                          "nextOffset": ["type": ["integer", "null"]], "text": ["type": "string"],
                                          "textContentSummary": ["type": ["string", "null"]]],
                                         required: ["path", "offset", "length", "nextOffset", "text", "textContentSummary"]))
    }

    var describe: Tool {
        Tool(name: "describe", title: "What can be searched", description: "The folders searched and what they hold, the attributes, the query language, who \"me\" is, and the guidance in force.",
             inputSchema: object([:], required: []), annotations: Self.readOnly,
             outputSchema: output(["scopes": ["type": "array", "items": ["type": "object"]],
                                   "attributes": ["type": "array", "items": ["type": "object"]],
                                   "queryLanguage": ["type": "array", "items": ["type": "string"]],
                                   "me": ["type": ["object", "null"]],
                                   "guidance": ["type": "object"],
                                   "maxResults": ["type": "integer"], "format": ["type": "string"],
                                   "tools": ["type": "array", "items": ["type": "string"]],
                                   "completions": ["type": "string"]],
                                  required: ["scopes", "attributes", "queryLanguage", "me", "guidance", "tools"]))
    }
}

extension ToolCatalogBuilder {
    var suggest: Tool {
        let reason: Value = ["type": "object", "properties": [
            "reason": ["type": "string", "enum": ["frequent", "recent", "timeOfDay", "dayOfWeek", "eventSoon", "noteEdited"]],
            "uses": ["type": "integer"], "usedAt": ["type": "string"], "hour": ["type": "integer"], "weekday": ["type": "integer"],
            "startsAt": ["type": "string"], "editedAt": ["type": "string"],
        ], "required": ["reason"]]
        return Tool(name: "suggest", title: "Suggest what the user wants now",
                    description: "Without a query: files in the scopes used often or lately, used at this hour or weekday before, calendar events starting soon, notes edited lately; each with its reasons, best first.",
                    inputSchema: object(["maxResults": ["type": "integer", "minimum": 1, "maximum": .int(options.maxResults),
                                                        "description": "At most this many suggestions (default 10)."]], required: []),
                    annotations: Self.readOnly,
                    outputSchema: output(["items": ["type": "array", "items": [
                        "type": "object",
                        "properties": ["path": ["type": "string"], "item": ["type": "string"], "name": ["type": "string"],
                                       "kind": ["type": "string"], "score": ["type": "number"], "startsAt": ["type": "string"],
                                       "namedLocation": ["type": "string"], "reasons": ["type": "array", "items": reason]],
                        "required": ["path", "score", "reasons"],
                    ]]], required: ["items"]))
    }
}

extension ToolCatalog {
    /// Only for the builder: a catalog's rules without its tools (no recursion).
    fileprivate init(options: AgentOptions, tools: [Tool]) {
        self.options = options
        self.tools = tools
    }
}

/// `read_text`'s lengths, in characters.
enum ReadTextLimits {
    static let standard = 4_000
    static let maximum = 32_000
}
