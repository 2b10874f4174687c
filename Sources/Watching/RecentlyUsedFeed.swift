import Attributes
import FoundationEssentials
import Indexing

/// Turns a reading of the recently-used list into new uses, against what earlier readings gave.
///
/// The list is rewritten whole each time an application opens a file, so the same visits are
/// read again and again. Per file the index keeps a `FeedMark`: the latest visit applied and each
/// application's count. A visit is new when the bookmark's latest date is later than the mark, or
/// an application's count rose; it adds the rise in counts (at least one use) and sets the last use
/// to the visit's time. A bookmark seen for the first time brings its whole history (the sum of
/// its applications' counts).
///
/// Only files inside the daemon's roots are taken: the index holds nothing of other folders,
/// and a file outside them (a private folder left out on purpose) should leave no trace in it. A
/// root added later brings the history the list still has of its files.
package enum RecentlyUsedFeed {
    /// The feed's name in the index (`usage_feeds.feed`).
    package static let name = "recently-used.xbel"

    /// The new uses in `list`, and the marks to store with them (every bookmark inside `roots`,
    /// so that those gone from the list are forgotten).
    package static func uses(in list: RecentlyUsedList, marks: [ItemIdentifier: FeedMark],
                            roots: [[UInt8]]) -> (uses: [ItemUse], marks: [ItemIdentifier: FeedMark]) {
        // A file listed twice counts once, with the later dates and the higher counts.
        var merged: [ItemIdentifier: (visit: Date, counts: [String: Int64])] = [:]
        var order: [ItemIdentifier] = []
        for bookmark in list.bookmarks where inside(bookmark.path, roots) {
            guard let visit = bookmark.lastVisit else { continue }
            var counts: [String: Int64] = [:]
            for app in bookmark.applications { counts[app.name] = plus(counts[app.name] ?? 0, app.count) }
            let identifier = ItemIdentifier(bytes: bookmark.path)
            if let have = merged[identifier] {
                merged[identifier] = (max(have.visit, visit), have.counts.merging(counts, uniquingKeysWith: max))
            } else {
                merged[identifier] = (visit, counts)
                order.append(identifier)
            }
        }
        var uses: [ItemUse] = []
        var newMarks: [ItemIdentifier: FeedMark] = [:]
        for identifier in order {
            let (visit, counts) = merged[identifier]!
            if let mark = marks[identifier] {
                let rise = counts.reduce(Int64(0)) { plus($0, max(0, $1.value - max(0, mark.counts[$1.key] ?? 0))) }
                if rise > 0 || visit > mark.visited {
                    uses.append(ItemUse(identifier: identifier, date: visit, count: max(1, rise)))
                }
                newMarks[identifier] = FeedMark(visited: max(visit, mark.visited), counts: counts)
            } else {
                uses.append(ItemUse(identifier: identifier, date: visit, count: max(1, counts.values.reduce(0, plus))))
                newMarks[identifier] = FeedMark(visited: visit, counts: counts)
            }
        }
        return (uses, newMarks)
    }

    /// `a + b` of two non-negative counts, stopping at `Int64.max`: a list is anyone's to write,
    /// and one with `count="9223372036854775807"` beside another count of the same file trapped
    /// fsindexd on overflow at every start (issue 22, F4).
    static func plus(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }

    static func inside(_ path: [UInt8], _ roots: [[UInt8]]) -> Bool {
        roots.contains { root in
            var r = root
            while r.count > 1, r.last == UInt8(ascii: "/") { r.removeLast() }
            if r == [UInt8(ascii: "/")] { return true }
            return path == r || path.isBelow(r)
        }
    }
}
