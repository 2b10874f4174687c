import Attributes
import Dispatch
import Indexing
import MemberwiseInit
import Summarizing
import Synchronization
import SystemCalls

/// Makes the `textContentSummary` of the items that wait for one, after extraction: the stage
/// between the crawl and the finished index.
///
/// A file's summary is made by its extraction worker, with the text (`WorkerSummaries`, issue
/// 23), and the file is written with it. This pass is for the rest: the texts apps donate, and
/// an index made before summaries existed, which gets them from its stored text without a
/// rebuild. It works in batches of rows the index marks (`summary_pending`); an item rewritten
/// while its summary was being made is simply made pending again (`storeSummaries` leaves an
/// item written since its text was read alone).
///
/// `fsindex index` calls `runAll` and returns when nothing is pending; `fsindexd` calls
/// `runBatch` with a small batch between pieces of work, so file events wait for at most one
/// batch.
///
/// For example:
/// ```swift
/// let pass = SummaryPass(store: store)
/// let report = try pass.runAll(threads: 2)   // report.summarized, report.seconds
/// ```
@MemberwiseInit
package struct SummaryPass: Sendable {
    package let store: IndexStore
    package var summarizer: ExtractiveSummarizer = ExtractiveSummarizer()

    /// What one batch did.
    package struct Batch: Sendable, Hashable {
        /// The items that got a summary (their identifiers now, for subscribers).
        package var summarized: [ItemIdentifier] = []
        /// Pending items read (some may have had nothing to summarize, or changed meanwhile).
        package var examined = 0
        /// The last rowid read: the next batch starts after it.
        package var lastRowID: Int64 = 0
        /// Whether the batch was full, so more may be pending.
        package var mayHaveMore = false
    }

    /// Summarizes up to `limit` pending items after rowid `after`, on `threads` threads (0: one
    /// per core), and stores them in one transaction.
    package func runBatch(limit: Int, after: Int64 = 0, threads: Int = 1) throws(UpdateError) -> Batch {
        let threads = threads > 0 ? threads : max(1, System.coreCount)
        let pending: [PendingSummary]
        do { pending = try store.pendingSummaries(limit: limit, textLimit: summarizer.analysedLength, after: after) } catch {
            throw .index(error)
        }
        guard !pending.isEmpty else { return Batch() }
        let made = summarize(pending, threads: threads)
        var batch = Batch(examined: pending.count, lastRowID: pending.last!.rowID, mayHaveMore: pending.count == limit)
        do { batch.summarized = try store.storeSummaries(made) } catch { throw .index(error) }
        return batch
    }

    /// Summarizes everything pending, batch after batch, until none is left or `stop()` says so.
    /// One sweep in rowid order: an item written again meanwhile (by a running fsindexd) is
    /// pending again and left to the next pass.
    package func runAll(threads: Int = 1, batchSize: Int = 256, stop: () -> Bool = { false }) throws(UpdateError) -> SummaryReport {
        var report = SummaryReport()
        report.seconds = try PassSweep.run(stop: stop) { after throws(UpdateError) in
            let batch = try runBatch(limit: batchSize, after: after, threads: threads)
            report.examined += batch.examined
            report.summarized += batch.summarized.count
            return (batch.lastRowID, batch.mayHaveMore)
        }
        return report
    }

    /// The summaries of `pending`, in its order; computed on up to `threads` threads (the
    /// summarizer is pure, so items split freely).
    func summarize(_ pending: [PendingSummary], threads: Int) -> [MadeSummary] {
        let summarizer = self.summarizer
        let workers = max(1, min(threads, pending.count / 8))
        if workers == 1 { return pending.map { MadeSummary($0, summary: summarizer.summary(of: $0.text)) } }
        let results = Mutex<[MadeSummary?]>(Array(repeating: nil, count: pending.count))
        let next = Atomic<Int>(0)
        SystemCall.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < pending.count else { return }
                let made = MadeSummary(pending[i], summary: summarizer.summary(of: pending[i].text))
                results.withLock { $0[i] = made }
            }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}

/// What a whole summary pass did, for `fsindex index`.
package struct SummaryReport: Sendable, Hashable, Codable {
    /// Items that got a summary.
    package var summarized = 0
    /// Pending items read (those with nothing to summarize lose their pending mark too).
    package var examined = 0
    package var seconds: Double = 0

    package init() {}
}
