import Configuration
import Attributes
import Crawling
import ExtractionModel
import FoundationEssentials
import Indexing
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// Applies batches of file-system events to the index: the single writer of `fsindexd`.
///
/// A key design decision: events are hints, the disk is the truth. Every path an event names is
/// looked at again (`statx`) when the batch is applied, so a burst (`tar x`, `rm -rf`,
/// `git checkout`) collapses into the state the files are in *now*: a file created and deleted
/// in the same batch costs nothing, a file written ten times is extracted once. Renames move
/// items with their attributes and text, without extracting anything again; so does a change
/// of metadata alone (`IN_ATTRIB` with the size and mtime unchanged: new tags, a comment, a
/// chmod), which refreshes the item's attributes (`IndexUpdater.refreshAttributes`).
package final class LiveIndexer: Sendable {
    package let updater: IndexUpdater
    package let roots: [FilePath]
    var store: IndexStore { updater.store }
    /// Files an event said were there, not found because their folder was away when they were
    /// looked at or read (a folder renamed and renamed back while a batch waited: the disk ahead
    /// of the events). The folder's own moves come in a later batch; each takes these along and
    /// looks for them where it lands. fsindexd gives every batch's indexer the same list, since
    /// those moves come in later batches (issue 40).
    package let strays: Strays
    /// Runs before the files of a batch are read (after they were looked at); tests use it to
    /// change the disk at that moment.
    let beforeReading: (@Sendable () -> Void)?

    package convenience init(updater: IndexUpdater, roots: [FilePath]) {
        self.init(updater: updater, roots: roots, strays: Strays())
    }

    /// - Parameter strays: the files not found while their folder was away, kept from one batch
    ///   to the next (fsindexd keeps one list for its life; see `Strays`).
    package init(updater: IndexUpdater, roots: [FilePath], strays: Strays, beforeReading: (@Sendable () -> Void)? = nil) {
        self.updater = updater
        self.roots = roots.sorted { $0.bytes.count > $1.bytes.count }   // longest first: nested roots
        self.strays = strays
        self.beforeReading = beforeReading
    }

    /// Files not found because their folder was away (see `LiveIndexer.strays`), until a move
    /// of that folder comes. At most `maximum`, the oldest dropped (a reconcile finds those).
    package final class Strays: Sendable {
        private let paths = Mutex<[FilePath]>([])
        static let maximum = 10_000

        package init() {}

        /// How many wait.
        package var count: Int { paths.withLock { $0.count } }

        func add(_ more: [FilePath]) {
            guard !more.isEmpty else { return }
            paths.withLock { list in
                list.append(contentsOf: more)
                if list.count > Self.maximum { list.removeFirst(list.count - Self.maximum) }
            }
        }

        /// Removes and returns the strays below `folder`.
        func take(below folder: FilePath) -> [FilePath] {
            let prefix = folder.bytes
            return paths.withLock { list in
                guard !list.isEmpty else { return [] }
                var taken: [FilePath] = []
                list.removeAll { stray in
                    let b = stray.bytes
                    let below = b.isBelow(prefix)
                    if below { taken.append(stray) }
                    return below
                }
                return taken
            }
        }
    }

    /// What one batch changed, for live-query subscribers.
    package struct Changes: Sendable, Hashable {
        package var updated: [ItemIdentifier] = []
        package var removed: [ItemIdentifier] = []
        package var problems = 0
        package var isEmpty: Bool { updated.isEmpty && removed.isEmpty }
    }

    /// The root (and so the domain) a path belongs to, if any.
    package func root(of path: FilePath) -> FilePath? {
        let bytes = path.bytes
        return roots.first { r in
            let rb = r.bytes
            return bytes == rb || bytes.isBelow(rb)
        }
    }

    /// Applies one batch. Index errors (disk full) are thrown; the batch's effects are then
    /// partly applied and the daemon reconciles the roots later.
    package func apply(_ batch: [FileEvent]) throws(UpdateError) -> Changes {
        var changes = Changes()
        var touched: [[UInt8]: FilePath] = [:]    // files and folders to look at again, in order of first mention
        var order: [[UInt8]] = []
        var rescans: [(FilePath, Bool)] = []
        // Paths named only by `.attributesChanged` in this batch: their content was not written,
        // so a change of metadata alone (tags, chmod) is applied without extracting again.
        var metadataOnly = Set<[UInt8]>()
        var written = Set<[UInt8]>()
        // Paths whose last event was a deletion: gone as told, never strays.
        var deletedByEvent = Set<[UInt8]>()
        func touch(_ p: FilePath, metadata: Bool = false) {
            let key = p.bytes
            if touched[key] == nil { order.append(key) }
            touched[key] = p
            if !metadata {
                written.insert(key)
                metadataOnly.remove(key)
            } else if !written.contains(key) {
                metadataOnly.insert(key)
            }
        }
        // An entry created, deleted or renamed changes its folder's mtime and ctime: the folder's
        // item is looked at again too, so its stamp stays the disk's (what `fsindex check` and the
        // next reconcile compare).
        func touchFolder(of p: FilePath) {
            let folder = p.removingLastComponent()
            if folder != p, root(of: folder) != nil { touch(folder) }
        }
        for event in batch {
            switch event {
            case .deleted(let p, _): deletedByEvent.insert(p.bytes)
            case .created(let p, _), .modified(let p), .attributesChanged(let p): deletedByEvent.remove(p.bytes)
            case .moved(let from, let to, _):
                deletedByEvent.insert(from.bytes)
                deletedByEvent.remove(to.bytes)
            default: break
            }
            switch event {
            case .modified(let p):
                touch(p)
            case .attributesChanged(let p):
                touch(p, metadata: true)
            case .created(let p, _):
                touch(p)
                touchFolder(of: p)
            case .deleted(let p, let isDirectory):
                touch(p)     // looked at again: gone (deleted) or there (replaced meanwhile)
                touchFolder(of: p)
                if isDirectory { _ = strays.take(below: p) }
            case .moved(let from, let to, let isDirectory):
                touchFolder(of: from)
                touchFolder(of: to)
                try applyMove(from: from, to: to, isDirectory: isDirectory, changes: &changes, touch: { touch($0) })
                if isDirectory {
                    // What this batch named below the folder, and what earlier batches missed
                    // there, is looked at where the folder is now.
                    let (fromBytes, toBytes) = (from.bytes, to.bytes)
                    func moved(_ key: [UInt8]) -> [UInt8]? {
                        key.isBelow(fromBytes) ? toBytes + key[fromBytes.count...] : nil
                    }
                    for (i, key) in order.enumerated() {
                        guard let newKey = moved(key) else { continue }
                        order[i] = newKey
                        touched[newKey] = FilePath(bytes: newKey)
                        touched[key] = nil
                        if written.remove(key) != nil { written.insert(newKey) }
                        if metadataOnly.remove(key) != nil { metadataOnly.insert(newKey) }
                    }
                    var strayFolders: [FilePath] = []
                    for stray in strays.take(below: from) {
                        let now = FilePath(bytes: moved(stray.bytes) ?? stray.bytes)
                        touch(now)
                        // A folder that strayed (looked at while a folder above it was away) is
                        // compared with the disk, recursively, where it is now: what is below it
                        // may have changed while it was away too.
                        if (try? FileFacts.read(now))?.type == .directory { strayFolders.append(now) }
                    }
                    // A rescan named earlier in the batch (entries made before a new folder's
                    // watch existed) is of the folder where it is now: run at the old path, after
                    // the move, it would find nothing, and those entries would wait for the next
                    // reconcile.
                    for i in rescans.indices {
                        let key = rescans[i].0.bytes
                        if key == fromBytes { rescans[i].0 = to } else if let newKey = moved(key) { rescans[i].0 = FilePath(bytes: newKey) }
                    }
                    rescans += strayFolders.map { ($0, true) }
                }
            case .rescan(let dir, let recursive):
                rescans.append((dir, recursive))
            case .rootGone:
                // What a missing root's items become is the daemon's choice (`IndexDaemon` keeps
                // them for a grace period, then purges them): nothing to look at on disk here.
                break
            case .rootReturned(let r):
                rescans.append((r, true))    // anything may have changed while it was away
            }
        }

        // Files: look at each again, then extract what exists and drop what does not, each in
        // one go (one read for the stored stamps, one transaction for the deletions).
        var present: [(root: FilePath, facts: FileFacts)] = []
        // Gone as the events told (deleted, moved away): the item and everything below it go.
        var vanished: [ItemIdentifier] = []
        // Not found, and no event said it went: only its own item goes. If it is a folder, the
        // items below it stay for the events still to come to move or delete (a folder looked at
        // in the moment it was renamed away, whose files are renamed again in later batches and
        // whose own moves come last: dropping them all here lost every file the later batches
        // did not name).
        var unexplained: [ItemIdentifier] = []
        var strayed: [FilePath] = []
        var seen = Set<[UInt8]>()
        for key in order where seen.insert(key).inserted {
            guard let path = touched[key], let root = root(of: path) else { continue }
            if isExcluded(path, root: root) { continue }
            if let facts = try? FileFacts.read(path) {
                present.append((root, facts))
            } else if deletedByEvent.contains(key) {
                vanished.append(ItemIdentifier(bytes: key))
            } else {
                switch lookAgain(path) {
                case .found(let facts):
                    present.append((root, facts))
                    continue
                case .strayed:
                    strayed.append(path)
                case .gone:
                    break
                }
                unexplained.append(ItemIdentifier(bytes: key))
            }
        }
        var byDomain: [String: [FileFacts]] = [:]
        var refreshes: [(root: FilePath, facts: FileFacts, stored: StoredStamp?)] = []
        do {
            changes.removed += try store.deleteItems(underEach: vanished)
            if !unexplained.isEmpty {
                let ids = try store.stamps(of: unexplained).values.map(\.id)
                changes.removed += try store.deletedItems(rowIDs: ids)
            }
            let stored = try store.stamps(of: present.map { ItemIdentifier(bytes: $0.facts.pathBytes) })
            for (root, facts) in present {
                if let old = stored[facts.pathBytes], let s = old.stamp, ExtractionVersions.forIndex.isCurrent(extractor: old.extractor, version: old.extractorVersion),
                   s == FileStamp(facts) {
                    continue     // already indexed as it is (e.g. the crawl got there first)
                }
                if metadataOnly.contains(facts.pathBytes) {
                    refreshes.append((root, facts, stored[facts.pathBytes]))
                    continue
                }
                byDomain[IndexUpdater.domainName(root), default: []].append(facts)
            }
        } catch { throw .index(error) }
        // Tags, comment, permissions changed: the text and content attributes stay, unless the
        // content turns out to have changed too (then the file is extracted as usual).
        for (root, facts, stored) in refreshes {
            if try updater.refreshAttributes(facts, stored: stored) {
                changes.updated.append(ItemIdentifier(bytes: facts.pathBytes))
            } else {
                byDomain[IndexUpdater.domainName(root), default: []].append(facts)
            }
        }
        for (domain, files) in byDomain {
            // A file looked at, then gone when it was read, with no event saying it went: its
            // folder was renamed away in between. Read again if it is back; a stray if the folder
            // is still away; at most `readings` times (a folder renamed back and forth all along).
            var toRead = files
            for reading in 1...Self.readings where !toRead.isEmpty {
                beforeReading?()
                let r = try updater.index(toRead, domain: domain)
                changes.updated += r.updatedIdentifiers
                changes.problems += r.problems
                toRead = []
                for ident in r.removedIdentifiers {
                    if !deletedByEvent.contains(ident.bytes) {
                        let path = FilePath(bytes: ident.bytes)
                        switch lookAgain(path) {
                        case .found(let facts) where reading < Self.readings:
                            toRead.append(facts)
                            continue
                        case .found, .strayed: strayed.append(path)
                        case .gone: break
                        }
                    }
                    changes.removed.append(ident)
                }
            }
        }
        strays.add(strayed)

        // Folders to compare with the disk (new folders, overflow, polled folders).
        for (dir, recursive) in Self.coalesce(rescans) {
            guard let root = root(of: dir), !isExcluded(dir, root: root) else { continue }
            let r = try updater.reconcile(directory: dir, recursive: recursive, domain: IndexUpdater.domainName(root))
            changes.updated += r.updatedIdentifiers
            changes.removed += r.removedIdentifiers
            changes.problems += r.problems
        }
        return changes
    }

    private func applyMove(from: FilePath, to: FilePath, isDirectory: Bool, changes: inout Changes,
                           touch: (FilePath) -> Void) throws(UpdateError) {
        let fromRoot = root(of: from), toRoot = root(of: to)
        let toExcluded = toRoot.map { isExcluded(to, root: $0) } ?? true
        do {
            switch (fromRoot, toRoot) {
            case (.some, .some) where !toExcluded:
                // Every item that moved is published under its old and its new identifier (for a
                // folder: everything below it, messages inside files included), so that a live
                // query drops what it showed and finds it again.
                let move = try store.movedItems(from: ItemIdentifier(bytes: from.bytes), to: ItemIdentifier(bytes: to.bytes),
                                                domain: IndexUpdater.domainName(toRoot!))
                changes.removed += move.removed
                changes.updated += move.added
                // A rename changes the ctime: refresh the facts (cheap when unchanged); when it
                // was not indexed (e.g. was excluded), this indexes it now.
                touch(to)
                if isDirectory && move.moved == 0 {
                    let r = try updater.reconcile(directory: to, recursive: true, domain: IndexUpdater.domainName(toRoot!))
                    changes.updated += r.updatedIdentifiers
                    changes.removed += r.removedIdentifiers
                    changes.problems += r.problems
                }
            default:
                if fromRoot != nil {
                    changes.removed += try store.deletedItems(under: ItemIdentifier(bytes: from.bytes))
                }
                if let toRoot, !toExcluded {
                    if isDirectory {
                        let r = try updater.reconcile(directory: to, recursive: true, domain: IndexUpdater.domainName(toRoot))
                        changes.updated += r.updatedIdentifiers
                        changes.removed += r.removedIdentifiers
                        changes.problems += r.problems
                    } else {
                        touch(to)
                    }
                }
            }
        } catch {
            throw .stopped(by: error)
        }
    }

    /// How many times a batch reads a file that its folder's renames keep taking away.
    static let readings = 3

    /// What a path not found, that no event said went, turns out to be.
    enum LookedAgain {
        /// There after all: its folder was away for a moment and is back.
        case found(FileFacts)
        /// Its folder is away too: it may have gone with it, and the folder's move is on its way.
        case strayed
        /// Its folder is there and it is not: deleted or renamed (its events are on their way).
        case gone
    }

    /// Looks at a path not found again, after looking at its folder (in that order: a folder
    /// back in between is seen by the second look at the path).
    func lookAgain(_ path: FilePath) -> LookedAgain {
        let folder = path.removingLastComponent()
        if folder != path, root(of: folder) != nil, (try? FileFacts.read(folder)) == nil { return .strayed }
        if let facts = try? FileFacts.read(path) { return .found(facts) }
        return .gone
    }

    /// Whether a path below `root` is left out by the settings (hidden, excluded globs, or a
    /// folder on the way holding the marker file).
    package func isExcluded(_ path: FilePath, root: FilePath) -> Bool {
        let rules = updater.settings.walkOptions.exclusions
        var current = root
        let rel = path.bytes.dropFirst(root.bytes.count)
        for component in rel.split(separator: UInt8(ascii: "/")) {
            let name = Array(component)
            let child = FilePath(bytes: current.bytes + [UInt8(ascii: "/")] + name)
            let excluded = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { n in
                child.withPlatformString { rules.excludes(name: n.baseAddress!, path: $0) }
            }
            if excluded { return true }
            // A folder (below the root) holding the marker keeps everything inside it out.
            if current != root, current.appending(rules.markerFile).withPlatformString({ access($0, F_OK) }) == 0 {
                return true
            }
            current = child
        }
        return false
    }

    /// Drops rescans covered by a recursive rescan of a folder above them.
    static func coalesce(_ rescans: [(FilePath, Bool)]) -> [(FilePath, Bool)] {
        var out: [(FilePath, Bool)] = []
        for (dir, recursive) in rescans {
            let covered = rescans.contains { other in
                other.1 && other.0 != dir && dir.bytes.starts(with: other.0.bytes + [UInt8(ascii: "/")])
            } || out.contains { $0.0 == dir && ($0.1 || !recursive) }
            if !covered {
                out.removeAll { $0.0 == dir }
                out.append((dir, recursive))
            }
        }
        return out
    }
}
