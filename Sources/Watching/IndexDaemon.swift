import Configuration
import Attributes
import Controlling
import Crawling
import Dispatch
import ExtractionModel
import FoundationEssentials
import Indexing
import Isolation
import Logging
import Synchronization
import SystemCalls
import SystemPackage
import Updating
import Glibc

/// fsindexd's core: keeps the index in step with the roots, from a first reconcile to the
/// events that follow, and answers the control socket.
///
/// A key design decision: one writer. Event batches from the `FileEventSource`, reindex requests
/// from the socket and signals all become `Work` items in one stream, taken in order by `run()`.
/// So a reindex never races a batch of events, and SIGTERM finishes the batch at hand before
/// the daemon exits. Watches are added *before* a root is reconciled, so a file created during
/// the first crawl is seen by one or the other (upserts are idempotent).
package final class IndexDaemon: Sendable {
    package enum Work: Sendable {
        case events([FileEvent])
        /// Reindex these items (all of them: none), and say how it went.
        case reindex(paths: [[UInt8]], done: @Sendable (Result<ReindexSummary, WriterError>) -> Void)
        /// `fsindex used`: record a use of each item now.
        case used(paths: [[UInt8]], title: String?, done: @Sendable (Result<[UsageRecord], WriterError>) -> Void)
        /// The desktop's recently-used list was written: read it and apply its new visits.
        case recentlyUsed
        case addRoots([IndexRoot])
        case reload(Settings)
        case resume
        case shutdown
        /// A missing root's grace period ended (`generation` tells it from a later absence).
        case purgeMissing(FilePath, generation: Int)
        /// Something is wrong with the index itself (its file was deleted or replaced): stop.
        case fail(String)
        /// An app's batch, already read (`IndexDaemon+Donations`).
        /// (`done` hears how many items were written.)
        case donate(domain: String, clientState: String?, items: [SearchableItem], urlScheme: String? = nil,
                    done: @Sendable (Result<Int, WriterError>) -> Void)
        /// An app's items removed (all of the domain's: `ids` nil); `done` hears how many.
        case forget(domain: String, ids: [String]?, done: @Sendable (Result<Int, WriterError>) -> Void)
        /// One batch of a background pass (`BackgroundPass`): queued behind everything else,
        /// one at a time per pass.
        case background(BackgroundPass.Kind)
        /// The daemon waits for space on the index's disk: see whether it came back
        /// (`IndexDaemon+DiskFull`).
        case retryAfterDiskFull
    }

    package let store: IndexStore
    package let source: any FileEventSource
    let logger: Logger
    let work: AsyncStream<Work>
    let workInput: AsyncStream<Work>.Continuation
    let state: Mutex<State>
    let started = DispatchTime.now()
    /// Events received from the source and not yet applied (for `fsindex status`).
    private let eventsInFlight = Atomic<Int>(0)
    /// Files a batch did not find because their folder was away, looked for again where that
    /// folder's moves take it. One list for the daemon's life, not one per batch's
    /// `LiveIndexer`: those moves come in later batches (a list per batch lost them; issue 40).
    let strays = LiveIndexer.Strays()
    /// Publishes item changes to live-query subscribers (set once the server is up).
    let publisher = Mutex<(@Sendable (ItemChanges) -> Void)?>(nil)
    /// Called after each root's crawl, whose items are not published one by one: the shared
    /// index's feeder then compares everything (`SharedFeeder.requestFullPass`).
    let crawled = Mutex<(@Sendable () -> Void)?>(nil)

    package func setCrawlHandler(_ handler: @escaping @Sendable () -> Void) {
        crawled.withLock { $0 = handler }
    }
    /// The desktop's recently-used list fsindexd follows, if any (`followRecentlyUsed`).
    let recentlyUsedFile = Mutex<FilePath?>(nil)
    /// Whether a `.recentlyUsed` is queued already (a burst of writes reads the list once).
    let recentlyUsedQueued = Atomic<Bool>(false)
    /// Set by SIGTERM (`requestStop`): every piece of work stops at its next file or batch.
    let stopping = Atomic<Bool>(false)
    /// Whether the providers' commands are running (`askProviders`), so two rounds never overlap.
    let providersRunning = Atomic<Bool>(false)
    /// Why the daemon stopped on its own (the index went away), for the exit status.
    package var failure: String? { state.withLock { $0.failure } }
    /// The background passes, each a batch at a time on the writer (`BackgroundPass`).
    package let summaries = BackgroundPass(.summaries, batchSize: 16)
    /// Messages decided per batch: the evidence (a scan of the mail) is gathered once a batch.
    package let priority = BackgroundPass(.priority, batchSize: 256)
    /// Files read per OCR batch: each takes a second or more, so few.
    package let recognitionQueue = BackgroundPass(.recognition, batchSize: 2)
    /// Items embedded per batch of the semantic pass: some 15 ms each on one core.
    package let meaningQueue = BackgroundPass(.meaning, batchSize: 16)
    /// The OCR pass, made on first use (`recognitionPass()`); nil until then.
    let recognition = Mutex<RecognitionState?>(nil)

    struct State {
        var settings: Settings
        var roots: [IndexRoot]
        var status: DaemonStatus.State = .crawling
        var paused = false
        var pending: [FileEvent] = []
        var lastError: String?
        var indexedSinceStart = 0
        var missing: [FilePath: MissingRootState] = [:]
        var missingGeneration = 0
        var failure: String?
        /// While writing waits for space on the index's disk: the free bytes last seen.
        var spaceAwaited: UInt64?
    }

    /// Roots given on the command line (`--root`) stay when the config is reloaded; otherwise the
    /// config's `roots` are the roots.
    package let rootsFromCommandLine: Bool

    /// The database file as it was when the daemon started (see `indexFileProblem`).
    let databaseIdentity: FileIdentity?

    /// What the daemon's waits run on: a missing root's grace period, the workers' idle time.
    let clock: any Clock<Duration>

    /// - Parameter clock: the waits' clock; tests give one they move themselves.
    package convenience init(store: IndexStore, settings: Settings, roots: [FilePath], source: any FileEventSource, logger: Logger,
                            rootsFromCommandLine: Bool = false, clock: any Clock<Duration> = TimerClock()) {
        self.init(store: store, settings: settings, roots: roots.map { IndexRoot($0) }, source: source, logger: logger,
                  rootsFromCommandLine: rootsFromCommandLine, clock: clock)
    }

    /// - Parameter roots: each with its depth (a files-only root is watched and crawled without
    ///   its subfolders).
    package init(store: IndexStore, settings: Settings, roots: [IndexRoot], source: any FileEventSource, logger: Logger,
                rootsFromCommandLine: Bool = false, clock: any Clock<Duration> = TimerClock()) {
        self.rootsFromCommandLine = rootsFromCommandLine
        self.clock = clock
        databaseIdentity = Self.identity(of: store.location.databasePath)
        self.store = store
        self.source = source
        self.logger = logger
        (work, workInput) = AsyncStream.makeStream(of: Work.self, bufferingPolicy: .unbounded)
        state = Mutex(State(settings: settings, roots: roots))
    }

    /// Sends `ItemChanges` of every batch to `publish` (the control server's subscribers).
    package func setPublisher(_ publish: @escaping @Sendable (ItemChanges) -> Void) {
        publisher.withLock { $0 = publish }
    }

    /// Asks the daemon to do something; safe from any thread or signal handler queue.
    package func submit(_ w: Work) { workInput.yield(w) }

    /// One updater for the daemon's life (it keeps extraction contexts warm); replaced when the
    /// settings are reloaded.
    let currentUpdater = Mutex<IndexUpdater?>(nil)
    var updater: IndexUpdater {
        currentUpdater.withLock { u in
            if let u { return u }
            let settings = state.withLock { $0.settings }
            let made = IndexUpdater(store: store, settings: settings, problem: { [logger] p in
                logger.notice("\(p.path): \(p.message)")
            })
            if stopping.load(ordering: .relaxed) { made.cancel() }
            u = made
            return made
        }
    }

    var roots: [FilePath] { state.withLock { $0.roots.map(\.path) } }
    var indexRoots: [IndexRoot] { state.withLock { $0.roots } }

    /// The domains of the roots watched now (after any reload), as `IndexUpdater.domainName`
    /// names them: what fsindexd publishes to the shared index, with the apps' domains.
    package var watchedDomains: Set<String> { Set(roots.map(IndexUpdater.domainName)) }

    /// Extraction workers end this long after the last piece of work, so that an idle daemon is
    /// one process blocked in `poll`, not three.
    package var workerIdleTime: Duration {
        get { idleTime.withLock { $0 } }
        set { idleTime.withLock { $0 = newValue } }
    }
    private let idleTime = Mutex<Duration>(.seconds(30))
    private let workGeneration = Atomic<Int>(0)
    /// The wait for the workers' idle time; each piece of work starts it again.
    private let idleWait = Mutex<Task<Void, Never>?>(nil)

    private func retireWorkersWhenIdle() {
        let generation = workGeneration.add(1, ordering: .relaxed).newValue
        let updater = self.updater
        let wait = after(workerIdleTime) { [self] in
            guard workGeneration.load(ordering: .relaxed) == generation else { return }
            if case .workers(let pool) = updater.extraction { pool.stopIdle() }
        }
        let previous = idleWait.withLock { current in
            defer { current = wait }
            return current
        }
        previous?.cancel()
    }

    /// Runs `body` once, `delay` from now on the daemon's clock, unless the task it returns is
    /// cancelled first. With `TimerClock` (fsindexd's) the wait is a one-shot dispatch timer,
    /// not a task's sleep (issue 14: an idle daemon has no timer armed).
    @discardableResult
    func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        Task { [clock] in
            do { try await clock.sleep(for: delay) } catch { return }
            body()
        }
    }

    // MARK: Running

    /// Batches of events taken from the source before the writer has applied them: a few, so
    /// that the next batch is at hand when one is done (no round trip through the forwarder
    /// between two batches), and few enough that the source's bound is what holds a burst.
    static let batchesAhead = 4

    /// Watches and reconciles every root, then applies work until `.shutdown` (SIGTERM) or the
    /// event source ends.
    ///
    /// The writer takes the source's batches at its own pace: at most `batchesAhead` batches
    /// wait in `work`, and the next is taken from the source only once one of them is applied.
    /// So a writer that falls behind (a long crawl, a burst bigger than it can extract) leaves
    /// the batches in the source's bounded buffer, and when that is full the source replaces
    /// what does not fit with a rescan of every root (`InotifyEventSource`): memory stays
    /// bounded, nothing is lost. Forwarding every batch into `work` as it came made that bound
    /// unreachable.
    package func run() async {
        let (applied, appliedInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        // The forwarder is a child task, so it runs where the writer runs (a test's own
        // executor included) and ends with it: a task of its own on the shared pool could wait
        // there behind work that blocks the pool's few threads, and the writer with it.
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                var taken = applied.makeAsyncIterator()
                var ahead = 0
                for await batch in source.events {
                    eventsInFlight.add(batch.count, ordering: .relaxed)
                    workInput.yield(.events(batch))
                    ahead += 1
                    // The writer says when a batch is applied (or ends, which ends this too).
                    while ahead >= Self.batchesAhead {
                        guard await taken.next() != nil else { return }
                        ahead -= 1
                    }
                }
            }
            await write(applied: appliedInput)
            appliedInput.finish()
            group.cancelAll()
        }
    }

    /// The writer: applies work in order until `.shutdown` or a failure; `applied` hears of
    /// each batch of events once it is done with (applied, queued while paused, skipped).
    private func write(applied appliedInput: AsyncStream<Void>.Continuation) async {
        submit(.addRoots(indexRoots))
        for await item in work {
            // Summaries run no extraction: they do not keep the workers alive.
            defer {
                switch item {
                case .background: break
                default: retireWorkersWhenIdle()
                }
            }
            // However this batch ends (applied, queued while paused, skipped when stopping), the
            // next one may come.
            defer { if case .events = item { appliedInput.yield() } }
            if case .fail = item {} else if let problem = indexFileProblem() {
                submit(.fail(problem))
                continue
            }
            // After SIGTERM nothing more is started: the work queued behind it waits for the
            // next start (whose reconcile finds it on disk).
            if stopping.load(ordering: .relaxed), !isShutdown(item) { continue }
            switch item {
            case .shutdown:
                setStatus(.stopping)
                logger.info("stopping")
                source.stop()
                workInput.finish()
                return
            case .fail(let message):
                state.withLock { $0.failure = message }
                record(error: message)
                requestStop()
                source.stop()
                workInput.finish()
                return
            case .purgeMissing(let root, let generation):
                purgeMissing(root, generation: generation)
            case .events(let batch):
                let paused = state.withLock { s in
                    if s.paused { s.pending += batch }
                    return s.paused
                }
                if !paused { apply(batch) }
                eventsInFlight.subtract(batch.count, ordering: .relaxed)
            case .resume:
                let pending = state.withLock { s in
                    s.paused = false
                    s.status = .watching
                    defer { s.pending = [] }
                    return s.pending
                }
                if !pending.isEmpty { apply(pending) }
            case .addRoots(let roots):
                addRoots(roots)
            case .reload(let settings):
                reload(settings)
            case .reindex(let paths, let done):
                done(.success(reindex(paths)))
            case .donate(let domain, let clientState, let items, let urlScheme, let done):
                done(applyDonation(domain: domain, clientState: clientState, items: items, urlScheme: urlScheme))
            case .forget(let domain, let ids, let done):
                done(applyForget(domain: domain, ids: ids))
            case .used(let paths, let title, let done):
                done(recordUses(paths, title: title))
            case .recentlyUsed:
                applyRecentlyUsed()
            case .background(let kind):
                runBackground(kind)
                continue
            case .retryAfterDiskFull:
                retryAfterDiskFull()
            }
            scheduleBackground()
        }
    }

    private func addRoots(_ roots: [IndexRoot]) {
        setStatus(.crawling)
        let settings = state.withLock { $0.settings }
        // Apps' domains lost in a rebuild and expired donated items are noted for their
        // providers first (maintenance purges expired items); `askProviders` runs them after.
        _ = try? ProviderRequests(store: store, providers: settings.providers, indexDirectory: store.location.directory).noteWhatIsMissing()
        // The index's own requests first: a repaired database or a schema change (rebuild from
        // the files), items of an older extractor, expired items.
        do {
            _ = try store.performMaintenance(extractorVersions: ExtractionVersions.forIndex,
                                             handler: Reindexer(updater: updater, roots: self.indexRoots),
                                             log: { [logger] in logger.info("\($0)") })
        } catch {
            record(error: "maintenance failed: \(error)")
        }
        for indexRoot in roots {
            let root = indexRoot.path
            do {
                var options = settings.walkOptions
                options.filesOnly = indexRoot.isFilesOnly
                try source.add(root: root, options: options)
            } catch {
                record(error: "cannot watch \(ByteString.escaped(root.bytes)): \(error)")
            }
            do {
                let updater = self.updater
                updater.namesFirst = true
                defer { updater.namesFirst = false }
                let report = try updater.crawl(roots: [indexRoot])
                logger.info("reconciled \(ByteString.escaped(root.bytes)): \(report.indexed) indexed, \(report.unchanged) unchanged, \(report.removed) removed in \(report.seconds) s")
                state.withLock { $0.indexedSinceStart += report.indexed }
                crawled.withLock { $0 }?()
            } catch .cancelled {
                logger.info("crawl of \(ByteString.escaped(root.bytes)) stopped; the next start resumes it")
                return
            } catch where error.isDiskFull {
                diskFull(error)   // every root is reconciled once space is back
                break
            } catch {
                record(error: error.description)
            }
        }
        setStatus(state.withLock { $0.paused } ? .paused : .watching)
        askProviders()
    }

    private func apply(_ batch: [FileEvent]) {
        noteRootEvents(batch)
        // The disk is full: the reconcile once space is back covers these changes.
        if waitingForSpace { return }
        let live = LiveIndexer(updater: updater, roots: roots, strays: strays)
        do {
            let changes = try live.apply(batch)
            logger.debug("applied \(batch.count) events: \(changes.updated.count) items updated, \(changes.removed.count) removed")
            state.withLock { $0.indexedSinceStart += changes.updated.count }
            if !changes.isEmpty {
                let publish = publisher.withLock { $0 }
                publish?(ItemChanges(updated: changes.updated.map(\.bytes), removed: changes.removed.map(\.bytes)))
            }
        } catch .cancelled {
            return
        } catch where error.isDiskFull {
            diskFull(error)
        } catch {
            record(error: error.description)
        }
    }

    private func reindex(_ paths: [[UInt8]]) -> ReindexSummary {
        let previous = state.withLock { s in
            defer { s.status = .reindexing }
            return s.status
        }
        defer { setStatus(previous == .reindexing ? .watching : previous) }
        let handler = Reindexer(updater: updater, strays: strays)
        do {
            if paths.isEmpty {
                try handler.reindexAllSearchableItems(acknowledgementHandler: {})
            } else {
                try handler.reindexSearchableItems(withIdentifiers: paths.map { ItemIdentifier(bytes: $0) },
                                                   acknowledgementHandler: {})
            }
        } catch {
            record(error: "\(error)")
            return ReindexSummary(problems: 1, problemMessages: ["\(error)"])
        }
        let r = handler.lastReport
        let publish = publisher.withLock { $0 }
        publish?(ItemChanges(updated: r.updatedIdentifiers.map(\.bytes), removed: r.removedIdentifiers.map(\.bytes)))
        return ReindexSummary(indexed: r.indexed, removed: r.removed, unchanged: r.unchanged, seconds: r.seconds,
                              problems: r.problems)
    }

    /// SIGHUP: new settings; roots added are watched and crawled, roots removed lose their items.
    private func reload(_ settings: Settings) {
        let newRoots: [IndexRoot]
        if rootsFromCommandLine {
            newRoots = indexRoots
        } else {
            do { newRoots = try IndexUpdater.roots(given: [], settings: settings) } catch .noRoots {
                newRoots = []   // every root was taken out of the config
            } catch {
                record(error: "config not reloaded: \(error)")
                return
            }
        }
        // A root whose depth changed is removed, then added at its new depth.
        let (added, removed) = state.withLock { s -> ([IndexRoot], [IndexRoot]) in
            let added = newRoots.filter { !s.roots.contains($0) }
            let removed = s.roots.filter { !newRoots.contains($0) }
            s.settings = settings
            s.roots = newRoots
            return (added, removed)
        }
        currentUpdater.withLock { $0 = nil }
        resetRecognition()
        for root in removed.map(\.path) {
            source.remove(root: root)
            state.withLock { _ = $0.missing.removeValue(forKey: root) }
            do {
                let n = try store.deleteItems(domains: [IndexUpdater.domainName(root)])
                logger.info("root removed: \(ByteString.escaped(root.bytes)) (\(n) items deleted)")
            } catch {
                record(error: error.description)
            }
        }
        logger.info("configuration reloaded: \(added.count) roots added, \(removed.count) removed")
        if !added.isEmpty { addRoots(added) } else { askProviders() }
    }

    // MARK: Control

    /// `fsindex pause`: changes are queued, not applied, until `resume`. A flag the writer reads
    /// before each batch, set at once: a pause that waited its turn behind a long crawl would
    /// come too late.
    package func pause() {
        state.withLock { s in
            s.paused = true
            s.status = .paused
        }
        logger.info("paused")
    }

    /// `fsindex resume`: the queued changes are applied, in order with the rest.
    package func resume() {
        submit(.resume)
        logger.info("resumed")
    }

    package var status: DaemonStatus {
        let counts = source.counts
        return state.withLock { s in
            DaemonStatus(state: s.status, queueLength: s.pending.count + eventsInFlight.load(ordering: .relaxed),
                         lastError: s.lastError,
                         roots: s.roots.map(\.path.bytes), watched: counts.watched, polled: counts.polled,
                         unreachable: counts.unreachable, pid: getpid(),
                         uptimeSeconds: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9,
                         itemsIndexedSinceStart: s.indexedSinceStart, missingRoots: missingRoots(s))
        }
    }

    func setStatus(_ s: DaemonStatus.State) { state.withLock { $0.status = s } }

    func record(error message: String) {
        logger.error("\(message)")
        state.withLock { $0.lastError = message }
    }
}
