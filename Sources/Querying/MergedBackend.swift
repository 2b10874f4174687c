import Attributes
import FoundationEssentials
import Indexing
import MemberwiseInit

/// Where a result comes from when several indexes answer one query: a volume's, by its name,
/// and whether the volume is unplugged now (its items then cannot be opened, only found).
@MemberwiseInit
package struct ResultOrigin: Sendable, Hashable {
    /// The volume's label (else its UUID or mount point's name: `Volume.name`).
    package var volume: String
    package var offline: Bool
}

/// Several indexes as one (issue 29): the home index and the volumes' indexes, each asked the
/// same `QuerySpec`, their results merged into one ranked answer.
///
/// A key design decision: merging the top k of each, not attaching the databases to one SQLite
/// connection. Every index keeps its own top-k plan (`TopKRanking`, `OrderedWalk`) and stays a
/// `SearchBackend` of its own; a page `offset..offset+limit` of the whole is within the first
/// `offset+limit` of each part, so each part is asked for that many and the merge takes the page.
/// Results compare by the order asked for: by score for relevance (each index's bm25 with its own
/// term statistics, which for indexes of one person's files are close), by name, size or date
/// otherwise (the parts then return their attributes); a tie keeps the parts' order, home first.
/// Counts, tables and statistics add up. A result's `rowID` carries its part in the top byte, so
/// that snippets are asked of the index that holds it.
package struct MergedBackend: SearchBackend {
    @MemberwiseInit
    package struct Part: Sendable {
        package var backend: any SearchBackend
        /// nil for the home index.
        package var origin: ResultOrigin?
    }

    package let parts: [Part]

    package init(parts: [Part]) {
        precondition(!parts.isEmpty && parts.count < 128, "a merge of 1 to 127 indexes")
        self.parts = parts
    }

    static let partShift: Int64 = 56

    static func rowID(_ rowID: Int64, part: Int) -> Int64 { rowID | (Int64(part) << partShift) }
    static func split(_ rowID: Int64) -> (part: Int, rowID: Int64) {
        (Int(rowID >> partShift), rowID & ((1 << partShift) - 1))
    }

    package func run(_ spec: QuerySpec) throws(QueryError) -> [QueryResult] {
        var each = spec
        each.offset = 0
        each.limit = spec.limit.map { QueryPipeline.saturatingSum(spec.offset, $0) }
        if spec.sort != .relevance && spec.sort != .priority { each.includeAttributes = true }
        var merged: [(result: QueryResult, part: Int, rank: Int)] = []
        for (i, part) in parts.enumerated() {
            for (rank, var r) in try part.backend.run(each).enumerated() {
                r.origin = part.origin
                r.rowID = Self.rowID(r.rowID, part: i)
                merged.append((r, i, rank))
            }
        }
        merged.sort { a, b in
            switch Self.compare(a.result, b.result, spec.sort, reverse: spec.reverse) {
            case .some(let before): return before
            case .none: return (a.rank, a.part) < (b.rank, b.part)
            }
        }
        var out = merged.dropFirst(spec.offset).map { r in
            var result = r.result
            if !spec.includeAttributes { result.attributes = AttributeSet() }
            return result
        }
        if let limit = spec.limit, out.count > limit { out.removeLast(out.count - limit) }
        return out
    }

    /// Whether `a` comes before `b` in `order`; nil when they tie.
    static func compare(_ a: QueryResult, _ b: QueryResult, _ order: SortOrder, reverse: Bool) -> Bool? {
        func flip(_ before: Bool?) -> Bool? { reverse ? before.map { !$0 } : before }
        switch order {
        case .relevance, .priority:
            // Lower is better (bm25).
            return a.score == b.score ? nil : flip(a.score < b.score)
        case .name:
            let x = (a.attributes.string(.name) ?? "").lowercased(), y = (b.attributes.string(.name) ?? "").lowercased()
            return x == y ? nil : flip(x < y)
        case .size:
            let x = a.attributes.integer(.fileSize) ?? -1, y = b.attributes.integer(.fileSize) ?? -1
            return x == y ? nil : flip(x > y)
        case .modified, .created, .used:
            let key: AttributeKey = order == .modified ? .contentModificationDate : order == .created ? .contentCreationDate : .lastUsedDate
            let x = a.attributes.date(key) ?? .distantPast, y = b.attributes.date(key) ?? .distantPast
            return x == y ? nil : flip(x > y)
        }
    }

    /// An offline volume's items are not on the disk of now: they count without a look.
    func keeper(_ part: Part, _ keep: ItemKeeper?) -> ItemKeeper? { part.origin?.offline == true ? nil : keep }

    package func count(_ spec: QuerySpec, keep: ItemKeeper?) throws(QueryError) -> Int {
        var n = 0
        for part in parts { n = QueryPipeline.saturatingSum(n, try part.backend.count(spec, keep: keeper(part, keep))) }
        return n
    }

    package func groupCounts(_ spec: QuerySpec, by group: GroupKey, keep: ItemKeeper?) throws(QueryError) -> [GroupCount] {
        var counts: [String?: Int] = [:]
        var order: [String?] = []
        for part in parts {
            for g in try part.backend.groupCounts(spec, by: group, keep: keeper(part, keep)) {
                if counts[g.value] == nil { order.append(g.value) }
                counts[g.value, default: 0] += g.count
            }
        }
        // Most first, as each index gives them; ties in the order first seen.
        return order.enumerated().sorted { (counts[$0.element]!, -$0.offset) > (counts[$1.element]!, -$1.offset) }
            .map { GroupCount(value: $0.element, count: counts[$0.element]!) }
    }

    package func statistics(_ spec: QuerySpec, of key: AttributeKey, keep: ItemKeeper?) throws(QueryError) -> AttributeStatistics {
        var total = AttributeStatistics(key: key, matches: 0, count: 0)
        for part in parts {
            let s = try part.backend.statistics(spec, of: key, keep: keeper(part, keep))
            total.matches += s.matches
            total.count += s.count
            if let sum = s.sum { total.sum = (total.sum ?? 0) + sum }
            if let m = s.minimum { total.minimum = min(total.minimum ?? m, m) }
            if let m = s.maximum { total.maximum = max(total.maximum ?? m, m) }
            if let mean = s.mean, s.count > 0 {
                // The mean of the whole, weighted by each part's count.
                let before = Double(total.count - s.count)
                total.mean = ((total.mean ?? 0) * before + mean * Double(s.count)) / Double(total.count)
            }
        }
        return total
    }

    package func snippets(_ spec: QuerySpec, rowIDs: [Int64]) throws(QueryError) -> [Int64: String] {
        var out: [Int64: String] = [:]
        let byPart = Dictionary(grouping: rowIDs) { Self.split($0).part }
        for (i, ids) in byPart where i < parts.count {
            let found = try parts[i].backend.snippets(spec, rowIDs: ids.map { Self.split($0).rowID })
            for (row, text) in found { out[Self.rowID(row, part: i)] = text }
        }
        return out
    }

    package func explain(_ spec: QuerySpec) throws(QueryError) -> [String] {
        var lines: [String] = []
        for part in parts {
            if parts.count > 1 { lines.append(part.origin.map { "volume \($0.volume)\($0.offline ? " (offline)" : ""):" } ?? "home index:") }
            lines += try part.backend.explain(spec)
        }
        return lines
    }

    package func contentURLs(_ identifiers: [[UInt8]]) throws(QueryError) -> [[UInt8]: String] {
        // Donated items are the home index's.
        try parts[0].backend.contentURLs(identifiers)
    }

    package func item(_ identifier: ItemIdentifier) throws(QueryError) -> SearchableItem? {
        for part in parts { if let found = try part.backend.item(identifier) { return found } }
        return nil
    }

    package var checksFilesOnDisk: Bool { parts[0].backend.checksFilesOnDisk }

    /// The home index's changes, which fsindexd's subscription carries for the volumes too.
    package func changes() throws(QueryError) -> ChangeFeed { try parts[0].backend.changes() }
}
