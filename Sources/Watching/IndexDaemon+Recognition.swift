import Attributes
import Configuration
import Dispatch
import Indexing
import Isolation
import Logging
import Synchronization
import Updating

/// OCR in the background (issue 28): after the crawl's extraction and the summaries, pictures
/// and scanned PDFs waiting for OCR (`ocr_pending`) are read a couple at a time by an OCR
/// worker at the lowest priority, and subscribers are told.
///
/// As with summaries, a batch is one more piece of the writer's work (`Work.recognize`), queued
/// behind everything else, never more than one at a time, and it yields to the summaries: while
/// a summary batch is queued, the OCR batch goes back to the end of the queue. So file events,
/// requests and SIGTERM wait for at most one batch (`recognitionBatchSize` files: seconds).
///
/// Items that got text are published as `updated`, not as `summarized`: their words changed, so
/// a live query must match them again (a scan may now match `invoice`).
extension IndexDaemon {
    /// Queues one `.recognize` unless one is queued already, or OCR is off.
    func scheduleRecognitions() {
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }) else { return }
        guard recognitionPass() != nil else { return }
        if !recognitionQueued.exchange(true, ordering: .relaxed) { submit(.recognize) }
    }

    /// The OCR pass for the current settings, made on first use (a problem is logged once);
    /// nil when OCR is off or cannot run.
    func recognitionPass() -> RecognitionPass? {
        recognition.withLock { current in
            if let current { return current.pass }
            let settings = state.withLock { $0.settings }
            var made: RecognitionPass?
            switch RecognitionPass.configured(store: store, settings: settings) {
            case .success(let pass)?: made = pass
            case .failure(let problem)?:
                // Said when it matters (there are pictures or scans to read), once per start or reload.
                if (try? store.pendingRecognitionCount()) ?? 0 > 0 { logger.warning("\(problem.description)") }
            case nil: break
            }
            current = RecognitionState(pass: made)
            return made
        }
    }

    /// Forgets the OCR pass (settings reloaded): the next batch makes it again.
    func resetRecognition() {
        let old = recognition.withLock { current in
            defer { current = nil }
            return current?.pass
        }
        old?.pool.stopIdle()
    }

    /// Reads one batch with OCR and publishes what got text; queues the next while some are left.
    func recognizeBatch() {
        recognitionQueued.store(false, ordering: .relaxed)
        guard !stopping.load(ordering: .relaxed), !state.withLock({ $0.paused }), let pass = recognitionPass() else { return }
        // Summaries first: OCR runs after everything else.
        if summaryQueued.load(ordering: .relaxed) || priorityQueued.load(ordering: .relaxed) {
            scheduleRecognitions()
            return
        }
        let after = recognitionCursor.load(ordering: .relaxed)
        let start = DispatchTime.now()
        let batch: RecognitionPass.Batch
        do {
            batch = try pass.runBatch(limit: max(1, recognitionBatchSize), after: after,
                                      stop: { [self] in stopping.load(ordering: .relaxed) })
        } catch {
            record(error: "OCR: \(error)")
            pass.pool.stopIdle()
            return
        }
        if batch.examined > 0 {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            logger.debug("OCR read \(batch.recognized.count) of \(batch.examined) files in \(seconds) s (\(batch.skipped) skipped)")
        }
        if !batch.recognized.isEmpty {
            let publish = publisher.withLock { $0 }
            publish?(ItemChanges(updated: batch.recognized.map(\.bytes)))
        }
        if batch.mayHaveMore {
            recognitionCursor.store(batch.lastRowID, ordering: .relaxed)
            scheduleRecognitions()
        } else if after > 0 {
            recognitionCursor.store(0, ordering: .relaxed)
            scheduleRecognitions()
        } else {
            // Nothing left: the OCR worker (and Tesseract's model in it) goes.
            pass.pool.stopIdle()
        }
    }
}

/// The daemon's OCR pass, once made (`pass` nil: OCR is off or cannot run).
struct RecognitionState: Sendable {
    var pass: RecognitionPass?
}
