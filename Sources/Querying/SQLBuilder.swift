import Attributes
import FoundationEssentials
import GRDB

/// Compiles a `ItemPredicate` to a SQL condition over `items` with bound arguments only: no user text
/// is ever spliced into SQL.
struct SQLBuilder {
    var arguments: [any DatabaseValueConvertible] = []

    mutating func condition(_ p: ItemPredicate) -> String {
        switch p {
        case .all:
            return "1"
        case .text(let pattern):
            arguments.append(pattern.fts5)
            return "items.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)"
        case .nameContains(let text):
            // The trigram index answers a quoted phrase of 3 or more characters as a substring
            // match. LIKE with ESCAPE would be correct too but is never accelerated by FTS5, so it
            // is kept for shorter texts, which trigrams cannot index anyway.
            if text.unicodeScalars.count >= 3 {
                arguments.append("\"" + text.replacing("\"", with: "\"\"") + "\"")
                return "items.id IN (SELECT rowid FROM items_names WHERE items_names MATCH ?)"
            }
            arguments.append("%" + Self.escapeLike(text) + "%")
            return "items.id IN (SELECT rowid FROM items_names WHERE name LIKE ? ESCAPE '\\')"
        case .conformsTo(let type):
            arguments.append(type.rawValue)
            return "items.id IN (SELECT item_id FROM item_types WHERE type = ?)"
        case .identifiers(let paths):
            if paths.isEmpty { return "0" }
            for p in paths { arguments.append(Data(p)) }
            return "items.path IN (" + Array(repeating: "?", count: paths.count).joined(separator: ",") + ")"
        case .and(let parts):
            if parts.isEmpty { return "1" }
            return "(" + parts.map { condition($0) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            if parts.isEmpty { return "0" }
            return "(" + parts.map { condition($0) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (" + condition(inner) + ")"
        }
    }

    /// `items.path` inside one of these folders (the folder itself included).
    mutating func onlyIn(_ folders: [[UInt8]]) -> String? {
        guard !folders.isEmpty else { return nil }
        var parts: [String] = []
        for f in folders {
            var dir = f
            while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
            if dir == [UInt8(ascii: "/")] { return nil }   // the whole file system
            let lower = dir + [UInt8(ascii: "/")]
            let upper = dir + [UInt8(ascii: "0")]            // '/' + 1
            arguments.append(Data(dir))
            arguments.append(Data(lower))
            arguments.append(Data(upper))
            parts.append("(items.path = ? OR (items.path >= ? AND items.path < ?))")
        }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    static func escapeLike(_ s: String) -> String {
        var out = ""
        for c in s {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
