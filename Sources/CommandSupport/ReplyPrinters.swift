import Attributes
import Foundation
import MemberwiseInit
import Querying

/// Prints the replies of a `QueryPipeline` in one output mode. `fsfind` picks one; each prints
/// every kind of reply (items, live changes, a count, a table, a statistic).
package protocol ReplyPrinter {
    func print(_ reply: QueryReply)
}

extension QueryReply {
    /// Whether the reply found anything, for the exit status (0 found, 1 nothing, as grep).
    package var foundSomething: Bool {
        switch content {
        case .items(let items): !items.isEmpty
        case .count(let n): n > 0
        case .table(let rows): !rows.isEmpty
        case .statistic(_, let s): s.count > 0
        case .changes(let added, let removed): !added.isEmpty || !removed.isEmpty
        case .summarized(let items): !items.isEmpty
        case .prioritized(let items): !items.isEmpty
        }
    }
}

/// For people and for `xargs`: paths one per line (or NUL-terminated; `HOST:PATH` where the
/// shared index holds the path on several hosts), each item's snippet on
/// the next line, `+ path`/`- path` for live changes (`~ path`: its summary arrived; `! path`:
/// its `isPriority` changed), aligned
/// tables and statistics. Control characters are escaped on a terminal only; a pipe gets the
/// raw bytes.
@MemberwiseInit
package struct PathPrinter: ReplyPrinter {
    package var out: Output = .standardOutput
    /// End each path with NUL instead of a newline (no snippets then).
    package var nul: Bool = false

    package func print(_ reply: QueryReply) {
        switch reply.content {
        case .items(let items):
            for item in items {
                path(item.path, url: item.attributes.string(.contentURL), host: item.host,
                     suffix: item.origin.flatMap { $0.offline && !nul ? "  [offline: " + Output.field($0.volume) + "]" : nil })
                if let s = item.snippet, !nul { out.write("    " + SnippetText.render(s, color: out.useColor) + "\n") }
            }
        case .changes(let added, let removed):
            for item in removed { path(item.path, prefix: "- ", host: item.host) }
            for item in added { path(item.path, prefix: "+ ", host: item.host) }
        case .summarized(let items):
            for item in items { path(item.path, prefix: "~ ", host: item.host) }
        case .prioritized(let items):
            for item in items { path(item.path, prefix: "! ", host: item.host) }
        case .count(let n):
            out.write("\(n)\n")
        case .table(let rows):
            let width = max(5, rows.map { String($0.count).count }.max() ?? 0)
            for row in rows {
                let n = String(row.count)
                out.write(String(repeating: " ", count: width - n.count) + n + "  ")
                out.write(Output.field(row.value ?? "(none)") + "\n")
            }
        case .statistic(let key, let s):
            let v = StatisticText(key: key, json: false)
            out.write("attribute  \(key.rawValue)\nmatches    \(s.matches)\n")
            out.write("count      \(s.count)   (matches that have it)\n")
            if key.valueType != .date { out.write("sum        \(v.show(s.sum))\n") }
            out.write("min        \(v.show(s.minimum))\nmax        \(v.show(s.maximum))\nmean       \(v.show(s.mean))\n")
        }
        out.flush()
    }

    /// One item's line; `host` (the shared index has the path on several hosts) comes first,
    /// as `HOST:PATH`, like scp's: the host's name is text (`Output.field`); `suffix` comes after
    /// the path, on its line (an unplugged volume's mark).
    private func path(_ bytes: [UInt8], prefix: String = "", url: String? = nil, host: String? = nil, suffix: String? = nil) {
        out.write(prefix)
        if let host { out.write(Output.field(host) + ":") }
        if bytes.first == UInt8(ascii: "/") {
            out.writePath(bytes)
        } else {
            // An app's donated item prints as its contentURL, else as DOMAIN:ID (never a path:
            // no `/` first). Both are an app's text: escaped (`Output.field`), but with `-0`
            // in a pipe, where they go out exact (a NUL excepted, which would end the record).
            let text = url.map { Array($0.utf8) } ?? bytes
            if nul && !out.isTerminal {
                out.writeBytes(text.flatMap { $0 == 0 ? Array("\\x00".utf8) : [$0] })
            } else {
                out.write(Output.field(text))
            }
        }
        if let suffix { out.write(suffix) }
        out.writeBytes([nul ? 0 : 0x0A])
    }
}

/// For scripts: one JSON object per line. Items carry `path` (and `pathBase64` when the path is
/// not UTF-8), the fetched attributes, `score` when asked for, `item` for an item inside a file,
/// `host` where the shared index holds the path on several hosts, `volume` and `offline` for an
/// item of a volume's index (`--include-offline`),
/// and `snippet` (matched words between `**`); live lines add `change` (`=`, `+`, `-`, and `~`
/// when an item's summary arrived, `!` when its `isPriority` changed, with the fetched
/// attributes, so `--attr textContentSummary` shows the summary itself).
@MemberwiseInit
package struct JSONLinesPrinter: ReplyPrinter {
    package var out: Output = .standardOutput
    package let withScore: Bool

    package func print(_ reply: QueryReply) {
        switch reply.content {
        case .items(let items):
            for item in items { line(item, change: reply.isFinal ? nil : "=") }
        case .changes(let added, let removed):
            for item in removed { line(item, change: "-") }
            for item in added { line(item, change: "+") }
        case .summarized(let items):
            for item in items { line(item, change: "~", keepAttributes: true) }
        case .prioritized(let items):
            for item in items { line(item, change: "!", keepAttributes: true) }
        case .count(let n):
            out.write("\(n)\n")   // a JSON number, as the plain output
        case .table(let rows):
            for row in rows {
                let value = row.value.map { Self.quoted($0) } ?? "null"
                out.write("{\"count\":\(row.count),\"value\":\(value)}\n")
            }
        case .statistic(let key, let s):
            let v = StatisticText(key: key, json: true)
            let sum = key.valueType == .date ? "null" : v.show(s.sum)
            out.write("{\"attribute\":\(Self.quoted(key.rawValue)),\"matches\":\(s.matches),\"count\":\(s.count),\"sum\":\(sum),"
                      + "\"min\":\(v.show(s.minimum)),\"max\":\(v.show(s.maximum)),\"mean\":\(v.show(s.mean))}\n")
        }
        out.flush()
    }

    private func line(_ item: FoundItem, change: String?, keepAttributes: Bool = false) {
        var a = item.attributes
        var extra: [String: String] = [:]
        if let change {
            if !keepAttributes { a = AttributeSet() }   // live lines: the path and the change
            extra["change"] = change
        } else {
            if withScore { a["score"] = .double(item.score) }
            if let stage = item.stage { a["stage"] = .string(stage.rawValue) }
            if let s = item.snippet { a["snippet"] = .string(SnippetText.render(s, color: false)) }
        }
        if let key = item.childKey { a["item"] = .string(key) }
        // The shared index has the path on several hosts: which one this is.
        if let host = item.host { extra["host"] = host }
        if let origin = item.origin {
            // The volume it is on; offline: unplugged now, found in its index only.
            a["volume"] = .string(origin.volume)
            a["offline"] = .bool(origin.offline)
        }
        out.write(JSONLine.render(path: item.path, attributes: a, extra: extra) + "\n")
    }

    static func quoted(_ s: String) -> String {
        (try? JSONEncoder().encode(s)).map { JSONLine.escapingC1(String(decoding: $0, as: UTF8.self)) } ?? "\"\""
    }
}

/// A snippet on one line: the matched words in bold red on a terminal with colour, else between
/// `**`; control characters become spaces.
package enum SnippetText {
    package static func render(_ snippet: String, color: Bool) -> String {
        var out = ""
        for ch in snippet {
            switch String(ch) {
            case QueryEngine.snippetStart: out += color ? "\u{1B}[1;31m" : "**"
            case QueryEngine.snippetEnd: out += color ? "\u{1B}[0m" : "**"
            default:
                out.append(ch.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } ? " " : ch)
            }
        }
        return out
    }
}

/// Numbers as integers when whole, dates as ISO 8601; `-` (text) or `null` (JSON) when absent.
struct StatisticText {
    let key: AttributeKey
    let json: Bool

    func show(_ v: Double?) -> String {
        guard let v else { return json ? "null" : "-" }
        if key.valueType == .date {
            let d = AttributeValue.iso8601(Date(timeIntervalSince1970: v))
            return json ? "\"" + d + "\"" : d
        }
        return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(format: "%.3f", v)
    }
}
