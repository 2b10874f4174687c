import Attributes
import Crawling
import ExtractionModel
import FoundationEssentials
import Indexing
import Synchronization
import SystemCalls
import SystemPackage

/// The reindex-on-demand handler: re-reads items from the files. `fsindex reindex` runs it when
/// no daemon does, `fsindexd` runs it for `fsindex reindex` requests, and the index asks for it
/// by itself (`IndexStore.performMaintenance`) after a repair, a schema change, an extractor
/// upgrade or an expiration.
package final class Reindexer: IndexRequestHandler {
    package let updater: IndexUpdater
    /// Roots known from elsewhere (the config, the command line), reindexed with the index's own
    /// domains: after a damaged database was replaced, the index no longer knows its roots.
    /// Each with its depth: a rebuilt database has lost the depths it recorded too.
    package let extraRoots: [IndexRoot]
    /// fsindexd's strays (see `LiveIndexer.Strays`), or nil where no events follow (`fsindex
    /// reindex` without a daemon): then a file that is gone is gone.
    package let strays: LiveIndexer.Strays?

    package init(updater: IndexUpdater, roots: [FilePath] = [], strays: LiveIndexer.Strays? = nil) {
        self.updater = updater
        self.extraRoots = roots.map { IndexRoot($0) }
        self.strays = strays
    }

    package init(updater: IndexUpdater, roots: [IndexRoot]) {
        self.updater = updater
        self.extraRoots = roots
        self.strays = nil
    }

    /// The index's roots at the depths it recorded (a crawl records the depth it was given),
    /// then the extra roots it does not hold, at theirs.
    private func allRoots() throws -> [IndexRoot] {
        var roots: [IndexRoot] = []
        for domain in try updater.store.domains() {
            let path = FilePath(bytes: domain.root)
            roots.append(IndexRoot(path, depth: try updater.recordedDepth(domain: IndexUpdater.domainName(path))))
        }
        roots += extraRoots.filter { r in !roots.contains { $0.path == r.path } }
        return roots
    }

    /// The sum of what the last requests did.
    package var lastReport: CrawlReport { state.withLock { $0 } }
    private let state = Synchronization.Mutex(CrawlReport())

    package func reindexAllSearchableItems(acknowledgementHandler: @escaping @Sendable () -> Void) throws {
        let roots = try allRoots()
        var report = CrawlReport()
        // A root that is gone: its items go too (the files are the truth).
        var present: [IndexRoot] = []
        for root in roots {
            if (try? FileFacts.read(root.path)) != nil {
                present.append(root)
            } else {
                let went = try updater.store.deletedItems(domains: [IndexUpdater.domainName(root.path)])
                report.removed += went.count
                report.removedIdentifiers += went
            }
        }
        let r = try updater.crawl(roots: present, force: true)
        report.merge(r)
        state.withLock { $0 = report }
        acknowledgementHandler()
    }

    package func reindexSearchableItems(withIdentifiers identifiers: [ItemIdentifier],
                                       acknowledgementHandler: @escaping @Sendable () -> Void) throws {
        let live = LiveIndexer(updater: updater, roots: try allRoots().map(\.path), strays: strays ?? LiveIndexer.Strays())
        var report = CrawlReport()
        var byDomain: [String: [FileFacts]] = [:]
        for ident in identifiers {
            let path = FilePath(bytes: ident.bytes)
            guard let root = live.root(of: path) else { continue }
            if let facts = try? FileFacts.read(path), !live.isExcluded(path, root: root) {
                if facts.type == .directory {
                    // A folder: reindex everything below it.
                    let r = try updater.reconcile(directory: path, recursive: true, domain: IndexUpdater.domainName(root), force: true)
                    report.merge(r)
                } else {
                    byDomain[IndexUpdater.domainName(root), default: []].append(facts)
                }
            } else if let strays, case .strayed = live.lookAgain(path) {
                // Its folder is gone as well: most likely renamed, with the rename's events still
                // on their way (a query saw the result's file gone before fsindexd heard of the
                // move, and asked for it to be looked at). Only its own item goes, and the path
                // waits among the strays: the folder's move, when it comes, indexes it where it
                // is now. Deleting everything below it lost the files of a renamed folder.
                try updater.removeItems([ident], into: &report)
                strays.add([path])
            } else {
                try updater.removeAll(under: ident, into: &report)
            }
        }
        for (domain, files) in byDomain { report.merge(try updater.index(files, domain: domain)) }
        state.withLock { $0 = report }
        acknowledgementHandler()
    }
}

extension CrawlReport {
    mutating func merge(_ r: CrawlReport) {
        roots += r.roots.filter { !roots.contains($0) }
        seen += r.seen
        indexed += r.indexed
        unchanged += r.unchanged
        removed += r.removed
        bytes += r.bytes
        seconds += r.seconds
        problems += r.problems
        updatedIdentifiers += r.updatedIdentifiers
        removedIdentifiers += r.removedIdentifiers
    }
}

extension ExtractionVersions {
    /// The extractors' current versions, in the form the index compares stored items with.
    package static var forIndex: ExtractorVersions {
        var byName: [String: Int] = [:]
        for (name, version) in all { if let name { byName[name] = version } }
        return ExtractorVersions(none: version(of: nil), byName: byName)
    }
}
