import CSysShims
import SystemCalls
import SystemPackage
import Glibc

/// How the watcher's state adds and removes inotify watches: the kernel in the daemon, a fake in
/// the tests that feed the state synthetic event buffers.
protocol InotifyWatchBackend {
    /// `inotify_add_watch(path, InotifyMask.folder)`.
    mutating func addWatch(_ path: FilePath) -> Result<Int32, Errno>
    /// `inotify_rm_watch(wd)`; its `IN_IGNORED` follows.
    mutating func removeWatch(_ wd: Int32)
}

/// The real backend: one inotify descriptor.
struct KernelWatchBackend: InotifyWatchBackend {
    let fd: Int32
    func addWatch(_ path: FilePath) -> Result<Int32, Errno> {
        SystemCall.inotifyAddWatch(fd, path, mask: InotifyMask.folder)
    }
    func removeWatch(_ wd: Int32) { SystemCall.inotifyRemoveWatch(fd, wd) }
}

/// Delays of the watcher, in nanoseconds.
struct WatchTiming: Sendable, Hashable {
    /// How long an `IN_MOVED_FROM` waits for its `IN_MOVED_TO` before it counts as moved out.
    var moveTimeout: UInt64 = 75_000_000
    /// At most one `.modified` per file per this while it is being written (`IN_MODIFY`).
    var debounce: UInt64 = 1_000_000_000
    /// Events that arrive within this window go out as one batch (the longest an event waits
    /// while more keep coming, as in a burst).
    var batchWindow: UInt64 = 50_000_000
    /// A batch goes out as soon as no event has come for this long: a single save is sent at
    /// once instead of waiting for the whole window.
    var quiet: UInt64 = 4_000_000
    /// A batch goes out at once when it holds this many events.
    var maxBatch: Int = 4096
    /// Between two looks at the polled folders.
    var pollInterval: UInt64 = 30_000_000_000
}

/// Everything the watcher knows, confined to its thread: watch descriptors and their folders,
/// the polled folders, and the events on their way out.
///
/// A key design decision: the state is a plain struct driven by `handle(_:)`, `tick()`,
/// `addRoot` and `takeBatch`, with the clock (`now`) and the watch calls (`Backend`) given from
/// outside, so the tests can run it on synthetic buffers (an overflow record, a move pair split
/// across two reads) without sleeping or a kernel.
struct WatchState<Backend: InotifyWatchBackend> {
    struct Root {
        var path: FilePath
        var options: WalkOptions
        var device: UInt64
    }

    struct Folder: Hashable {
        var path: FilePath
        /// The root whose options apply below this folder.
        var root: FilePath
        /// `path.bytes`, kept because building paths from bytes is the hot path of a burst.
        var bytes: [UInt8]

        init(path: FilePath, root: FilePath) {
            self.path = path
            self.root = root
            self.bytes = path.bytes
        }
    }

    var backend: Backend
    let timing: WatchTiming
    /// A cap on watches below the system's (tests use it to reach the budget's end).
    let watchLimit: Int?
    /// `fs.inotify.max_user_watches`, for the notice.
    let systemWatchLimit: Int?
    /// `CLOCK_MONOTONIC` nanoseconds, set by the driver before each call.
    var now: UInt64 = 0

    var roots: [FilePath: Root] = [:]
    var folders: [Int32: Folder] = [:]
    var watchByPath: [FilePath: Int32] = [:]
    var poller: DirectoryPoller
    var unreachable: Set<FilePath> = []
    /// Looks out for roots whose path stops or starts leading to a folder (the kernel source has
    /// one; the tests on synthetic buffers have none).
    var rootGuard: RootGuard?
    /// Roots gone and awaited, with the options to watch them with when they come back.
    var missing: [FilePath: Root] = [:]
    /// While resynchronizing: the watches met again.
    var confirmed: Set<Int32>?

    // Output (see InotifyEventSource+Output.swift).
    var queue: [Slot] = []
    var windowStart: UInt64?
    /// When the last event was queued (for the quiet period).
    var lastEventAt: UInt64 = 0
    var pendingMoves: [UInt32: PendingMove] = [:]
    /// Files written and not closed yet (path bytes → when to report them).
    var debounces: [[UInt8]: UInt64] = [:]
    var recent: [FilePath: RecentKinds] = [:]

    /// Messages for the user (the watch budget); the driver hands them to `onNotice`.
    var notices: [String] = []
    var budgetExhausted = false
    var noticeGiven = false

    init(backend: Backend, timing: WatchTiming = WatchTiming(), watchLimit: Int? = nil, systemWatchLimit: Int? = nil) {
        self.backend = backend
        self.timing = timing
        self.watchLimit = watchLimit
        self.systemWatchLimit = systemWatchLimit
        self.poller = DirectoryPoller(interval: timing.pollInterval)
    }

    var counts: WatchCounts {
        WatchCounts(watched: folders.count, polled: poller.count, unreachable: unreachable.count)
    }

    // MARK: Roots

    /// Watches `path` and the folders below it; see `FileEventSource.add(root:options:)`.
    mutating func addRoot(_ path: FilePath, options: WalkOptions) -> Result<Void, WatchError> {
        let sx: shim_statx
        switch path.withPlatformString({ SystemCall.statx(at: AT_FDCWD, $0) }) {
        case .success(let s): sx = s
        case .failure(let e) where e == .noSuchFileOrDirectory || e == .notDirectory: return .failure(.rootMissing(path, e))
        case .failure(let e): return .failure(.rootUnreadable(path, e))
        }
        guard FileType(mode: sx.mode) == .directory else { return .failure(.rootNotADirectory(path)) }
        if roots[path] != nil { removeRoot(path) }
        roots[path] = Root(path: path, options: options, device: sx.dev)
        if let error = addTree(path, root: path) {
            removeRoot(path)
            return .failure(.rootUnreadable(path, error))
        }
        missing[path] = nil
        rootGuard?.guardRoot(path, identity: RootGuard.Identity(device: sx.dev, inode: sx.ino))
        checkBudgetNotice()
        return .success(())
    }

    /// Stops watching a root. With `dropQueued`, its events not yet sent are dropped too (a root
    /// removed from the config); a root that went away keeps them (they happened).
    mutating func removeRoot(_ path: FilePath, dropQueued: Bool = true) {
        let wds = Set(folders.filter { $0.value.root == path }.keys)
        for wd in wds { forgetWatch(wd, remove: true) }
        for f in poller.folders.keys where !isInsideOtherRoot(f, than: path) && f.starts(with: path) { poller.remove(f) }
        unreachable = unreachable.filter { !$0.starts(with: path) || isInsideOtherRoot($0, than: path) }
        if dropQueued {
            queue.removeAll { if case .event(_, let wd) = $0 { wds.contains(wd) } else { false } }
        }
        roots[path] = nil
        // A root nested in another one shared its watches: the outer root takes them back.
        if let outer = rootOf(path) { addTree(path, root: outer) }
    }

    private func isInsideOtherRoot(_ p: FilePath, than root: FilePath) -> Bool {
        roots.keys.contains { $0 != root && $0.components.count > root.components.count && p.starts(with: $0) }
    }

    // MARK: Trees of watches

    /// Adds watches (or polling) for `top` and every folder below it that the root's options do
    /// not exclude. Watches are added *before* a folder is listed, so an entry created meanwhile
    /// is either listed or reported. Returns the error only if `top` itself cannot be opened.
    @discardableResult
    mutating func addTree(_ top: FilePath, root rootPath: FilePath) -> Errno? {
        guard let root = roots[rootPath] else { return nil }
        // Below a files-only root nothing is watched: only the root's own folder is.
        if root.options.filesOnly && top != rootPath { return nil }
        let rules = root.options.exclusions
        var stack: [FilePath] = [top]
        while let dir = stack.popLast() {
            let fd: Int32
            switch dir.withPlatformString({ SystemCall.openDirectory(at: AT_FDCWD, $0) }) {
            case .success(let f): fd = f
            case .failure(let e):
                if dir == top && dir == rootPath { return e }
                // Too deep for inotify (a path over PATH_MAX): the crawl indexes it, changes
                // inside are not seen; counted, so `fsindex status` says so.
                if e == .permissionDenied || e == .fileNameTooLong { unreachable.insert(dir) }
                continue   // vanished (ENOENT), replaced by a file or symlink (ENOTDIR, ELOOP)
            }
            guard let d = fdopendir(fd) else { SystemCall.close(fd); continue }
            defer { closedir(d) }
            if dir != rootPath, faccessat(fd, rules.markerFile, F_OK, AT_SYMLINK_NOFOLLOW) == 0 { continue }
            guard watchOrPoll(dir, root: rootPath) else { continue }
            // A files-only root: its folder alone is watched (what its subfolders hold is not indexed).
            if root.options.filesOnly { break }
            while let ent = readdir(d) {
                let type = ent.pointee.d_type
                guard type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) else { continue }
                let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                let childBytes = joined(dir.bytes, name)
                if excluded(name: name, pathBytes: childBytes, rules: rules) { continue }
                let child = FilePath(bytes: childBytes)
                guard case .success(let sx) = withUnsafeBytes(of: ent.pointee.d_name, { raw in
                    raw.withMemoryRebound(to: CChar.self) { SystemCall.statx(at: fd, $0.baseAddress!) }
                }), FileType(mode: sx.mode) == .directory else { continue }
                if root.options.oneFileSystem && sx.dev != root.device { continue }   // a mount point
                stack.append(child)
            }
        }
        return nil
    }

    /// Watches one folder, or polls it when the watch budget is exhausted. Returns false if the
    /// folder cannot be read (its subfolders are not visited).
    private mutating func watchOrPoll(_ dir: FilePath, root: FilePath) -> Bool {
        if watchByPath[dir] == nil, let limit = watchLimit, folders.count >= limit {
            poll(dir)
            return true
        }
        switch backend.addWatch(dir) {
        case .success(let wd):
            if let old = folders[wd], old.path != dir, watchByPath[old.path] == wd { watchByPath[old.path] = nil }
            if let previous = watchByPath[dir], previous != wd { folders[previous] = nil }
            folders[wd] = Folder(path: dir, root: root)
            watchByPath[dir] = wd
            confirmed?.insert(wd)
            poller.remove(dir)
            unreachable.remove(dir)
            return true
        case .failure(let e) where e == .noSpace:
            poll(dir)
            return true
        case .failure(let e) where e == .noSuchFileOrDirectory || e == .notDirectory || e == .tooManySymbolicLinkLevels:
            return false
        case .failure:
            unreachable.insert(dir)
            return false
        }
    }

    private mutating func poll(_ dir: FilePath) {
        budgetExhausted = true
        poller.add(dir, now: now)
    }

    /// Forgets a watch descriptor; with `remove`, also tells the kernel (whose `IN_IGNORED` then
    /// finds nothing to drop).
    mutating func forgetWatch(_ wd: Int32, remove: Bool) {
        guard let folder = folders.removeValue(forKey: wd) else { return }
        if watchByPath[folder.path] == wd { watchByPath[folder.path] = nil }
        if remove { backend.removeWatch(wd) }
    }

    /// Stops watching and polling `top` and everything below it. Returns the watch descriptors
    /// dropped, so events already queued from them can be dropped too.
    @discardableResult
    mutating func unwatchTree(_ top: FilePath) -> Set<Int32> {
        let wds = Set(folders.filter { $0.value.path.starts(with: top) }.keys)
        for wd in wds { forgetWatch(wd, remove: true) }
        poller.removeSubtree(top)
        unreachable = unreachable.filter { !$0.starts(with: top) }
        return wds
    }

    /// Follows a folder renamed from `old` to `new`: watches follow the inode, only the paths the
    /// state knows them by change.
    mutating func rewriteTree(from old: FilePath, to new: FilePath, root: FilePath) {
        let moved = folders.filter { $0.value.path.starts(with: old) }
        for (wd, folder) in moved where watchByPath[folder.path] == wd { watchByPath[folder.path] = nil }
        for (wd, folder) in moved {
            let path = rebase(folder.path, from: old, to: new)
            folders[wd] = Folder(path: path, root: root)
            watchByPath[path] = wd
        }
        poller.rewrite(from: old, to: new)
        unreachable = Set(unreachable.map { $0.starts(with: old) ? rebase($0, from: old, to: new) : $0 })
    }

    /// After the kernel's queue overflowed, the paths the state knows may be stale (a folder
    /// moved and the pair was lost): walk every root again. Adding a watch for an inode already
    /// watched returns its descriptor, so known watches get their current path; descriptors not
    /// met again are dropped.
    mutating func resynchronize() {
        let before = Set(folders.keys)
        confirmed = []
        for rootPath in roots.keys.sorted(by: { $0.components.count < $1.components.count }) {
            unreachable = unreachable.filter { !$0.starts(with: rootPath) }
            addTree(rootPath, root: rootPath)
        }
        // Watches not met again are on folders moved out or deleted.
        for wd in before.subtracting(confirmed ?? []) { forgetWatch(wd, remove: true) }
        confirmed = nil
    }

    // MARK: Names

    /// `dir/name` as bytes. Names from `readdir` and inotify hold no slash and no NUL, and `.`
    /// and `..` are never reported, so this needs no validation (and `FilePath.Component`'s is
    /// costly when thousands of files appear at once).
    func joined(_ dir: [UInt8], _ name: [UInt8]) -> [UInt8] {
        dir.last == 0x2F ? dir + name : dir + [0x2F] + name
    }

    func child(of dir: FilePath, _ name: [UInt8]) -> FilePath {
        FilePath(bytes: joined(dir.bytes, name))
    }

    func excluded(name: [UInt8], pathBytes: [UInt8], rules: ExclusionRules) -> Bool {
        let n = name.map { CChar(bitPattern: $0) } + [0]
        let p = pathBytes.map { CChar(bitPattern: $0) } + [0]
        return n.withUnsafeBufferPointer { n in p.withUnsafeBufferPointer { rules.excludes(name: n.baseAddress!, path: $0.baseAddress!) } }
    }

    /// Whether `bytes` is `prefix` or a path below it.
    func isPath(_ bytes: [UInt8], below prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && bytes.starts(with: prefix)
            && (bytes.count == prefix.count || prefix.last == 0x2F || bytes[prefix.count] == 0x2F)
    }

    // MARK: The watch budget

    /// Says once, when folders first had to be polled, what limit to raise and to what.
    mutating func checkBudgetNotice() {
        guard budgetExhausted, !noticeGiven, poller.count > 0 else { return }
        noticeGiven = true
        let polled = poller.count
        let system = systemWatchLimit.map(String.init) ?? "unknown"
        let base = max(systemWatchLimit ?? 0, folders.count)
        let needed = (base + polled + max(1024, polled / 10) + 1023) / 1024 * 1024
        let seconds = Double(timing.pollInterval) / 1e9
        let every = seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
        let cap = watchLimit.map { "; this watcher's own cap is \($0)" } ?? ""
        notices.append("inotify watches exhausted (fs.inotify.max_user_watches = \(system)\(cap)); "
            + "\(polled) folders are polled every \(every), so changes inside their files are seen late; "
            + "raise it with: sysctl fs.inotify.max_user_watches=\(needed) "
            + "(and in /etc/sysctl.d/90-fsindex.conf to keep it after a reboot)")
    }

    /// `fs.inotify.max_user_watches`, or nil if /proc cannot tell.
    static func readSystemWatchLimit() -> Int? {
        guard case .success(let bytes) = SystemCall.readFile("/proc/sys/fs/inotify/max_user_watches", limit: 32), !bytes.isEmpty else {
            return nil
        }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingWhitespace)
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
