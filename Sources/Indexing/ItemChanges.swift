import MemberwiseInit
/// Items that changed in the index, by path bytes: the payload of `.itemsChanged`.
///
/// Every item is listed by its own identifier: when a folder is renamed, moved or deleted, each
/// item below it (and each item inside a file, `file` NUL `key`) is listed, its old identifier
/// in `removed` and its new one in `updated`. A subscriber applies `removed` before `updated`.
/// `summarized` lists items whose `textContentSummary` arrived (Core Spotlight's summarization
/// flag): made after extraction, it follows the item's `updated` in a later message.
/// `prioritized` lists mail whose `isPriority` flipped (Core Spotlight's update listener): decided
/// after extraction by the priority pass, or later when a date passes or new sent mail arrives.
///
/// It lives with the index because it is what a committed batch did to the index: fsindexd's
/// writer makes it, the control socket carries it (its wire form is in Controlling), and a live
/// query (`QueryPipeline.live`) applies it.
@MemberwiseInit
package struct ItemChanges: Sendable, Hashable {
    /// Items added or rewritten.
    package var updated: [[UInt8]] = []
    package var removed: [[UInt8]] = []
    /// Items whose summary arrived (their other attributes are as they were).
    package var summarized: [[UInt8]] = []
    /// Items whose `isPriority` changed (their other attributes are as they were).
    package var prioritized: [[UInt8]] = []

    package var isEmpty: Bool { updated.isEmpty && removed.isEmpty && summarized.isEmpty && prioritized.isEmpty }
    package var count: Int { updated.count + removed.count + summarized.count + prioritized.count }
}
