import Configuration
import Attributes
import Crawling
import Dispatch
import ExtractionModel
import Foundation
import Indexing
import Isolation
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// One crawl of the configured roots into the index: walk, compare with the index, extract what
/// changed, write in batches, and remove what is gone.
///
/// A key design decision: the walk finishes before extraction starts, and each root's stored
/// change stamps are loaded once. That makes an incremental crawl cost one `statx` per entry, and
/// makes resuming free: a crawl killed with SIGKILL left every committed batch in the index, so
/// the next crawl finds those files unchanged and extracts only the rest. Every batch is
/// committed with a client state recording the progress.
///
/// Extraction runs on `threads` threads, each with its own sandboxed `fsindex-worker` process;
/// one writer thread commits their batches (see `extractAndWrite`).
package final class IndexUpdater: Sendable {
    package let store: IndexStore
    package let settings: Settings
    let onProgress: (@Sendable (CrawlProgress) -> Void)?
    let onProblem: @Sendable (CrawlProblem) -> Void
    /// Index names and file-system facts of new files first, then their content (fsindexd's first
    /// crawl): name search works within seconds of the start, content follows.
    package var namesFirst: Bool {
        get { namesFirstFlag.load(ordering: .relaxed) }
        set { namesFirstFlag.store(newValue, ordering: .relaxed) }
    }
    private let namesFirstFlag = Atomic<Bool>(false)
    /// From this many files to read, a reconcile is a bulk load (`IndexStore.beginBulkLoad`) and
    /// ends with `optimize()`; tests lower it.
    let bulkLoadThreshold = Atomic<Int>(5000)
    /// Set by `cancel()`: the work at hand stops at the next file, folder or batch.
    private let cancelled = Atomic<Bool>(false)

    /// Stops the crawl, reconcile or batch at hand, and every later one of this updater, with
    /// `UpdateError.cancelled` (fsindexd's SIGTERM). The files being read are abandoned (their
    /// workers killed, `WorkerPool.stopAll`), so it takes no longer than a database step. What
    /// was committed stays, a batch cut short is not written, and nothing is removed on the
    /// strength of a walk cut short, so the index is consistent and the next crawl resumes:
    /// committed files are found unchanged.
    package func cancel() {
        cancelled.store(true, ordering: .relaxed)
        if case .workers(let pool) = extraction { pool.stopAll() }
    }

    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    /// Where files are parsed: sandboxed worker processes, kept between batches (starting one
    /// loads libmagic's database, which costs more than extracting a small batch of files).
    package let extraction: ExtractionMode
    /// Runs between the walk and extraction; tests use it to change the disk at that moment.
    let afterWalk: (@Sendable () -> Void)?

    package convenience init(store: IndexStore, settings: Settings,
                progress: (@Sendable (CrawlProgress) -> Void)? = nil,
                problem: @escaping @Sendable (CrawlProblem) -> Void,
                extraction: ExtractionMode? = nil) {
        self.init(store: store, settings: settings, progress: progress, problem: problem, afterWalk: nil, extraction: extraction)
    }

    init(store: IndexStore, settings: Settings, progress: (@Sendable (CrawlProgress) -> Void)?,
         problem: @escaping @Sendable (CrawlProblem) -> Void, afterWalk: (@Sendable () -> Void)?,
         extraction: ExtractionMode? = nil) {
        self.extraction = extraction ?? ExtractionMode.sandboxed(limits: settings.workerLimits)
        self.afterWalk = afterWalk
        self.store = store
        self.settings = settings
        self.onProgress = progress
        self.onProblem = problem
    }

    /// The roots to work on: those given on the command line (at every depth), else the
    /// config's `roots` and `shallow_roots`, else (neither key set) `DefaultRoots`, the user's
    /// XDG folders and the files directly in HOME; each checked by `resolveRoots`. Throws
    /// `.noRoots` when none is named (or none of the defaults exists).
    package static func roots(given: [String], settings: Settings,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws(UpdateError) -> [IndexRoot] {
        let recursive: [String]
        let filesOnly: [String]
        if !given.isEmpty {
            (recursive, filesOnly) = (given, [])
        } else if settings.rootsConfigured {
            (recursive, filesOnly) = (settings.roots ?? [], settings.shallowRoots ?? [])
        } else {
            let defaults = DefaultRoots.resolve(environment: environment)
            (recursive, filesOnly) = (defaults.recursive, defaults.filesOnly)
        }
        guard !recursive.isEmpty || !filesOnly.isEmpty else { throw .noRoots }
        var out = try resolveRoots(recursive).map { IndexRoot($0) }
        for path in try resolveRoots(filesOnly) {
            // A folder named in both lists is indexed whole.
            if !out.contains(where: { $0.path == path }) { out.append(IndexRoot(path, depth: .filesOnly)) }
        }
        return out
    }

    /// Checks that every root exists, is a folder or file, and can be read, before anything in
    /// the index changes. Returns the roots as absolute, symlink-resolved paths.
    package static func resolveRoots(_ paths: [String]) throws(UpdateError) -> [FilePath] {
        var out: [FilePath] = []
        for p in paths {
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            // `p` comes from a command line or the settings; `ArgumentBytes` keeps a name that
            // is not UTF-8 as its bytes.
            guard ArgumentBytes.path(p).withPlatformString({ realpath($0, &buf) }) != nil else {
                throw .badRoot(path: ArgumentBytes.display(p), reason: String(cString: strerror(errno)))
            }
            let resolved = FilePath(platformString: buf)
            let facts: FileFacts
            do { facts = try FileFacts.read(resolved) } catch {
                throw .badRoot(path: ArgumentBytes.display(p), reason: error.description)
            }
            if facts.type == .directory {
                guard resolved.withPlatformString({ access($0, R_OK | X_OK) }) == 0 else {
                    throw .badRoot(path: ArgumentBytes.display(p), reason: "permission denied (the folder cannot be listed)")
                }
            } else if resolved.withPlatformString({ access($0, R_OK) }) != 0 {
                throw .badRoot(path: ArgumentBytes.display(p), reason: "permission denied")
            }
            out.append(resolved)
        }
        return out
    }

    /// Crawls every root (already resolved by `resolveRoots`), each at the depth the index
    /// recorded for its domain (recursive for a root it does not know yet).
    /// With `force`, every file is extracted again even when unchanged (a reindex).
    package func crawl(roots: [FilePath], force: Bool = false) throws(UpdateError) -> CrawlReport {
        var indexRoots: [IndexRoot] = []
        for root in roots { indexRoots.append(IndexRoot(root, depth: try recordedDepth(domain: Self.domainName(root)))) }
        return try crawl(roots: indexRoots, force: force)
    }

    /// Crawls every root (already resolved by `resolveRoots`) at its depth, and records the
    /// depth with its domain, so that later rescans and reindexes keep a files-only root shallow.
    /// With `force`, every file is extracted again even when unchanged (a reindex).
    package func crawl(roots: [IndexRoot], force: Bool = false) throws(UpdateError) -> CrawlReport {
        // The workers end with the crawl: they start again on the next file in a few
        // milliseconds, while an idle one holds its parsers' memory (issue 41: two of them lived
        // on through the summaries and the OCR pass of `fsindex index`, beside the OCR worker).
        defer { if case .workers(let pool) = extraction { pool.stopIdle() } }
        var report = CrawlReport()
        let start = DispatchTime.now()
        _ = try? store.purgeExpiredItems()
        for root in roots {
            do {
                try store.setMeta(Self.depthKey(Self.domainName(root.path)), root.isFilesOnly ? root.depth.rawValue : nil)
            } catch { throw .index(error) }
            try crawl(root: root.path, force: force, into: &report, start: start)
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return report
    }

    /// The domain name of a root: its path, printable.
    package static func domainName(_ root: FilePath) -> String {
        ByteString.escaped(root.bytes)
    }

    /// Where the index keeps a domain's depth: present (`files-only`) only for a files-only root.
    static func depthKey(_ domain: String) -> String { "depth:" + domain }

    /// The depth the last crawl of `domain` recorded in `store` (for `fsindex status`);
    /// recursive when none is recorded or the index cannot say.
    package static func recordedDepth(in store: IndexStore, domain: String) -> IndexRoot.Depth {
        ((try? store.meta(depthKey(domain))) ?? nil).flatMap(IndexRoot.Depth.init(rawValue:)) ?? .recursive
    }

    /// The depth the last crawl of `domain` recorded: recursive unless it was a files-only root.
    package func recordedDepth(domain: String) throws(UpdateError) -> IndexRoot.Depth {
        let value: String?
        do { value = try store.meta(Self.depthKey(domain)) } catch { throw .index(error) }
        return value.flatMap(IndexRoot.Depth.init(rawValue:)) ?? .recursive
    }

    private func crawl(root: FilePath, force: Bool, into report: inout CrawlReport, start: DispatchTime) throws(UpdateError) {
        let domain = Self.domainName(root)
        report.roots.append(domain)
        do {
            try store.beginCrawl(domain: domain, root: root.bytes)
        } catch { throw .index(error) }
        let before = report
        try reconcile(directory: root, recursive: true, domain: domain, force: force, into: &report, start: start)
        do {
            let n = report.indexed - before.indexed
            try store.finishCrawl(domain: domain, problems: report.problems - before.problems,
                                  clientState: Self.clientState(domain: domain, done: n, total: n, finished: true))
        } catch { throw .index(error) }
    }

    /// Brings the index in step with one folder (and everything below it when `recursive`):
    /// extracts what is new or changed, removes what is gone. A root crawl is the recursive
    /// reconcile of the root; the watcher uses the same after a queue overflow or for a polled
    /// folder.
    package func reconcile(directory: FilePath, recursive: Bool, domain: String, force: Bool = false) throws(UpdateError) -> CrawlReport {
        var report = CrawlReport()
        let start = DispatchTime.now()
        try reconcile(directory: directory, recursive: recursive, domain: domain, force: force, into: &report, start: start)
        report.seconds = elapsed(start)
        return report
    }

    /// Deletes `ident` and everything the index holds below it, and counts them as removed.
    func removeAll(under ident: ItemIdentifier, into report: inout CrawlReport) throws(UpdateError) {
        do {
            let went = try store.deletedItems(under: ident)
            report.removed += went.count
            report.removedIdentifiers += went
        } catch { throw .index(error) }
    }

    /// Deletes these items, not what is below them (a folder's files stay for its move to take).
    func removeItems(_ idents: [ItemIdentifier], into report: inout CrawlReport) throws(UpdateError) {
        do {
            let went = try store.deletedItems(rowIDs: try store.stamps(of: idents).values.map(\.id))
            report.removed += went.count
            report.removedIdentifiers += went
        } catch { throw .index(error) }
    }

    private func reconcile(directory: FilePath, recursive: Bool, domain: String, force: Bool, into report: inout CrawlReport,
                           start: DispatchTime) throws(UpdateError) {
        let versions = ExtractionVersions.forIndex
        let ident = ItemIdentifier(bytes: directory.bytes)
        let isRoot = Self.domainName(directory) == domain
        let filesOnly = try recordedDepth(domain: domain) == .filesOnly
        if filesOnly && !isRoot {
            // A folder below a files-only root (moved or made there) is not indexed: what the
            // index may hold of it goes.
            try removeAll(under: ident, into: &report)
            return
        }
        // A files-only root is compared whole (its files), whatever the rescan asked.
        let recursive = recursive || filesOnly
        let wholeDomain = recursive && isRoot
        var stored: [[UInt8]: StoredStamp]
        do {
            if wholeDomain {
                stored = try store.stamps(domain: domain)
            } else {
                stored = try store.stamps(under: ident, recursive: recursive)
                if let own = try store.stamp(of: ident) { stored[ident.bytes] = own }
            }
        } catch { throw .index(error) }

        // An index written before extended attributes were read holds no tags for files that
        // have not changed since: the first whole crawl of each root reads them once.
        let sweepKey = "xattrs-read:" + domain
        let sweepMetadata = wholeDomain && !force && ((try? store.meta(sweepKey)) ?? nil) == nil
        var unchangedFiles: [FileFacts] = []

        // 1. Walk and compare.
        var todo: [FileFacts] = []
        var seen = Set<[UInt8]>()
        seen.reserveCapacity(stored.count)
        var problems = 0
        // Folders that went while the walk was listing them (renamed or deleted between their
        // parent's listing, or their stat, and their own).
        var vanished: [[UInt8]] = []
        var lastProgress = DispatchTime.now()
        var options = settings.walkOptions
        options.recursive = recursive
        options.filesOnly = filesOnly
        let walker = DirectoryWalker(root: directory, options: options)
        // For a first crawl (fsindexd's), the names and facts of new files are written while the
        // walk goes on, then the content of everything.
        let names = namesFirst ? NamesFirstWriter(updater: self, domain: domain) : nil
        do {
            try walker.walk(stop: { self.isCancelled }, { facts in
                let key = facts.pathBytes
                // Only what the index holds can be gone: a first crawl keeps no set of 100,000 paths.
                if !stored.isEmpty { seen.insert(key) }
                if !force, let old = stored[key], versions.isCurrent(extractor: old.extractor, version: old.extractorVersion), let s = old.stamp,
                   s == FileStamp(facts) {
                    report.unchanged += 1
                    if sweepMetadata { unchangedFiles.append(facts) }
                } else {
                    todo.append(facts)
                    if stored[key] == nil { names?.add(facts) }
                }
                report.seen += 1
                if let onProgress, DispatchTime.now().uptimeNanoseconds - lastProgress.uptimeNanoseconds > 200_000_000 {
                    lastProgress = DispatchTime.now()
                    onProgress(CrawlProgress(root: domain, phase: .scanning, seen: report.seen, indexed: report.indexed,
                                             toIndex: todo.count, elapsed: elapsed(start)))
                }
            }, problem: { p in
                problems += 1
                if p.errno == .noSuchFileOrDirectory || p.errno == .notDirectory { vanished.append(p.path.bytes) }
                onProblem(CrawlProblem(path: ByteString.escaped(p.path.bytes), message: p.reason))
            })
        } catch {
            names?.finish()
            if error.errno == .noSuchFileOrDirectory && !wholeDomain {
                // The folder itself is gone: so is everything the index had below it.
                try removeAll(under: ident, into: &report)
                return
            }
            throw .badRoot(path: ByteString.escaped(directory.bytes), reason: error.reason)
        }

        if let e = names?.finish() { throw e }
        // A walk cut short saw only part of the tree: nothing may be removed on its strength.
        if isCancelled { throw .cancelled }
        afterWalk?()
        // 2. Extract and write what changed: thousands of files as a bulk load (large full-text
        // segments, merged once at the end; see `IndexStore.beginBulkLoad`).
        let bulk = todo.count >= bulkLoadThreshold.load(ordering: .relaxed)
        if bulk {
            do { try store.beginBulkLoad() } catch { throw .index(error) }
        }
        let result: BatchResult
        do {
            result = try extractAndWrite(todo, domain: domain, seenSoFar: report.seen, indexedBefore: report.indexed,
                                         start: start)
        } catch {
            if bulk { try? store.endBulkLoad() }
            throw error
        }
        if bulk {
            do {
                try store.endBulkLoad()
                if !isCancelled { try store.optimize() }
            } catch { throw .index(error) }
        }
        report.indexed += result.indexed
        report.summarized += result.summarized
        report.removed += result.vanished
        report.bytes += result.bytes
        problems += result.problems
        report.updatedIdentifiers += result.written

        if sweepMetadata {
            report.updatedIdentifiers += try readMetadata(of: unchangedFiles, stored: stored)
            if isCancelled { throw .cancelled }
            do { try store.setMeta(sweepKey, "1") } catch { throw .index(error) }
        }

        // 3. Remove items whose files are gone (for a folder that went, everything below it).
        // Not those below a folder that vanished while it was being listed: unseen is not gone
        // there. Renamed, its move's event carries them where it went (the whole suite at stop
        // 53: a new folder's listing ran just after the test renamed its parent, and the file
        // the move was to carry had been removed); deleted, its deletion's events remove them.
        let gone = stored.filter { item in !seen.contains(item.key) && !vanished.contains { item.key.isBelow($0) } }
        if !gone.isEmpty {
            onProgress?(CrawlProgress(root: domain, phase: .cleaning, seen: report.seen, indexed: report.indexed,
                                      toIndex: todo.count, elapsed: elapsed(start)))
            do {
                // Every identifier that went is reported, the items inside files too.
                if recursive {
                    let ids = gone.map(\.value.id)
                    for chunk in stride(from: 0, to: ids.count, by: 1000) {
                        if isCancelled { throw UpdateError.cancelled }
                        report.removedIdentifiers += try store.deletedItems(rowIDs: Array(ids[chunk..<min(chunk + 1000, ids.count)]))
                    }
                    report.removed += ids.count
                } else {
                    for key in gone.keys {
                        let went = try store.deletedItems(under: ItemIdentifier(bytes: key))
                        report.removed += went.count
                        report.removedIdentifiers += went
                    }
                }
            } catch {
                throw .stopped(by: error)
            }
        }
        report.removedIdentifiers += result.vanishedIdentifiers
        report.problems += problems
    }

    private struct BatchResult: Sendable {
        var indexed = 0
        var bytes: Int64 = 0
        var problems = 0
        var vanished = 0
        /// Items written with a summary (made by the worker).
        var summarized = 0
        var written: [ItemIdentifier] = []
        var vanishedIdentifiers: [ItemIdentifier] = []
    }

    /// Extracts and writes these entries (files the watcher saw created or changed); returns
    /// what was written and what had vanished meanwhile.
    package func index(_ files: [FileFacts], domain: String) throws(UpdateError) -> CrawlReport {
        let start = DispatchTime.now()
        let r = try extractAndWrite(files, domain: domain, seenSoFar: files.count, indexedBefore: 0, start: start)
        var report = CrawlReport()
        report.seen = files.count
        report.indexed = r.indexed
        report.summarized = r.summarized
        report.bytes = r.bytes
        report.problems = r.problems
        report.removed = r.vanished
        report.updatedIdentifiers = r.written
        report.removedIdentifiers = r.vanishedIdentifiers
        report.seconds = elapsed(start)
        return report
    }

    /// One batch of extracted files, on its way to the writer.
    private struct ExtractedBatch: Sendable {
        var entries: [IndexEntry]
        var vanished: [ItemIdentifier]
        var local: BatchResult
    }


    /// How many extracted batches the writer commits in one transaction at most.
    static let batchesPerTransaction = 8

    /// Extracts `todo` on worker threads and writes batches. A write error (disk full) stops
    /// every worker and is thrown; batches already committed stay.
    ///
    /// A key design decision (issue 23): the extraction threads never write. Each hands its batch
    /// to one writer thread (`BatchCommitter`) and sends its worker the next file at once, so the
    /// workers parse while SQLite writes, and both cores stay busy. The writer commits the
    /// batches that wait for it together, up to `batchesPerTransaction`, in one transaction: a
    /// first crawl writes a few large transactions (fewer full-text segments to merge later)
    /// while a watcher's small batch is still written at once. At most `threads + 1` batches
    /// wait, which holds the extraction back, and memory bounded, when writing is the slower side.
    private func extractAndWrite(_ todo: [FileFacts], domain: String, seenSoFar: Int, indexedBefore: Int,
                                 start: DispatchTime) throws(UpdateError) -> BatchResult {
        guard !todo.isEmpty else { return BatchResult() }
        let batchSize = max(1, settings.index.batchSize)
        let chunks = stride(from: 0, to: todo.count, by: batchSize).map { $0..<min($0 + batchSize, todo.count) }
        let threads = settings.index.threads > 0 ? settings.index.threads : max(1, System.coreCount)
        let workers = min(threads, chunks.count)
        let next = Atomic<Int>(0)
        let state = Mutex<(result: BatchResult, error: UpdateError?, lastProgress: UInt64)>((BatchResult(), nil, 0))
        let textCap = settings.index.textCap
        let store = self.store
        let onProgress = self.onProgress
        let writer = BatchCommitter<ExtractedBatch>(capacity: workers + 1, grouping: Self.batchesPerTransaction) { [self] batches in
            // After a failure or a cancel, nothing more is written: the next crawl extracts it again.
            if isCancelled || state.withLock({ $0.error != nil }) { return }
            let indexed = batches.reduce(0) { $0 + $1.local.indexed }
            let done = state.withLock { $0.result.indexed } + indexed
            do {
                try store.index(batches.flatMap(\.entries), deleting: batches.flatMap(\.vanished),
                                clientState: Self.clientState(domain: domain, done: done, total: todo.count, finished: false))
            } catch {
                state.withLock { if $0.error == nil { $0.error = .stopped(by: error) } }
                return
            }
            let now = DispatchTime.now().uptimeNanoseconds
            let report: CrawlProgress? = state.withLock { s in
                for batch in batches {
                    s.result.indexed += batch.local.indexed
                    s.result.bytes += batch.local.bytes
                    s.result.problems += batch.local.problems
                    s.result.vanished += batch.local.vanished
                    s.result.summarized += batch.local.summarized
                    s.result.written += batch.entries.map(\.item.uniqueIdentifier)
                    s.result.vanishedIdentifiers += batch.vanished
                }
                guard now - s.lastProgress > 200_000_000 else { return nil }
                s.lastProgress = now
                return CrawlProgress(root: domain, phase: .indexing, seen: seenSoFar, indexed: indexedBefore + s.result.indexed,
                                     toIndex: todo.count, elapsed: Double(now - start.uptimeNanoseconds) / 1e9)
            }
            if let report { onProgress?(report) }
        }
        SystemCall.concurrentPerform(iterations: workers) { _ in
            let pool: WorkerPool
            switch extraction {
            case .workers(let p): pool = p
            case .unavailable(let reason):
                state.withLock { if $0.error == nil { $0.error = .extraction(reason) } }
                return
            }
            let worker = pool.take()
            let names = NamesOnlyExtraction()
            defer { pool.give(worker) }
            while true {
                if isCancelled { state.withLock { if $0.error == nil { $0.error = .cancelled } } }
                if state.withLock({ $0.error != nil }) { return }
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < chunks.count else { return }
                var entries: [IndexEntry] = []
                entries.reserveCapacity(chunks[i].count)
                var local = BatchResult()
                var vanished: [ItemIdentifier] = []
                for facts in todo[chunks[i]] {
                    // A batch cut short is not written: the next crawl extracts it again.
                    if isCancelled { break }
                    // A folder is its file-system facts and a type, which the worker would compute
                    // the same way without opening anything: no round trip (and no worker to start
                    // when the watcher refreshes the folder of a deleted file).
                    let r = facts.type == .directory ? names.extract(facts, extractor: nil, version: ExtractionVersions.version(of: nil))
                        : Self.tooLongToRead(facts, names: names) ?? worker.extract(facts, textCap: textCap)
                    if r.problems.contains(where: \.meansVanished) {
                        // Deleted since the walk: the index must not keep (or gain) it.
                        vanished.append(ItemIdentifier(bytes: facts.pathBytes))
                        local.vanished += 1
                        continue
                    }
                    var attributes = r.attributes
                    // The user's tags, comment, origin and rating, read here rather than in the
                    // worker (see `ExtendedAttributeMetadata`); a value left out is reported.
                    let metadata = ExtendedAttributeMetadata.read(facts.path)
                    attributes.merge(metadata.attributes)
                    for note in metadata.notes {
                        onProblem(CrawlProblem(path: ByteString.escaped(facts.pathBytes), message: note))
                    }
                    if !r.problems.isEmpty {
                        local.problems += r.problems.count
                        let message = r.problems.map(\.description).joined(separator: "; ")
                        if attributes[.extractionError] == nil { attributes[.extractionError] = .string(message) }
                        onProblem(CrawlProblem(path: ByteString.escaped(facts.pathBytes), message: message))
                    }
                    if facts.type == .regular { local.bytes += min(facts.size, Int64(settings.index.textCap)) }
                    let item = SearchableItem(uniqueIdentifier: ItemIdentifier(bytes: facts.pathBytes),
                                              domainIdentifier: domain, attributes: attributes)
                    // The worker made the summaries with the texts (`WorkerSummaries`).
                    // Each text is compressed here, while the worker parses the next file, not by
                    // the writer; and at once, so that a batch being filled holds packed texts
                    // only (issue 41: `packText()` lets a compressed text go).
                    var entry = IndexEntry(item: item, stamp: FileStamp(facts),
                                           extractorVersion: r.extractorVersion, extractor: r.extractor, summarized: true)
                    entry.packText()
                    entries.append(entry)
                    for child in r.children {
                        var a = child.attributes
                        a[.path] = .string(ByteString.escaped(facts.pathBytes))
                        let ident = ItemIdentifier.child(of: facts.pathBytes, key: child.key)
                        var entry = IndexEntry(item: SearchableItem(uniqueIdentifier: ident, domainIdentifier: domain, attributes: a),
                                               extractorVersion: r.extractorVersion, extractor: r.extractor, summarized: true)
                        entry.packText()
                        entries.append(entry)
                    }
                }
                if isCancelled { continue }
                // Files, not the items inside them (messages), count as indexed.
                local.indexed = entries.count { !$0.item.uniqueIdentifier.bytes.contains(0) }
                local.summarized = entries.count { $0.item.attributes[.textContentSummary] != nil }
                writer.submit(ExtractedBatch(entries: entries, vanished: vanished, local: local))
            }
        }
        writer.finish()
        if isCancelled { state.withLock { if $0.error == nil { $0.error = .cancelled } } }
        let final = state.withLock { $0 }
        if let e = final.error { throw e }
        return final.result
    }

    /// The one-time sweep of an index written before extended attributes were read: the items
    /// of unchanged files that have any of ours are refreshed (attributes only). A file without
    /// extended attributes, most of them, costs one `llistxattr`.
    private func readMetadata(of files: [FileFacts], stored: [[UInt8]: StoredStamp]) throws(UpdateError) -> [ItemIdentifier] {
        var updated: [ItemIdentifier] = []
        for facts in files {
            if isCancelled { break }
            let found = ExtendedAttributes.read(facts.path, names: ExtendedAttributeMetadata.names)
            guard !found.values.isEmpty else { continue }
            if try refreshAttributes(facts, stored: stored[facts.pathBytes]) {
                updated.append(ItemIdentifier(bytes: facts.pathBytes))
            }
        }
        return updated
    }

    /// Brings a stored item's metadata in step with `facts` without reading its content: the
    /// file-system attributes a chmod, chown or access can change, the extended attributes
    /// (tags, comment, origin, rating), and the stamp. For `IN_ATTRIB` and `fsindex tag`.
    ///
    /// Only when the content cannot have changed: the stored item is current and has the same
    /// size, mtime and inode (only the ctime moved, as a change of metadata moves it). Returns
    /// false otherwise (nothing stored, stale, or the content changed), and the caller extracts
    /// the file as usual. The full crawl does not take this path: there a changed ctime is the
    /// last guard against content rewritten behind a restored mtime, which the watcher instead
    /// sees as a write.
    package func refreshAttributes(_ facts: FileFacts, stored: StoredStamp?) throws(UpdateError) -> Bool {
        guard let old = stored, let s = old.stamp,
              ExtractionVersions.forIndex.isCurrent(extractor: old.extractor, version: old.extractorVersion),
              s.size == facts.size, s.modificationNanos == facts.modificationNanos, s.inode == facts.inode else { return false }
        var names = UserNameCache()
        var fresh = FileSystemExtractor().attributes(of: facts, names: &names)
        let metadata = ExtendedAttributeMetadata.read(facts.path)
        fresh.merge(metadata.attributes)
        for note in metadata.notes {
            onProblem(CrawlProblem(path: ByteString.escaped(facts.pathBytes), message: note))
        }
        let stamp = FileStamp(facts)
        do {
            return try store.refreshAttributes(of: ItemIdentifier(bytes: facts.pathBytes), stamp: stamp,
                                               replacing: FileSystemExtractor.metadataKeys.union(ExtendedAttributeMetadata.keys),
                                               with: fresh)
        } catch { throw .index(error) }
    }

    /// `crawl <done>/<total> <domain>`, cut to Core Spotlight's 250-byte limit.
    static func clientState(domain: String, done: Int, total: Int, finished: Bool) -> [UInt8] {
        let text = "\(finished ? "done" : "crawl") \(done)/\(total) \(domain)"
        return Array(Array(text.utf8).prefix(250))
    }

    private func elapsed(_ start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

enum System {
    static var coreCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

/// Why a crawl stopped.
package enum UpdateError: Error, Sendable, CustomStringConvertible {
    case badRoot(path: String, reason: String)
    case noRoots
    case index(IndexError)
    /// No extraction worker can be started: why.
    case extraction(WorkerFailure)
    /// Anything else that stopped the work, kept as it was thrown (a walk's error, a system
    /// call's), so that its message and its type reach the user and the tests unchanged.
    case failed(cause: any Error)
    /// `cancel()` was called (SIGTERM): the work stopped early, consistently.
    case cancelled

    /// `error` as the reason a crawl or a batch stopped: itself when it is one already, the
    /// index's error as `.index`, any other as `.failed` with the error kept.
    package static func stopped(by error: any Error) -> UpdateError {
        if let e = error as? UpdateError { return e }
        if let e = error as? IndexError { return .index(e) }
        return .failed(cause: error)
    }

    package var description: String {
        switch self {
        case let .badRoot(path, reason): "\(path): \(reason)"
        case .noRoots: "no folder to index: name one on the command line or set `roots` in the config file (without `roots` and `shallow_roots` the defaults are the XDG folders, such as ~/Documents, and the files directly in HOME, less those on network or removable mounts; `fsindex setup` shows what was left out and why)"
        case let .index(e): e.description
        case let .extraction(failure): "cannot start extraction: \(failure)"
        case let .failed(cause): "\(cause)"
        case .cancelled: "stopped before the end (SIGTERM); the next start resumes where this one stopped"
        }
    }
}

extension ExtractionError {
    /// The file (or a folder above it) was deleted between the walk and the read.
    var meansVanished: Bool {
        if case .unreadable(let e, _) = self { return e == ENOENT || e == ENOTDIR }
        return false
    }
}

/// Where an updater parses files.
package enum ExtractionMode: Sendable {
    /// Sandboxed `fsindex-worker` processes: what `fsindex` and `fsindexd` use, so that no
    /// parser ever runs in the indexer or the watcher.
    case workers(WorkerPool)
    /// No worker can be started (the executable is missing); every crawl fails with this reason
    /// before it changes anything.
    case unavailable(WorkerFailure)

    /// Workers from the `fsindex-worker` beside the running executable, or from `executable`
    /// (the tests' `fsindex-test-worker`).
    package static func sandboxed(limits: WorkerLimits, environment: [String: String] = [:],
                                 executable: String? = nil) -> ExtractionMode {
        do throws(WorkerFailure) {
            let path = if let executable { executable } else { try WorkerExecutable.locate() }
            return .workers(WorkerPool(executable: path, limits: limits, environment: environment))
        } catch {
            return .unavailable(error)
        }
    }
}
