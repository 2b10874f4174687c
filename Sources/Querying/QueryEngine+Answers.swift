import Attributes
import FoundationEssentials
import GRDB
import Indexing
import MemberwiseInit

/// Decides, for a matching item's identifier (path bytes, or `path NUL key`), whether a summary
/// counts it; `QueryPipeline` passes its existence check, so counts, tables and statistics
/// agree with the items it prints.
package typealias ItemKeeper = ([UInt8]) -> Bool

/// Summaries of the matches: `--count`, `--group-by` and `--stats`.
extension QueryEngine {
    /// How many items match. With `keep`, only those it keeps count: `QueryPipeline` passes
    /// its existence check, so the number agrees with the items it would print.
    package func count(_ spec: QuerySpec, keep: ItemKeeper? = nil) throws(QueryError) -> Int {
        // A question: what its list holds (`fsfind QUESTION | wc -l`), its stages as they run.
        if let words = spec.question {
            var all = spec
            all.limit = nil
            all.offset = 0
            return try runQuestion(all, words: words).count { keep?($0.identifier.bytes) ?? true }
        }
        var b = SQLBuilder()
        let from = filtered(spec, &b)
        let args = StatementArguments(b.arguments.map { $0.databaseValue })
        return try read(spec) { db in
            guard let keep else { return try Int.fetchOne(db, sql: "SELECT count(*) " + from, arguments: args) ?? 0 }
            var n = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT items.path " + from, arguments: args)
            while let row = try rows.next() {
                let path: Data = row[0]
                if keep(Array(path)) { n += 1 }
            }
            return n
        }
    }

    /// `FROM items WHERE …` for the spec's filter (no ranking).
    private func filtered(_ spec: QuerySpec, join: String = "", _ b: inout SQLBuilder) -> String {
        var conditions = [b.condition(spec.predicate.simplified), "(items.expiration IS NULL OR items.expiration > ?)"]
        b.appendArgument(spec.now.timeIntervalSince1970)
        if let c = b.onlyIn(spec.onlyIn) { conditions.append(c) }
        return "FROM items\(join) WHERE " + conditions.joined(separator: " AND ")
    }

    /// The rows of matching items that `keep` leaves out, as a JSON array for
    /// `items.id NOT IN (SELECT value FROM json_each(?))`; nil when it keeps them all (the usual
    /// case, which then costs one pass over the matches' paths).
    private func leftOut(_ db: Database, _ spec: QuerySpec, keep: ItemKeeper?) throws -> String? {
        guard let keep else { return nil }
        var b = SQLBuilder()
        let from = filtered(spec, &b)
        var out: [Int64] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT items.id, items.path " + from,
                                       arguments: StatementArguments(b.arguments.map { $0.databaseValue }))
        while let row = try rows.next() {
            let path: Data = row[1]
            if !keep(Array(path)) { out.append(row[0]) }
        }
        return out.isEmpty ? nil : "[" + out.map(String.init).joined(separator: ",") + "]"
    }

    /// `from` narrowed to leave out `leftOut`'s rows.
    private static func excluding(_ from: String, _ leftOut: String?, _ b: inout SQLBuilder) -> String {
        guard let leftOut else { return from }
        b.appendArgument(leftOut)
        return from + " AND items.id NOT IN (SELECT value FROM json_each(?))"
    }

    /// Counts of matching items per value of an attribute, most frequent first. Lists count an
    /// item once per element (an item by two authors counts for both); dates are grouped by the
    /// given period, in local time.
    /// With `keep`, only the items it keeps are counted (see `count`).
    package func groupCounts(_ spec: QuerySpec, by group: GroupKey, keep: ItemKeeper? = nil) throws(QueryError) -> [GroupCount] {
        var b = SQLBuilder()
        let value: String
        var join = ""
        if let derived = group.derivedExpression {
            value = derived
        } else {
        switch SQLBuilder.storage(of: group.key) {
        case .column(let column):
            value = group.key.valueType == .date ? "strftime('\(group.period.format)', \(column), 'unixepoch', 'localtime')" : column
        case .json:
            b.appendArgument("$." + group.key.rawValue)
            value = group.key.valueType == .date
                ? "strftime('\(group.period.format)', json_extract(items.attributes, ?), 'localtime')"
                : "json_extract(items.attributes, ?)"
        case .list:
            b.appendArgument("$." + group.key.rawValue)
            join = ", json_each(items.attributes, ?) AS element"
            value = "element.value"
        case .typeTree:
            join = " JOIN \(Schema.typesTable) AS t ON t.item_id = items.id"
            value = "t.type"
        case .fullText:
            throw .badValue(attribute: group.key.rawValue, value: "--group-by", reason: "cannot be grouped: it is free text; group by an attribute such as kind, authors or contentModificationDate")
        }
        }
        let filter = filtered(spec, join: join, &b)
        return try read(spec) { db in
            var b = b
            let from = Self.excluding(filter, try leftOut(db, spec, keep: keep), &b)
            let sql = "SELECT \(value) AS v, count(*) AS n \(from) GROUP BY v ORDER BY n DESC, v"
            let args = StatementArguments(b.arguments.map { $0.databaseValue })
            return try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                let v: DatabaseValue = row["v"]
                let text: String? = switch v.storage {
                case .null: nil
                case .string(let s): s
                case .int64(let i): String(i)
                case .double(let d): QueryCompiler.format(d)
                case .blob(let d): String(decoding: d, as: UTF8.self)
                }
                return GroupCount(value: text, count: row["n"])
            }
        }
    }

    /// Count, sum, smallest, largest and mean of a number or date attribute over the matches.
    /// With `keep`, only the items it keeps are counted (see `count`).
    package func statistics(_ spec: QuerySpec, of key: AttributeKey, keep: ItemKeeper? = nil) throws(QueryError) -> AttributeStatistics {
        var b = SQLBuilder()
        let value: String
        let type = key.valueType
        switch (SQLBuilder.storage(of: key), type) {
        case (.column(let column), .integer?), (.column(let column), .double?), (.column(let column), .date?):
            value = column
        case (.json, .integer?), (.json, .double?), (.json, .bool?):
            b.appendArgument("$." + key.rawValue)
            value = "json_extract(items.attributes, ?)"
        case (.json, .date?):
            b.appendArgument("$." + key.rawValue)
            value = "(julianday(json_extract(items.attributes, ?)) - 2440587.5) * 86400.0"
        default:
            throw .badValue(attribute: key.rawValue, value: "--stats", reason: "holds text: --stats needs a number or a date (such as fileSize, pixelWidth, duration, contentModificationDate); use --group-by for text")
        }
        let filter = filtered(spec, &b)
        return try read(spec) { db in
            var b = b
            let from = Self.excluding(filter, try leftOut(db, spec, keep: keep), &b)
            // count(*) counts every match; count(v) those that have the attribute.
            let sql = "SELECT count(v) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi, avg(v) AS mean, count(*) AS total FROM (SELECT \(value) AS v \(from))"
            let args = StatementArguments(b.arguments.map { $0.databaseValue })
            guard let row = try Row.fetchOne(db, sql: sql, arguments: args) else {
                return AttributeStatistics(key: key, matches: 0, count: 0, sum: nil, minimum: nil, maximum: nil, mean: nil)
            }
            return AttributeStatistics(key: key, matches: row["total"], count: row["n"], sum: row["s"],
                                       minimum: row["lo"], maximum: row["hi"], mean: row["mean"])
        }
    }
}

/// An attribute to group by, and for dates the period.
package struct GroupKey: Sendable, Hashable {
    package var key: AttributeKey
    package var period: Period

    package enum Period: String, Sendable, Hashable, CaseIterable {
        case day, week, month, year
        var format: String {
            switch self {
            case .day: "%Y-%m-%d"
            case .week: "%Y-W%W"
            case .month: "%Y-%m"
            case .year: "%Y"
            }
        }
    }

    package init(_ key: AttributeKey, period: Period = .month) {
        self.key = key
        self.period = period
    }

    /// By extension: the lowercased text after the last dot of the name (none for `.bashrc`).
    package static let fileExtension = GroupKey(AttributeKey("fileExtension"))
    /// By the folder that holds the item (for an item inside a file, the file's folder).
    package static let folder = GroupKey(AttributeKey("folder"))

    /// The SQL of a group that no attribute stores but the path and name give.
    package var derivedExpression: String? {
        switch key {
        case Self.fileExtension.key:
            // SQLite has no "last index of": rtrim strips every character that is not a dot
            // from the right, leaving the name up to its last dot.
            let stem = "rtrim(items.name, replace(items.name, '.', ''))"
            return "CASE WHEN length(\(stem)) > 1 THEN nullif(lower(substr(items.name, length(\(stem)) + 1)), '') END"
        case Self.folder.key:
            // The file's path (before a NUL and the key of an item inside it), then the same
            // trick with slashes.
            let file = "CAST(CASE WHEN instr(items.path, x'00') > 0 THEN substr(items.path, 1, instr(items.path, x'00') - 1) ELSE items.path END AS TEXT)"
            let head = "rtrim(\(file), replace(\(file), '/', ''))"
            return "CASE WHEN length(\(head)) > 1 THEN substr(\(head), 1, length(\(head)) - 1) ELSE '/' END"
        default:
            return nil
        }
    }
}

/// One row of a `--group-by` table; `value` is nil for items without the attribute.
@MemberwiseInit
package struct GroupCount: Sendable, Hashable {
    package var value: String?
    package var count: Int
}

/// `--stats`: over the matches that have the attribute (`count` of `matches`).
@MemberwiseInit
package struct AttributeStatistics: Sendable, Hashable {
    package var key: AttributeKey
    package var matches: Int
    package var count: Int
    package var sum: Double? = nil
    package var minimum: Double? = nil
    package var maximum: Double? = nil
    package var mean: Double? = nil
}
