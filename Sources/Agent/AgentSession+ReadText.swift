import Attributes
import Foundation
import Indexing
import MCP
import Querying
import SystemCalls

/// `read_text`: the text the index holds for one file in the scopes, a part at a time.
extension AgentSession {
    func readText(_ arguments: [String: Value]?) throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "read_text"))
        let argument = try a.string("path", required: true, maxLength: 4096) ?? ""
        let offset = try a.integer("offset", in: 0...(1 << 40)) ?? 0
        let length = try a.integer("length", in: 1...ReadTextLimits.maximum) ?? ReadTextLimits.standard
        let path = try resolve(argument)
        try available(path)
        let item: SearchableItem?
        do { item = try pipeline().engine.item(ItemIdentifier(bytes: path)) } catch {
            throw .failed(error)
        }
        guard let item else { throw .notAvailable(path: ReplyValues.path(path), reason: "is not in the index (not indexed yet, or left out by the crawl rules)") }
        let text = item.attributes.textContent ?? ""
        let total = text.count
        let start = text.index(text.startIndex, offsetBy: min(offset, total))
        let end = text.index(start, offsetBy: length, limitedBy: text.endIndex) ?? text.endIndex
        let part = String(text[start..<end])
        let next = end < text.endIndex ? offset + part.count : nil
        let status = status(query: "read_text\u{0}" + ReplyValues.path(path), scopes: [], isFinal: next == nil, total: total)
        var s = status.fields
        s["path"] = .string(ReplyValues.path(path))
        s["name"] = .string(ReplyValues.name(path))
        if let kind = item.attributes.kind { s["kind"] = .string(kind) }
        s["offset"] = .int(min(offset, total))
        s["length"] = .int(part.count)
        s["nextOffset"] = next.map { .int($0) } ?? .null
        s["text"] = .string(part)
        let summary = item.attributes.string(.textContentSummary)
        s["textContentSummary"] = summary.map { .string($0) } ?? .null
        if item.attributes[.textTruncated] != nil { s["textTruncated"] = .bool(true) }
        var header = status.line + "\npath: \(ReplyValues.path(path))\ncharacters \(min(offset, total))-\(min(offset, total) + part.count) of \(total)"
        if let next { header += "; next offset \(next)" }
        if let summary { header += "\nsummary: \(summary)" }
        return ToolReply(structured: .object(s), text: header + "\n\n" + part)
    }

    /// A path from the model: absolute, or relative to the only scope; `.` and `..` taken
    /// lexically (a `..` cannot climb out unseen: the result is checked against the scopes).
    func resolve(_ argument: String) throws(AgentError) -> [UInt8] {
        var bytes = ArgumentBytes.bytes(of: argument)
        if argument.hasPrefix("file://") { bytes = try ResourceURI.path(argument) }
        guard !bytes.isEmpty, !bytes.contains(0) else { throw .badArgument(name: "path", reason: "must be a file's path") }
        if bytes.first != 0x2F {
            guard options.scopes.folders.count == 1 else {
                throw .badArgument(name: "path", reason: "must be absolute when the server has several scopes (\(options.scopes.display.joined(separator: ", ")))")
            }
            bytes = options.scopes.folders[0] + [0x2F] + bytes
        }
        return ScopeSet.normalized(bytes)
    }
}
