import Dispatch
import Configuration
import Embedding
import Isolation
import Synchronization
import Indexing
import Logging
import Updating

/// The background passes (`BackgroundPass`) as the writer runs them.
extension IndexDaemon {
    func pass(_ kind: BackgroundPass.Kind) -> BackgroundPass {
        switch kind {
        case .summaries: summaries
        case .priority: priority
        case .recognition: recognitionQueue
        case .meaning: meaningQueue
        }
    }

    /// Queues one batch of `kind` unless one is queued already, the daemon is stopping or
    /// paused, or the pass cannot run (OCR off).
    func schedule(_ kind: BackgroundPass.Kind) {
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        if kind == .recognition, recognitionPass() == nil { return }
        if kind == .meaning, meaningPass() == nil { return }
        if pass(kind).markQueued() { submit(.background(kind)) }
    }

    /// After a piece of work: whatever was written may wait for its summary, mail for its
    /// priority, and pictures for OCR.
    func scheduleBackground() {
        for kind in BackgroundPass.Kind.allCases { schedule(kind) }
    }

    /// The semantic pass, when `[query] semantic` is on and the sentence model is installed
    /// (loaded once per process; why not is in `fsindex status`).
    func meaningPass() -> MeaningPass? {
        let settings = state.withLock { $0.settings }
        guard settings.query.semantic, case .success(let encoder) = SentenceEncoder.shared else { return nil }
        return MeaningPass(store: store, encoder: encoder, lowestPriority: settings.daemon.throttle == .low)
    }

    /// One batch of `kind`, on the writer: made, logged and published; the next is queued while
    /// items are left. A failure is logged and tried again after the next piece of work.
    func runBackground(_ kind: BackgroundPass.Kind) {
        let pass = self.pass(kind)
        pass.taken()
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        let start = DispatchTime.now()
        let outcome: (batch: BackgroundPass.Batch, again: Bool)
        do throws(UpdateError) {
            switch kind {
            case .summaries:
                outcome = try pass.step { after, limit throws(UpdateError) in
                    let b = try SummaryPass(store: store).runBatch(limit: limit, after: after)
                    return .init(changed: b.summarized, examined: b.examined, lastRowID: b.lastRowID, mayHaveMore: b.mayHaveMore)
                }
            case .priority:
                let settings = state.withLock { $0.settings }
                outcome = try pass.step { after, limit throws(UpdateError) in
                    let b = try PriorityPass(store: store, settings: settings).runBatch(limit: limit, after: after)
                    return .init(changed: b.changed, examined: b.examined, lastRowID: b.lastRowID, mayHaveMore: b.mayHaveMore,
                                 startOver: b.evidenceChanged)
                }
            case .recognition:
                guard let ocr = recognitionPass() else { return }
                // The other passes first: OCR runs after everything else.
                if summaries.isQueued || priority.isQueued {
                    schedule(.recognition)
                    return
                }
                outcome = try pass.step { after, limit throws(UpdateError) in
                    let b = try ocr.runBatch(limit: limit, after: after, stop: { [self] in stopping.load(ordering: .relaxed) })
                    return .init(changed: b.recognized, examined: b.examined, lastRowID: b.lastRowID, mayHaveMore: b.mayHaveMore)
                }
                // Nothing left: the OCR worker (and Tesseract's model in it) goes.
                if !outcome.again { ocr.pool.stopIdle() }
            case .meaning:
                guard let meaning = meaningPass() else { return }
                // Last of all: what the other passes write changes what is embedded.
                if summaries.isQueued || priority.isQueued || recognitionQueue.isQueued {
                    schedule(.meaning)
                    return
                }
                outcome = try pass.step { after, limit throws(UpdateError) in
                    let b = try meaning.runBatch(limit: limit, after: after, stop: { [self] in stopping.load(ordering: .relaxed) })
                    return .init(changed: [], examined: b.examined, lastRowID: b.lastRowID, mayHaveMore: b.mayHaveMore)
                }
            }
        } catch {
            record(error: "\(kind.shownName): \(error)")
            if kind == .recognition { recognitionPass()?.pool.stopIdle() }
            return
        }
        let batch = outcome.batch
        if batch.examined > 0 {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            logger.debug("\(kind.shownName): \(batch.changed.count) of \(batch.examined) items changed in \(seconds) s",
                         metadata: ["batch.count": "\(batch.examined)"])
        }
        if !batch.changed.isEmpty { publisher.withLock { $0 }?(kind.changes(batch.changed)) }
        if outcome.again { schedule(kind) }
    }
}
