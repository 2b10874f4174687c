import Attributes
import Crawling
import ExtractionModel
import Indexing
import Synchronization

extension IndexUpdater {
    /// The names-first pass of a first crawl: the names and file-system facts of new files
    /// (a type from the name, no file opened), written while the walk goes on.
    ///
    /// Why while the walk goes on: written after the walk, as before, no name was searchable
    /// until every entry of the root had been listed and `statx`ed (111,246 entries: seconds).
    /// Now the walk only hands entries over; a `BatchCommitter` thread makes and commits them, the
    /// first batch after 64 entries (up to 256 later: a SIGTERM waits for the one being written), so the first names are searchable at once and each next one
    /// as soon as the writing catches up, on the other core. Items keep extractor version 0, so
    /// the content pass that follows extracts every one of them.
    final class NamesFirstWriter: @unchecked Sendable {
        private let updater: IndexUpdater
        private let domain: String
        private var pending: [FileFacts] = []
        private var batchSize = 64
        private let shared = Shared()
        private var committer: BatchCommitter<[FileFacts]>?

        init(updater: IndexUpdater, domain: String) {
            self.updater = updater
            self.domain = domain
            let names = UncheckedNames()
            committer = BatchCommitter(capacity: 4) { [updater, domain, shared] facts in
                if updater.isCancelled || shared.failure.withLock({ $0 != nil }) { return }
                var entries: [IndexEntry] = []
                entries.reserveCapacity(facts.count)
                for f in facts {
                    let r = names.extraction.extract(f)
                    var attributes = r.attributes
                    // The user's tags and comment are facts too (`ExtendedAttributeMetadata`);
                    // what cannot be read is reported by the content pass.
                    attributes.merge(ExtendedAttributeMetadata.read(f.path).attributes)
                    let item = SearchableItem(uniqueIdentifier: ItemIdentifier(bytes: f.pathBytes),
                                              domainIdentifier: domain, attributes: attributes)
                    entries.append(IndexEntry(item: item,
                                              stamp: FileStamp(f),
                                              extractorVersion: r.extractorVersion, extractor: r.extractor))
                }
                let done = shared.written.add(entries.count, ordering: .relaxed).newValue
                do {
                    try updater.store.index(entries, clientState: IndexUpdater.clientState(domain: domain, done: 0, total: done, finished: false))
                } catch {
                    shared.failure.withLock { if $0 == nil { $0 = .stopped(by: error) } }
                }
            }
        }

        /// A new entry the walk found; written with the next batch.
        func add(_ facts: FileFacts) {
            pending.append(facts)
            if pending.count >= batchSize { flush() }
        }

        /// Writes what is left and waits for every batch; returns the first write error. Once.
        @discardableResult
        func finish() -> UpdateError? {
            guard let committer else { return shared.failure.withLock { $0 } }
            flush()
            committer.finish()
            self.committer = nil
            return shared.failure.withLock { $0 }
        }

        private func flush() {
            guard !pending.isEmpty, let committer else { return }
            committer.submit(pending)
            pending = []
            pending.reserveCapacity(batchSize)
            // Small first batches: the first names are in at once; larger ones later write
            // faster (one transaction each).
            batchSize = min(batchSize * 2, 256)
        }
    }
}

/// What the committing thread reports back.
private final class Shared: Sendable {
    let failure = Mutex<UpdateError?>(nil)
    let written = Atomic<Int>(0)
}

/// `NamesOnlyExtraction` (a class with a cache) used by the one committing thread only.
private final class UncheckedNames: @unchecked Sendable {
    let extraction = NamesOnlyExtraction()
}
