import Attributes
import Foundation
import MCP
import Querying
import SystemCalls

/// What every reply carries, as SpotlightSearchTool's SearchReply: the query it answers, the
/// stage of that query, and whether the answer is whole.
struct ReplyStatus: Sendable {
    /// The same for every call about the same query and scopes in this session, so that a
    /// count, a table and a search of one query can be told apart from another's.
    var queryToken: String
    /// Unique to this call: the query's token and the call's number.
    var stageToken: String
    /// False when a limit cut the answer (`maxResults`, the rows of a table, the length of a text).
    var isFinal: Bool
    /// How many there were in all (items, rows, characters), whether or not all are given.
    var total: Int?

    var fields: [String: Value] {
        var f: [String: Value] = ["queryToken": .string(queryToken), "stageToken": .string(stageToken),
                                  "status": .string(isFinal ? "final" : "partial")]
        if let total { f["total"] = .int(total) }
        return f
    }

    /// The first line of a text rendering.
    var line: String {
        "status: \(isFinal ? "final" : "partial")" + (total.map { ", total \($0)" } ?? "") + "; queryToken \(queryToken), stageToken \(stageToken)"
    }
}

/// A tool's answer: the structured content (matching the tool's output schema) and its text
/// rendering.
package struct ToolReply: Sendable {
    package var structured: Value
    package var text: String
}

enum ReplyValues {
    /// An attribute's value as JSON: dates as ISO 8601 text, lists as arrays.
    static func json(_ value: AttributeValue) -> Value {
        switch value {
        case .string(let s): .string(s)
        case .strings(let a): .array(a.map { .string($0) })
        case .integer(let i): .int(Int(i))
        case .double(let d): d.isFinite ? .double(d) : .null
        case .date(let d): .string(AttributeValue.iso8601(d))
        case .bool(let b): .bool(b)
        }
    }

    /// A value on one line, for text renderings and compact lines: no tabs or line breaks.
    static func line(_ value: AttributeValue) -> String {
        let s: String = switch value {
        case .date(let d): day(d)
        case .double(let d): ToolArguments.format((d * 1000).rounded() / 1000)
        default: value.stringValue ?? ""
        }
        return oneLine(s)
    }

    static func oneLine(_ s: String) -> String {
        String(s.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    /// `2026-11-24`: the day is what a person asks about; the full time is in the full format.
    static func day(_ date: Date) -> String {
        String(AttributeValue.iso8601(date).prefix(10))
    }

    /// At most `limit` characters, cut at a word where one is near, with an ellipsis.
    static func cut(_ s: String, to limit: Int) -> String {
        let s = oneLine(s).trimmingCharacters(in: .whitespaces)
        guard s.count > limit else { return s }
        var head = String(s.prefix(limit - 1))
        if let space = head.lastIndex(of: " "), head.distance(from: head.startIndex, to: space) > limit / 2 {
            head = String(head[..<space])
        }
        return head + "…"
    }

    /// A path as the model reads it (and gives back): bytes that are not UTF-8 kept.
    static func path(_ bytes: [UInt8]) -> String { ArgumentBytes.encode(bytes) }

    /// The last component of a path.
    static func name(_ bytes: [UInt8]) -> String {
        let tail = bytes.split(separator: 0x2F, omittingEmptySubsequences: true).last.map(Array.init) ?? bytes
        return ArgumentBytes.encode(tail)
    }

    /// fsfind's `kind:` word for an item's types (`pdf`, `image`, `mail`), the most specific that
    /// fits; compact lines use it, and it is the word a query takes.
    static func kindWord(types: [ContentType], fallback: String?) -> String {
        let tree = Set(types.map(\.rawValue))
        for word in kindOrder {
            if let list = ShortQueryParser.kinds[word], list.contains(where: tree.contains) { return word }
        }
        return fallback ?? "item"
    }

    /// Most specific first: a PDF is `pdf` before it is a `document`, a spreadsheet before a document.
    static let kindOrder = ["folder", "pdf", "mail", "presentation", "spreadsheet", "book", "image", "audio", "video", "archive",
                            "code", "document", "text"]
}
