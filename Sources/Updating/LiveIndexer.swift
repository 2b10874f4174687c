import Configuration
import Attributes
import Crawling
import ExtractionModel
import FoundationEssentials
import Indexing
import Synchronization
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Applies batches of file-system events to the index: the single writer of `fsindexd`.
///
/// A key design decision: events are hints, the disk is the truth. Every path an event names is
/// looked at again (`statx`) when the batch is applied, so a burst (`tar x`, `rm -rf`,
/// `git checkout`) collapses into the state the files are in *now*: a file created and deleted
/// in the same batch costs nothing, a file written ten times is extracted once. Renames move
/// items with their attributes and text, without extracting anything again; so does a change
/// of metadata alone (`IN_ATTRIB` with the size and mtime unchanged: new tags, a comment, a
/// chmod), which refreshes the item's attributes (`IndexUpdater.refreshAttributes`).
public final class LiveIndexer: Sendable {
    public let updater: IndexUpdater
    public let roots: [FilePath]
    var store: IndexStore { updater.store }
    /// Files an event said were there, not found because their folder was away when they were
    /// looked at (a folder renamed and renamed back while a batch waited: the disk ahead of the
    /// events). The folder's own moves come in a later batch; each takes these along and looks for
    /// them where it lands. At most `maximumStrays`, the oldest dropped (a reconcile finds those).
    private let strays = Mutex<[FilePath]>([])
    static let maximumStrays = 10_000

    public init(updater: IndexUpdater, roots: [FilePath]) {
        self.updater = updater
        self.roots = roots.sorted { $0.bytes.count > $1.bytes.count }   // longest first: nested roots
    }

    /// What one batch changed, for live-query subscribers.
    public struct Changes: Sendable, Hashable {
        public var updated: [ItemIdentifier] = []
        public var removed: [ItemIdentifier] = []
        public var problems = 0
        public var isEmpty: Bool { updated.isEmpty && removed.isEmpty }
    }

    /// The root (and so the domain) a path belongs to, if any.
    public func root(of path: FilePath) -> FilePath? {
        let bytes = path.bytes
        return roots.first { r in
            let rb = r.bytes
            return bytes == rb || (bytes.count > rb.count && bytes.starts(with: rb) && bytes[rb.count] == UInt8(ascii: "/"))
        }
    }

    /// Applies one batch. Index errors (disk full) are thrown; the batch's effects are then
    /// partly applied and the daemon reconciles the roots later.
    public func apply(_ batch: [FileEvent]) throws(UpdateError) -> Changes {
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
                if isDirectory { _ = takeStrays(below: p) }
            case .moved(let from, let to, let isDirectory):
                touchFolder(of: from)
                touchFolder(of: to)
                try applyMove(from: from, to: to, isDirectory: isDirectory, changes: &changes, touch: { touch($0) })
                if isDirectory {
                    // What this batch named below the folder, and what earlier batches missed
                    // there, is looked at where the folder is now.
                    let (fromBytes, toBytes) = (from.bytes, to.bytes)
                    func moved(_ key: [UInt8]) -> [UInt8]? {
                        key.count > fromBytes.count && key.starts(with: fromBytes) && key[fromBytes.count] == UInt8(ascii: "/")
                            ? toBytes + key[fromBytes.count...] : nil
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
                    for stray in takeStrays(below: from) {
                        let now = FilePath(bytes: moved(stray.bytes) ?? stray.bytes)
                        touch(now)
                        // A folder that strayed lost what was under it with it (gone as far as
                        // the index could tell): it is compared with the disk where it is now.
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
        var vanished: [ItemIdentifier] = []
        var strayed: [FilePath] = []
        var seen = Set<[UInt8]>()
        for key in order where seen.insert(key).inserted {
            guard let path = touched[key], let root = root(of: path) else { continue }
            if isExcluded(path, root: root) { continue }
            if let facts = try? FileFacts.read(path) {
                present.append((root, facts))
            } else {
                vanished.append(ItemIdentifier(bytes: key))
                // Not a deletion the events told of, and its folder is gone too: it may have
                // gone with its folder, whose move is still on its way.
                let folder = path.removingLastComponent()
                if !deletedByEvent.contains(key), folder != path, self.root(of: folder) != nil, (try? FileFacts.read(folder)) == nil {
                    strayed.append(path)
                }
            }
        }
        if !strayed.isEmpty {
            strays.withLock { list in
                list.append(contentsOf: strayed)
                if list.count > Self.maximumStrays { list.removeFirst(list.count - Self.maximumStrays) }
            }
        }
        var byDomain: [String: [FileFacts]] = [:]
        var refreshes: [(root: FilePath, facts: FileFacts, stored: StoredStamp?)] = []
        do {
            changes.removed += try store.deleteItems(underEach: vanished)
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
            let r = try updater.index(files, domain: domain)
            changes.updated += r.updatedIdentifiers
            changes.removed += r.removedIdentifiers
            changes.problems += r.problems
        }

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
        } catch let e as UpdateError {
            throw e
        } catch let e as IndexError {
            throw .index(e)
        } catch {
            throw .extraction("\(error)")
        }
    }

    /// Removes and returns the strays at or below `folder`.
    private func takeStrays(below folder: FilePath) -> [FilePath] {
        let prefix = folder.bytes
        return strays.withLock { list in
            guard !list.isEmpty else { return [] }
            var taken: [FilePath] = []
            list.removeAll { stray in
                let b = stray.bytes
                let below = b.count > prefix.count && b.starts(with: prefix) && b[prefix.count] == UInt8(ascii: "/")
                if below { taken.append(stray) }
                return below
            }
            return taken
        }
    }

    /// Whether a path below `root` is left out by the settings (hidden, excluded globs, or a
    /// folder on the way holding the marker file).
    public func isExcluded(_ path: FilePath, root: FilePath) -> Bool {
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
