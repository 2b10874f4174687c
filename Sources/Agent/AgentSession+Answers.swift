import Attributes
import Foundation
import MCP
import Querying
import SystemCalls

/// `count`, `table` and `statistic`: answers about the matches rather than the matches.
extension AgentSession {
    /// The rows a table gives at most; the rest are counted in `total`.
    static let tableRowCap = AgentOptions.resultCap

    func count(_ arguments: [String: Value]?) throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "count"))
        let query = try a.string("query", required: true) ?? ""
        let scopes = try options.scopes.narrowed(to: a.strings("scopes"))
        guard case .count(let n) = try run(request(query, scopes: scopes, answer: .count)) else { throw .query("the index gave no count") }
        let status = status(query: query, scopes: scopes, isFinal: true, total: nil)
        var s = status.fields
        s["count"] = .int(n)
        return ToolReply(structured: .object(s), text: status.line + "\ncount: \(n)")
    }

    func table(_ arguments: [String: Value]?) throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "table"))
        let query = try a.string("query", required: true) ?? ""
        let scopes = try options.scopes.narrowed(to: a.strings("scopes"))
        let by = try a.choice("groupBy", catalog.groupings, required: true) ?? "kind"
        let key: GroupKey = switch by {
        case "kind": GroupKey(.kind)
        case "contentType": GroupKey(.contentType)
        case "extension": .fileExtension
        case "folder": .folder
        case "author": GroupKey(.authors)
        case "year": GroupKey(.fsContentChangeDate, period: .year)
        default: GroupKey(.fsContentChangeDate, period: .month)
        }
        guard case .table(var rows) = try run(request(query, scopes: scopes, answer: .table(key))) else { throw .query("the index gave no table") }
        if by == "folder" { rows = insideScopes(rows) }
        let shown = rows.prefix(Self.tableRowCap)
        let status = status(query: query, scopes: scopes, isFinal: shown.count == rows.count, total: rows.count)
        var s = status.fields
        s["groupBy"] = .string(by)
        s["rows"] = .array(shown.map { .object(["value": $0.value.map { .string($0) } ?? .null, "count": .int($0.count)]) })
        let text = shown.map { "\($0.count)\t\(ReplyValues.oneLine($0.value ?? "(none)"))" }.joined(separator: "\n")
        return ToolReply(structured: .object(s), text: status.line + "\ncount\t\(by)\n" + text)
    }

    /// A scope's own folder item lives in the folder above the scope, which the model must not
    /// be shown: it is counted under the scope itself.
    func insideScopes(_ rows: [GroupCount]) -> [GroupCount] {
        var merged: [String: Int] = [:]
        var order: [String] = []
        for row in rows {
            guard let value = row.value else { continue }
            var label = value
            let bytes = ArgumentBytes.bytes(of: value)
            if !options.scopes.contains(bytes) {
                guard let scope = options.scopes.folders.first(where: { ScopeSet.isInside($0, folder: bytes) }) else { continue }
                label = ReplyValues.path(scope)
            }
            if merged[label] == nil { order.append(label) }
            merged[label, default: 0] += row.count
        }
        return order.map { GroupCount(value: $0, count: merged[$0] ?? 0) }.sorted { $0.count > $1.count }
    }

    func statistic(_ arguments: [String: Value]?) throws(AgentError) -> ToolReply {
        let a = try ToolArguments(arguments, known: catalog.arguments(of: "statistic"))
        let query = try a.string("query", required: true) ?? ""
        let scopes = try options.scopes.narrowed(to: a.strings("scopes"))
        let name = try a.string("attribute", required: true, maxLength: 128) ?? ""
        let key = try attribute(name, argument: "attribute")
        guard catalog.statisticAttributes.contains(key) else {
            throw .badArgument(name: "attribute", reason: "\"\(name)\" holds text; a statistic needs a number or a date (such as fileSize, pageCount, duration, contentModificationDate)")
        }
        guard case .statistic(_, let st) = try run(request(query, scopes: scopes, answer: .statistic(key))) else { throw .query("the index gave no statistic") }
        let isDate = key.valueType == .date
        func show(_ d: Double?) -> Value {
            guard let d, d.isFinite else { return .null }
            if isDate { return .string(AttributeValue.iso8601(Date(timeIntervalSince1970: d))) }
            return d.rounded() == d && abs(d) < 1e15 ? .int(Int(d)) : .double(d)
        }
        let status = status(query: query, scopes: scopes, isFinal: true, total: nil)
        var s = status.fields
        s["attribute"] = .string(key.rawValue)
        s["matches"] = .int(st.matches)
        s["count"] = .int(st.count)
        // A sum of dates means nothing.
        s["sum"] = isDate ? .null : show(st.sum)
        s["min"] = show(st.minimum)
        s["max"] = show(st.maximum)
        s["mean"] = show(st.mean)
        let lines = ["attribute", "matches", "count", "sum", "min", "max", "mean"].map { k in
            let v = s[k] ?? .null
            return "\(k): " + (v.stringValue ?? (v.isNull ? "-" : ReplyValues.encode(v)))
        }
        return ToolReply(structured: .object(s), text: status.line + "\n" + lines.joined(separator: "\n"))
    }
}
