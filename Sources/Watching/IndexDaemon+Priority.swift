import Attributes
import Controlling
import Dispatch
import Foundation
import Indexing
import Logging
import Synchronization
import Updating

/// Mail's `isPriority` in the background: after every piece of work, the messages the index
/// marks (written since their last decision, or whose recheck time has come) are decided, a
/// batch at a time, and subscribers are told of each flip (`ItemChanges.prioritized`: `fsfind
/// --live` prints `! PATH`, fsindex-mcp notifies the resource's subscribers).
///
/// Like summaries, a batch is one more piece of the writer's work (`Work.prioritize`), queued
/// behind everything else and never more than one at a time, so nothing races the writer.
/// There is no timer: a deadline that passes while the daemon is idle is noticed with the next
/// piece of work or the next start (see `PriorityPass`).
extension IndexDaemon {
    /// Messages decided per batch. The evidence (a scan of the mail) is gathered once a batch.
    static let priorityBatchSize = 256

    /// Queues one `.prioritize` unless one is queued already.
    func schedulePriorities() {
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        if !priorityQueued.exchange(true, ordering: .relaxed) { submit(.prioritize) }
    }

    /// Decides one batch and publishes the flips; queues the next while some may be left.
    func prioritizeBatch() {
        priorityQueued.store(false, ordering: .relaxed)
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        let settings = state.withLock { $0.settings }
        let after = priorityCursor.load(ordering: .relaxed)
        let batch: PriorityPass.Batch
        do {
            batch = try PriorityPass(store: store, settings: settings).runBatch(limit: Self.priorityBatchSize, after: after)
        } catch {
            record(error: "priority: \(error)")
            return
        }
        if !batch.changed.isEmpty {
            logger.debug("priority changed for \(batch.changed.count) of \(batch.examined) messages",
                         metadata: ["batch.count": "\(batch.examined)"])
            let publish = publisher.withLock { $0 }
            publish?(ItemChanges(prioritized: batch.changed.map(\.bytes)))
        }
        if batch.evidenceChanged, after > 0 {
            // Every message was marked again: start the sweep over.
            priorityCursor.store(0, ordering: .relaxed)
            schedulePriorities()
        } else if batch.mayHaveMore {
            priorityCursor.store(batch.lastRowID, ordering: .relaxed)
            schedulePriorities()
        } else if after > 0 {
            priorityCursor.store(0, ordering: .relaxed)
            schedulePriorities()
        }
    }
}
