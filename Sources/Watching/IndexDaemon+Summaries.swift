import Attributes
import Controlling
import Dispatch
import Indexing
import Logging
import Synchronization
import Updating

/// Summaries in the background: after the first crawl and after every change, the items whose
/// `textContentSummary` is pending get it, a small batch at a time, and subscribers are told
/// (`ItemChanges.summarized`).
///
/// A key design decision: a batch is one more piece of the writer's work (`Work.summarize`),
/// queued behind everything else and never more than one at a time. So file events, reindex
/// requests and SIGTERM wait for at most one batch (`summaryBatchSize` items, each analysed up to
/// 64 Ki characters: milliseconds), there is no second writer to race the first, and a paused
/// daemon makes no summaries either.
extension IndexDaemon {
    /// Queues one `.summarize` unless one is queued already.
    func scheduleSummaries() {
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        if !summaryQueued.exchange(true, ordering: .relaxed) { submit(.summarize) }
    }

    /// Makes one batch of summaries and publishes them; queues the next while some are left.
    func summarizeBatch() {
        summaryQueued.store(false, ordering: .relaxed)
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        let after = summaryCursor.load(ordering: .relaxed)
        let start = DispatchTime.now()
        let batch: SummaryPass.Batch
        do {
            batch = try SummaryPass(store: store).runBatch(limit: max(1, summaryBatchSize), after: after)
        } catch {
            // Tried again after the next piece of work.
            record(error: "summaries: \(error)")
            return
        }
        if !batch.summarized.isEmpty {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            logger.debug("summarized \(batch.summarized.count) of \(batch.examined) items in \(seconds) s",
                         metadata: ["batch.count": "\(batch.examined)"])
            let publish = publisher.withLock { $0 }
            publish?(ItemChanges(summarized: batch.summarized.map(\.bytes)))
        }
        if batch.mayHaveMore {
            summaryCursor.store(batch.lastRowID, ordering: .relaxed)
            scheduleSummaries()
        } else if after > 0 {
            // The end of a sweep: one more from the start finds items made pending behind it.
            summaryCursor.store(0, ordering: .relaxed)
            scheduleSummaries()
        }
    }
}
