import CSysShims
import SystemCalls
import SystemPackage
import Glibc

/// Turning inotify records into `FileEvent`s: moves paired by cookie, writes debounced, new
/// folders watched and rescanned, the queue's overflow turned into rescans.
extension WatchState {
    /// Handles the records of one `read(2)`, in order.
    mutating func handle(_ events: [RawInotifyEvent]) {
        for e in events { handle(e) }
        checkBudgetNotice()
    }

    mutating func handle(_ e: RawInotifyEvent) {
        if e.has(IN_Q_OVERFLOW) { overflowed(); return }
        // A watch already dropped: its folder was deleted or moved out meanwhile. Nothing to say.
        guard let folder = folders[e.wd] else { return }
        if e.has(IN_IGNORED) {
            forgetWatch(e.wd, remove: false)
            if folder.path == folder.root, roots[folder.root] != nil { rootGone(folder.root) }
            return
        }
        guard let root = roots[folder.root] else { return }
        if e.name.isEmpty {
            // About the watched folder itself; its parent reports the rest.
            guard folder.path == folder.root else { return }
            if e.has(IN_DELETE_SELF) || e.has(IN_MOVE_SELF) || e.has(IN_UNMOUNT) {
                rootGone(folder.root)
            } else if e.has(IN_ATTRIB) {
                emit(.attributesChanged(folder.root), wd: e.wd)
            }
            return
        }
        let pathBytes = joined(folder.bytes, e.name)
        let isDirectory = e.has(IN_ISDIR)
        // A folder in a files-only root is not indexed: nothing about it is news. A folder moved
        // out to here ends as a deletion (its move waits in vain); one that is a root of its own
        // reports through its own watch.
        if isDirectory && root.options.filesOnly { return }
        let rules = root.options.exclusions
        if !isDirectory, folder.path != folder.root, e.has(IN_CREATE) || e.has(IN_MOVED_TO),
           e.name == Array(rules.markerFile.utf8) {
            markerAppeared(in: folder.path)
            return
        }
        if excluded(name: e.name, pathBytes: pathBytes, rules: rules) { return }
        if e.has(IN_MODIFY) && !isDirectory {
            // Reported when the debounce ends, unless IN_CLOSE_WRITE comes first.
            if debounces[pathBytes] == nil { debounces[pathBytes] = now + timing.debounce }
            return
        }
        let path = FilePath(bytes: pathBytes)

        if e.has(IN_CREATE) {
            appeared(path, isDirectory: isDirectory, root: folder.root, wd: e.wd)
        } else if e.has(IN_MOVED_FROM) {
            movedFrom(path, isDirectory: isDirectory, cookie: e.cookie, wd: e.wd)
        } else if e.has(IN_MOVED_TO) {
            movedTo(path, isDirectory: isDirectory, cookie: e.cookie, root: folder.root, wd: e.wd)
        } else if e.has(IN_DELETE) {
            dropDebounces(under: path)
            emit(.deleted(path, isDirectory: isDirectory), wd: e.wd)
            // A deleted folder's own watch goes with its IN_IGNORED; polled folders go now.
            if isDirectory { poller.removeSubtree(path); unreachable = unreachable.filter { !$0.starts(with: path) } }
        } else if e.has(IN_CLOSE_WRITE) {
            debounces[pathBytes] = nil
            emit(.modified(path), wd: e.wd)
        } else if e.has(IN_ATTRIB) {
            emit(.attributesChanged(path), wd: e.wd)
        }
    }

    /// Runs what is due: pending moves become deletions, debounced writes are reported, polled
    /// folders are looked at.
    mutating func tick() {
        for (cookie, move) in pendingMoves where move.deadline <= now {
            pendingMoves[cookie] = nil
            var dropped: Set<Int32> = []
            if move.isDirectory {
                dropped = unwatchTree(move.path)
                dropDebounces(under: move.path)
            }
            resolve(cookie, as: .deleted(move.path, isDirectory: move.isDirectory), wd: move.wd)
            // Events from the moved-out folders that waited behind the move are not about our trees.
            if !dropped.isEmpty {
                queue.removeAll { if case .event(_, let wd) = $0 { dropped.contains(wd) } else { false } }
            }
        }
        for (bytes, deadline) in debounces where deadline <= now {
            debounces[bytes] = nil
            let path = FilePath(bytes: bytes)
            emit(.modified(path), wd: watchByPath[path.removingLastComponent()] ?? -1)
        }
        if poller.count > 0 {
            promotePolledFolders()
            for finding in poller.check(now: now) {
                switch finding {
                case .changed(let folder):
                    emit(.rescan(folder, recursive: false), wd: -1)
                    discoverSubfolders(of: folder)
                case .gone(let folder):
                    if roots[folder] != nil { rootGone(folder) }   // otherwise its parent tells
                }
            }
        }
        checkBudgetNotice()
    }

    // MARK: Creation

    private mutating func appeared(_ path: FilePath, isDirectory: Bool, root: FilePath, wd: Int32) {
        emit(.created(path, isDirectory: isDirectory), wd: wd)
        guard isDirectory else { return }
        // Entries made before the watch existed are only found by listing: the rescan says so.
        addTree(path, root: root)
        emit(.rescan(path, recursive: true), wd: wd)
    }

    /// A `.noindex` file appeared: the folder's contents leave the index and are not watched.
    private mutating func markerAppeared(in folder: FilePath) {
        unwatchTree(folder)
        dropDebounces(under: folder)
        emit(.rescan(folder, recursive: true), wd: -1)
    }

    // MARK: Moves

    private mutating func movedFrom(_ path: FilePath, isDirectory: Bool, cookie: UInt32, wd: Int32) {
        debounces[path.bytes] = nil
        recent[path] = nil
        // A later event must not overtake this one: it waits behind the placeholder.
        pendingMoves[cookie] = PendingMove(path: path, isDirectory: isDirectory, deadline: now + timing.moveTimeout, wd: wd)
        if windowStart == nil { windowStart = now }
        lastEventAt = now
        queue.append(.pendingMove(cookie))
    }

    private mutating func movedTo(_ path: FilePath, isDirectory: Bool, cookie: UInt32, root: FilePath, wd: Int32) {
        guard let from = pendingMoves.removeValue(forKey: cookie) else {
            appeared(path, isDirectory: isDirectory, root: root, wd: wd)   // moved in from outside
            return
        }
        recent[path] = nil
        resolve(cookie, as: .moved(from: from.path, to: path, isDirectory: isDirectory), wd: wd)
        guard isDirectory else { return }
        let oldRoot = watchByPath[from.path].flatMap { folders[$0]?.root }
        rewriteTree(from: from.path, to: path, root: root)
        let (fromBytes, toBytes) = (from.path.bytes, path.bytes)
        for (p, t) in debounces where isPath(p, below: fromBytes) {
            debounces[p] = nil
            debounces[toBytes + p.dropFirst(fromBytes.count)] = t
        }
        if let oldRoot, oldRoot != root, roots[oldRoot]?.options != roots[root]?.options {
            // Another root's exclusions apply now: watch what they allow and let the consumer compare.
            unwatchTree(path)
            addTree(path, root: root)
            emit(.rescan(path, recursive: true), wd: wd)
        }
    }

    /// Puts the event in the pending move's place in the queue.
    private mutating func resolve(_ cookie: UInt32, as event: FileEvent, wd: Int32) {
        guard let i = queue.firstIndex(where: { if case .pendingMove(cookie) = $0 { true } else { false } }) else { return }
        queue[i] = .event(event, wd: wd)
    }

    // MARK: Overflow, roots, polling

    /// The kernel's queue (`fs.inotify.max_queued_events`) overflowed: events were lost. Moves
    /// waiting for their pair count as deletions, the watches are checked again, and every root
    /// is rescanned.
    mutating func overflowed() {
        for (cookie, move) in pendingMoves {
            resolve(cookie, as: .deleted(move.path, isDirectory: move.isDirectory), wd: move.wd)
        }
        pendingMoves = [:]
        resynchronize()
        for root in roots.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            emit(.rescan(root, recursive: true), wd: -1)
        }
    }

    /// Polled folders get a watch again when the budget allows (watches were released).
    private mutating func promotePolledFolders() {
        if let limit = watchLimit, folders.count >= limit { return }
        for (folder, stamp) in poller.folders {
            if let limit = watchLimit, folders.count >= limit { return }
            guard case .success(let wd) = backend.addWatch(folder) else { return }   // still ENOSPC: try later
            guard let root = rootOf(folder) else { backend.removeWatch(wd); poller.remove(folder); continue }
            folders[wd] = Folder(path: folder, root: root)
            watchByPath[folder] = wd
            poller.remove(folder)
            if DirectoryPoller.stamp(of: folder) != stamp { emit(.rescan(folder, recursive: false), wd: -1) }
        }
    }

    /// Subfolders that appeared in a polled folder get watched (or polled) and rescanned.
    private mutating func discoverSubfolders(of folder: FilePath) {
        guard let rootPath = rootOf(folder), let root = roots[rootPath], !root.options.filesOnly else { return }
        guard case .success(let fd) = folder.withPlatformString({ SystemCall.openDirectory(at: AT_FDCWD, $0) }) else { return }
        guard let d = fdopendir(fd) else { SystemCall.close(fd); return }
        defer { closedir(d) }
        var found: [FilePath] = []
        while let ent = readdir(d) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name != [0x2E], name != [0x2E, 0x2E] else { continue }
            let sub = child(of: folder, name)
            guard watchByPath[sub] == nil, !poller.contains(sub), !unreachable.contains(sub),
                  !excluded(name: name, pathBytes: sub.bytes, rules: root.options.exclusions),
                  DirectoryPoller.stamp(of: sub) != nil else { continue }
            found.append(sub)
        }
        for sub in found {
            addTree(sub, root: rootPath)
            emit(.rescan(sub, recursive: true), wd: -1)
        }
    }

    /// The innermost root holding `path`.
    func rootOf(_ path: FilePath) -> FilePath? {
        roots.keys.filter { path.starts(with: $0) }.max { $0.components.count < $1.components.count }
    }

    private mutating func dropDebounces(under path: FilePath) {
        guard !debounces.isEmpty else { return }
        let prefix = path.bytes
        for p in debounces.keys where isPath(p, below: prefix) { debounces[p] = nil }
    }
}
