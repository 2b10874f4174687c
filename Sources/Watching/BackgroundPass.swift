import Attributes
import Indexing
import Synchronization
import Updating

/// One of the writer's passes in the background: summaries, mail priority, OCR, meaning. After the first
/// crawl and after every piece of work, the items the index marks pending are taken a small
/// batch at a time, from a cursor that moves through the table, and subscribers are told.
///
/// A key design decision: a batch is one more piece of the writer's work
/// (`Work.background(kind)`), queued behind everything else and never more than one at a time
/// per pass. So file events, requests and SIGTERM wait for at most one batch (milliseconds for
/// summaries; seconds for OCR, whose files being read are abandoned at SIGTERM), there is no
/// second writer to race the first, and a paused daemon makes none. There is no timer: what
/// comes due while the daemon is idle is noticed with the next piece of work or the next start.
package final class BackgroundPass: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// `textContentSummary` for items written without one (donations, older indexes).
        case summaries
        /// Mail's `isPriority`, decided for messages written or due for a recheck.
        case priority
        /// Pictures and scanned PDFs read with OCR, after the other two (issue 28).
        case recognition
        /// What items are about, as vectors for questions (issue 43), last of all.
        case meaning

        /// The pass as the log and `fsindex status` name it.
        var shownName: String { self == .recognition ? "OCR" : rawValue }

        /// How subscribers hear of a batch's items: summaries and priority flips as such; items
        /// that got words from OCR as `updated`, since a live query must match them again.
        func changes(_ items: [ItemIdentifier]) -> ItemChanges {
            let bytes = items.map(\.bytes)
            switch self {
            case .summaries: return ItemChanges(summarized: bytes)
            case .priority: return ItemChanges(prioritized: bytes)
            case .recognition: return ItemChanges(updated: bytes)
            // A vector changes no item's words nor attributes: nothing to tell.
            case .meaning: return ItemChanges()
            }
        }
    }

    /// What one batch did, whichever pass it was.
    package struct Batch: Sendable {
        /// The items subscribers are told about.
        var changed: [ItemIdentifier]
        var examined: Int
        var lastRowID: Int64
        var mayHaveMore: Bool
        /// Every item was marked again (priority's evidence changed): the sweep starts over.
        var startOver = false
    }

    package let kind: Kind
    private let queued = Atomic<Bool>(false)
    private let cursor = Atomic<Int64>(0)
    private let size: Atomic<Int>

    init(_ kind: Kind, batchSize: Int) {
        self.kind = kind
        size = Atomic(batchSize)
    }

    /// Items taken per batch: small, so that a file event waits for at most one batch.
    package var batchSize: Int {
        get { size.load(ordering: .relaxed) }
        set { size.store(max(1, newValue), ordering: .relaxed) }
    }

    /// Whether a batch is queued.
    var isQueued: Bool { queued.load(ordering: .relaxed) }

    /// Marks a batch queued; false if one was already (the caller queues nothing then).
    func markQueued() -> Bool { !queued.exchange(true, ordering: .relaxed) }

    /// The queued batch is being taken: the next piece of work may queue another.
    func taken() { queued.store(false, ordering: .relaxed) }

    /// Runs one batch with `body` (given the rowid to start after and the batch size) and moves
    /// the cursor: past the batch while items may be left; back to the start at the end of a
    /// sweep that did not begin there (items made pending behind the cursor), or when the batch
    /// says to start over. Returns the batch and whether another is due.
    func step(_ body: (_ after: Int64, _ limit: Int) throws(UpdateError) -> Batch) throws(UpdateError) -> (batch: Batch, again: Bool) {
        let after = cursor.load(ordering: .relaxed)
        let batch = try body(after, batchSize)
        let next: Int64? = if batch.startOver && after > 0 { 0 } else if batch.mayHaveMore { batch.lastRowID } else if after > 0 { 0 } else { nil }
        if let next { cursor.store(next, ordering: .relaxed) }
        return (batch, next != nil)
    }
}
