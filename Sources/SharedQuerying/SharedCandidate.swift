import Attributes
import Foundation
import Indexing
import Querying
import PostgresNIO
import Glibc

/// One row the server found, with what the residual tests and the summaries read of it.
struct Candidate {
    var id: Int64
    var host: String
    var path: [UInt8]
    var domain: String
    var attributesJSON: String
    var types: [String]
    var texts: [SearchPattern.Column: String]
    var leaves: [Bool]
    private var decoded: AttributeSet?

    init(_ r: PostgresRandomAccessRow, leafCount: Int) {
        id = (try? r["id"].decode(Int64.self)) ?? 0
        host = (try? r["host"].decode(String.self)) ?? ""
        path = (try? r["path"].decode(ByteBuffer.self)).map { Array($0.readableBytesView) } ?? []
        domain = (try? r["domain"].decode(String.self)) ?? ""
        attributesJSON = (try? r["attributes"].decode(String.self)) ?? "{}"
        types = (try? r["types"].decode([String].self)) ?? []
        texts = [:]
        for (column, name) in [(SearchPattern.Column.name, "name"), (.title, "title"), (.other, "other"), (.text, "body")] {
            if let s = try? r[name].decode(String.self) { texts[column] = s }
        }
        leaves = (0..<leafCount).map { (try? r["l\($0)"].decode(Bool.self)) ?? false }
    }

    var attributes: AttributeSet {
        mutating get {
            if let decoded { return decoded }
            let a = (try? IndexStore.attributes(json: attributesJSON)) ?? AttributeSet()
            decoded = a
            return a
        }
    }

    /// An attribute's values as text, as SQLite's `fs_match` reads them; nil when it is missing.
    mutating func texts(of key: AttributeKey) -> [String]? {
        if key == .path { return [String(decoding: path, as: UTF8.self)] }
        if key == .contentTypeTree { return types }
        guard let v = attributes[key] else { return nil }
        switch v {
        case .string(let s): return [s]
        case .strings(let a): return a
        case .integer(let i): return [String(i)]
        case .double(let d): return [String(d)]
        case .bool(let b): return [b ? "1" : "0"]
        case .date(let d): return [AttributeValue.iso8601(d)]
        }
    }

    /// A number or date attribute as SQLite's `--stats` reads it (dates in seconds).
    mutating func number(_ key: AttributeKey) -> Double? {
        switch attributes[key] {
        case .integer(let i)?: Double(i)
        case .double(let d)?: d
        case .bool(let b)?: b ? 1 : 0
        case .date(let d)?: d.timeIntervalSince1970
        default: nil
        }
    }

    /// The values an item counts under in a `--group-by` table, as SQLite's query gives them:
    /// a list or type tree once per element (none when there is none), a scalar once (nil
    /// when missing).
    mutating func groupValues(_ group: GroupKey) -> [String?] {
        let key = group.key
        if key == GroupKey.fileExtension.key {
            let name = Array((attributes.string(.name) ?? "").utf8)
            guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return [nil] }
            let ext = name[(dot + 1)...].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
            return [ext.isEmpty ? nil : String(decoding: ext, as: UTF8.self)]
        }
        if key == GroupKey.folder.key {
            let file = path.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false).first.map(Array.init) ?? path
            guard let slash = file.lastIndex(of: UInt8(ascii: "/")), slash > 0 else { return ["/"] }
            return [String(decoding: file[..<slash], as: UTF8.self)]
        }
        switch SQLBuilder.storage(of: key) {
        case .typeTree: return types
        case .list: return attributes.strings(key).map { Optional($0) }
        default: break
        }
        guard let v = attributes[key] else { return [nil] }
        switch v {
        case .string(let s): return [s]
        case .strings(let a): return a.map { Optional($0) }
        case .integer(let i): return [String(i)]
        case .double(let d): return [QueryCompiler.format(d)]
        case .bool(let b): return [b ? "1" : "0"]
        case .date(let d): return [Self.format(d, group.period)]
        }
    }

    /// strftime in local time, as SQLite's `strftime(…, 'localtime')`.
    static func format(_ date: Date, _ period: GroupKey.Period) -> String {
        var t = time_t(floor(date.timeIntervalSince1970))
        var tm = Glibc.tm()
        localtime_r(&t, &tm)
        var buffer = [CChar](repeating: 0, count: 64)
        let format = switch period {
        case .day: "%Y-%m-%d"
        case .week: "%Y-W%W"
        case .month: "%Y-%m"
        case .year: "%Y"
        }
        let n = strftime(&buffer, buffer.count, format, &tm)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension SharedQueryEngine {
    /// The predicate's truth for a candidate: exact leaves from the server's columns, in the
    /// order `SharedSQLBuilder.collectLeaves` listed them, residual ones tested here.
    static func evaluate(_ p: ItemPredicate, _ c: Candidate, _ index: inout Int) -> Bool {
        var c = c
        return evaluateLeaves(p, &c, &index)
    }

    private static func evaluateLeaves(_ p: ItemPredicate, _ c: inout Candidate, _ index: inout Int) -> Bool {
        switch p {
        case .all: return true
        case .none: return false
        case .and(let parts):
            var result = true
            for part in parts where !evaluateLeaves(part, &c, &index) { result = false }
            return result
        case .or(let parts):
            var result = false
            for part in parts where evaluateLeaves(part, &c, &index) { result = true }
            return result
        case .not(let inner):
            return !evaluateLeaves(inner, &c, &index)
        default:
            var probe = SharedSQLBuilder()
            if probe.exact(p) != nil {
                defer { index += 1 }
                return index < c.leaves.count ? c.leaves[index] : false
            }
            return residual(p, &c)
        }
    }

    /// A leaf the server cannot decide: Spotlight's wildcards and modifiers, with `TextMatcher`.
    private static func residual(_ p: ItemPredicate, _ c: inout Candidate) -> Bool {
        switch p {
        case .folderNamed(let name):
            let pattern = TextPattern("*/" + SQLBuilder.escape(name, ["*", "?", "\\"]) + "/*", [.caseInsensitive, .diacriticInsensitive])
            return TextMatcher(pattern).matches(String(decoding: c.path, as: UTF8.self))
        case .compare(let cmp):
            guard case .text(let pattern) = cmp.operand else { return false }
            let storage = SQLBuilder.storage(of: cmp.key)
            let values: [String]?
            if case .fullText(let column) = storage {
                let columns: [SearchPattern.Column] = column.map { [$0] } ?? [.name, .title, .other, .text]
                values = columns.compactMap { c.texts[$0] }
            } else {
                values = c.texts(of: cmp.key)
            }
            let matcher = TextMatcher(pattern)
            switch cmp.op {
            case .equal:
                return values?.contains { matcher.matches($0) } ?? false
            case .notEqual:
                switch storage {
                case .list: return values != nil && !(values!.contains { matcher.matches($0) })
                case .typeTree, .fullText: return !(values ?? []).contains { matcher.matches($0) }
                default:
                    guard let v = values?.first else { return false }
                    return !matcher.matches(v)
                }
            default:
                let other = pattern.literalText ?? pattern.raw
                return (values ?? []).contains { v in
                    let r = matcher.compare(v, other)
                    switch cmp.op {
                    case .less: return r < 0
                    case .lessOrEqual: return r <= 0
                    case .greater: return r > 0
                    case .greaterOrEqual: return r >= 0
                    default: return false
                    }
                }
            }
        default:
            return false
        }
    }
}
