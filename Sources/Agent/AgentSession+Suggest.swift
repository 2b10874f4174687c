import Attributes
import Foundation
import Indexing
import MCP
import Querying

/// `suggest`: what the user likely wants now, the same answer as `fsindex suggest --json`, cut
/// to the scopes.
///
/// There is no `complete` tool: completions come from the whole index's vocabulary, so they
/// would tell a model which words the files outside its scopes hold (the scopes are no oracle,
/// see `ScopeSet.admits`). `describe` names `fsfind --complete` for people instead.
extension AgentSession {
    /// The local index, which suggestions read directly.
    func localStore(_ tool: String) throws(AgentError) -> IndexStore {
        guard let engine = try pipeline().engine as? QueryEngine else {
            throw .query("\(tool) reads the local index; the shared index keeps no uses or events")
        }
        return engine.store
    }

    func suggest(_ arguments: [String: Value]?, now: Date = Date()) throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "suggest"))
        let limit = try a.integer("maxResults", in: 1...options.maxResults) ?? min(10, options.maxResults)
        let store = try localStore("suggest")
        let suggestions: [Suggestion]
        do {
            // Only what the model may be shown: inside the scopes, there and readable.
            suggestions = try Suggester(now: now).suggestions(limit: limit, in: store) { item in
                let file = ItemIdentifier.split(item.uniqueIdentifier.bytes).file
                return options.scopes.admits(file) && Self.readable.state(of: file) == .exists
            }
        } catch {
            throw .failed(error)
        }
        var items: [Value] = []
        for s in suggestions {
            let line = s.jsonLine(path: ReplyValues.path)
            guard let value = try? JSONDecoder().decode(Value.self, from: Data(line.utf8)) else { continue }
            items.append(value)
        }
        let status = status(query: "suggest", scopes: options.scopes.folders, isFinal: true, total: nil)
        var s = status.fields
        s["items"] = .array(items)
        let text = suggestions.map { sg in
            ReplyValues.path(ItemIdentifier.split(sg.item.uniqueIdentifier.bytes).file) + "\t" + sg.reasons.map(\.description).joined(separator: ", ")
        }
        return ToolReply(structured: .object(s), text: ([status.line] + text).joined(separator: "\n"))
    }
}
