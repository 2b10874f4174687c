import FoundationEssentials
import GRDB
import Synchronization

/// The SQL functions queries use, added to each connection that runs a query.
///
/// - `fs_match(value, pattern, modifiers)`: Spotlight's wildcard match with the c/d/w modifiers
///   (`TextMatcher`); a BLOB value (a path) is read as UTF-8, invalid bytes replaced.
/// - `fs_compare(value, text, modifiers)`: −1, 0 or 1, the value against the text, folded alike.
enum QueryFunctions {
    private struct Key: Hashable {
        var pattern: String
        var flags: UInt8
    }

    /// Compiled matchers, so a pattern's folding is done once per query rather than once per row.
    private static let matchers = Mutex<[Key: TextMatcher]>([:])

    private static func matcher(_ pattern: String, _ flags: UInt8) -> TextMatcher {
        let key = Key(pattern: pattern, flags: flags)
        if let m = matchers.withLock({ $0[key] }) { return m }
        let m = TextMatcher(TextPattern(pattern, QueryModifiers(rawValue: flags)))
        matchers.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = m
        }
        return m
    }

    private static func text(_ v: DatabaseValue) -> String? {
        switch v.storage {
        case .null: nil
        case .string(let s): s
        case .blob(let d): String(decoding: d, as: UTF8.self)
        case .int64(let i): String(i)
        case .double(let d): String(d)
        }
    }

    static let match = DatabaseFunction("fs_match", argumentCount: 3, pure: true) { values in
        guard let value = text(values[0]), let pattern = String.fromDatabaseValue(values[1]),
              let flags = Int.fromDatabaseValue(values[2]) else { return nil }
        return matcher(pattern, UInt8(truncatingIfNeeded: flags)).matches(value)
    }

    static let compare = DatabaseFunction("fs_compare", argumentCount: 3, pure: true) { values in
        guard let value = text(values[0]), let other = String.fromDatabaseValue(values[1]),
              let flags = Int.fromDatabaseValue(values[2]) else { return nil }
        return matcher("", UInt8(truncatingIfNeeded: flags)).compare(value, other)
    }

    static func install(in db: Database) {
        db.add(function: match)
        db.add(function: compare)
    }
}
