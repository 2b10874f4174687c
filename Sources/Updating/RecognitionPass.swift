import Attributes
import Configuration
import Crawling
import Dispatch
import Indexing
import Isolation
import MemberwiseInit
import SystemCalls
import SystemPackage

/// Reads the words of pictures and scanned PDFs with OCR (issue 28): the last stage, after the
/// crawl's extraction and the summaries.
///
/// The writer marks the candidates as it stores them (`ocr_pending`: pictures large enough to
/// hold text, PDFs whose pages have no text layer; `IndexStore.wantsRecognition`), so a first
/// index costs nothing more until this pass runs, and its time is reported apart. The pass sends
/// each candidate to an OCR worker, a sandboxed `fsindex-worker` like the extraction's, at the
/// lowest priority unless `[daemon] throttle = "normal"` (`WorkerLimits.lowestPriority`: nice
/// 19, SCHED_IDLE, idle I/O) and on one
/// core (`OMP_THREAD_LIMIT=1`); the worker skips photos without text with a cheap test before
/// recognition. Results are stored a batch at a time; an item rewritten meanwhile is left to
/// the next pass (it is pending again). A skip or a failure is recorded
/// (`textRecognitionSkipped`) and not retried until the file changes.
///
/// `fsindex index` calls `runAll`; `fsindexd` calls `runBatch` with a few items at a time,
/// queued behind all its other work.
///
/// Cost (issue 28, debug build on the shared 2-core machine, Tesseract 5.3 from Debian): a
/// folder of 11 pictures and an image-only PDF (4 photos, 2 plasma pictures, 2 screenshots, a
/// chart, a scan, a page) was crawled in 1.5 s; the OCR pass after it took 2.8 s more (6 read,
/// 5 skipped by the cheap test), reported apart. In process: a 1622×1036 scan 0.65 s, a
/// 1280×800 screenshot 0.46 s, a 3013×1561 documentation screenshot 1.5 s; a photo is decoded
/// and skipped in 0.1–0.14 s (of which the cheap test 7–37 ms, unoptimised Swift).
///
/// For example:
/// ```swift
/// let pass = try RecognitionPass(store: store, settings: settings)   // nil: OCR is off
/// let report = try pass?.runAll()   // report.recognized, report.seconds
/// ```
@MemberwiseInit
package struct RecognitionPass: Sendable {
    package let store: IndexStore
    package let recognition: Settings.Recognition
    package let pool: WorkerPool
    /// PDF pages read at most, the first ones (a 300-page scanned book would take minutes).
    package static let pageLimit = 20

    /// The pass as `settings` configure it: nil when `ocr = false`; a problem when OCR cannot
    /// run (no Tesseract data, a configured language missing, no worker executable).
    package static func configured(store: IndexStore, settings: Settings, executable: String? = nil) -> Result<RecognitionPass, RecognitionPassProblem>? {
        switch settings.recognition() {
        case nil: return nil
        case .failure(let problem)?: return .failure(.settings(problem))
        case .success(let recognition)?:
            let path: String
            do throws(WorkerFailure) { path = if let executable { executable } else { try WorkerExecutable.locate() } } catch {
                return .failure(.worker(error))
            }
            return .success(RecognitionPass(store: store, recognition: recognition,
                                            pool: WorkerPool(executable: path, limits: workerLimits(settings), environment: environment)))
        }
    }

    /// The extraction's limits, with room for OCR: recognising a page takes seconds of CPU (a
    /// 20-page scan, a minute or more) and a 300 dpi page's pictures some 200 MB; and the lowest
    /// priority, so the wall-clock limit is generous (an idle-class process waits while the
    /// machine is busy). With `[daemon] throttle = "normal"` OCR runs as started, as the rest of
    /// indexing then does: at SCHED_IDLE on a machine whose cores are never idle (a build
    /// server, a loaded test run) a scan waited forever.
    package static func workerLimits(_ settings: Settings) -> WorkerLimits {
        var limits = settings.workerLimits
        limits.lowestPriority = settings.daemon.throttle == .low
        limits.cpuSecondsPerFile = max(limits.cpuSecondsPerFile, 180)
        limits.cpuSecondsPerWorker = max(limits.cpuSecondsPerWorker, limits.cpuSecondsPerFile * 4)
        limits.wallSecondsPerFile = max(limits.wallSecondsPerFile, 600)
        limits.addressSpaceBytes = max(limits.addressSpaceBytes, 2 << 30)
        return limits
    }

    /// OpenMP (libgomp, which Tesseract uses) reads this as it loads: one thread, one core.
    static let environment = ["OMP_THREAD_LIMIT": "1"]

    /// What one batch did.
    package struct Batch: Sendable, Hashable {
        /// The items that got text (their identifiers now, for subscribers).
        package var recognized: [ItemIdentifier] = []
        /// Pending items read.
        package var examined = 0
        /// Of those, skipped (photos, small pictures) or failed: recorded, not retried.
        package var skipped = 0
        package var lastRowID: Int64 = 0
        package var mayHaveMore = false
    }

    /// Reads up to `limit` pending items after rowid `after`, one at a time in one worker, and
    /// stores the results in one transaction. `stop()` is asked between items.
    package func runBatch(limit: Int, after: Int64 = 0, stop: () -> Bool = { false }) throws(UpdateError) -> Batch {
        let pending: [PendingRecognition]
        do { pending = try store.pendingRecognitions(limit: limit, after: after) } catch { throw .index(error) }
        guard !pending.isEmpty else { return Batch() }
        var batch = Batch(lastRowID: pending.last!.rowID, mayHaveMore: pending.count == limit)
        var made: [MadeRecognition] = []
        let worker = pool.take()
        defer { pool.give(worker) }
        for item in pending {
            if stop() { batch.mayHaveMore = true; batch.lastRowID = made.last?.rowID ?? after; break }
            let outcome = recognize(item, worker)
            // Stopped while it was read (the worker abandoned): not a failure of the file's, so
            // not recorded; the next start reads it again.
            if stop() { batch.mayHaveMore = true; batch.lastRowID = made.last?.rowID ?? after; break }
            batch.examined += 1
            if case .skipped = outcome { batch.skipped += 1 }
            made.append(MadeRecognition(rowID: item.rowID, version: item.version, outcome: outcome))
        }
        do { batch.recognized = try store.storeRecognitions(made) } catch { throw .index(error) }
        return batch
    }

    /// One item's outcome. A failure is recorded as a skip with its reason: a file that crashes
    /// or outlasts the OCR worker is not tried again until it changes.
    func recognize(_ item: PendingRecognition, _ worker: ExtractionWorker) -> MadeRecognition.Outcome {
        guard item.identifier.bytes.first == UInt8(ascii: "/"), !item.identifier.bytes.contains(0) else {
            return .skipped("not a file of its own (inside another file, or donated)")
        }
        let path = FilePath(bytes: item.identifier.bytes)
        let facts: FileFacts
        do { facts = try FileFacts.read(path) } catch { return .skipped("cannot read the file: \(error)") }
        guard facts.type == .regular else { return .skipped("not a regular file") }
        let request = RecognitionRequest(name: path.lastComponent?.bytes ?? path.bytes, fileSize: facts.size,
                                         dataPath: recognition.dataPath, languages: recognition.languageList,
                                         pageLimit: Self.pageLimit)
        switch worker.recognize(facts, request) {
        case let .text(text, confidence, _): return .text(text, confidence: confidence)
        case .skipped(let why): return .skipped(why)
        case .failed(let why): return .skipped("OCR failed: \(why)")
        }
    }

    /// Reads everything pending, batch after batch, until none is left or `stop()` says so.
    package func runAll(batchSize: Int = 16, stop: () -> Bool = { false }) throws(UpdateError) -> RecognitionReport {
        var report = RecognitionReport()
        defer { pool.stopIdle() }
        report.seconds = try PassSweep.run(stop: stop) { after throws(UpdateError) in
            let batch = try runBatch(limit: batchSize, after: after, stop: stop)
            report.examined += batch.examined
            report.recognized += batch.recognized.count
            report.skipped += batch.skipped
            return (batch.lastRowID, batch.mayHaveMore)
        }
        return report
    }
}

/// What a whole OCR pass did, for `fsindex index`.
package struct RecognitionReport: Sendable, Hashable, Codable {
    /// Items that got text.
    package var recognized = 0
    /// Candidates read.
    package var examined = 0
    /// Candidates skipped (photos without text, pictures too small) or failed.
    package var skipped = 0
    package var seconds: Double = 0

    package init() {}
}

/// Why the OCR pass cannot run.
package enum RecognitionPassProblem: Error, Sendable, Hashable, CustomStringConvertible {
    case settings(Settings.RecognitionProblem)
    case worker(WorkerFailure)

    package var description: String {
        switch self {
        case .settings(let p): p.description
        case .worker(let failure): "OCR is off: cannot start its worker: \(failure)"
        }
    }
}
