import CSysShims
import SystemCalls
import SystemPackage
import Glibc

/// Notices when a root's path stops leading to the root's folder, and when it leads to a folder
/// again: a root moved away and back (a restore, a sync tool, `mv`), deleted and created again,
/// or a folder above it renamed.
///
/// A key design decision: a second inotify instance watches every *ancestor* of every root
/// (from `/` down to the root's parent) for entries created, deleted or moved, and for the
/// ancestors themselves being moved or deleted. The folder watches cannot tell any of this: a
/// watch follows its inode, so a root whose parent is renamed keeps reporting events under a
/// path that no longer exists, and a deleted root has no watch left to say it is back. A separate
/// instance keeps these watches apart from the folder watches (the same inode watched twice in
/// one instance would share one descriptor and one mask). Only events naming a component on the
/// way to a root count; then each root's path is looked at again (`statx`) and compared with the
/// folder it was (device and inode). Nothing runs on a timer: a missing root costs no more than
/// a present one.
///
/// For example, with the root `/home/ada/Documents`, the ancestors `/`, `/home` and `/home/ada`
/// are watched; `mv /home/ada /home/ada.old` makes `/home` report `IN_MOVED_FROM ada`, the root's
/// path now fails, and `check()` returns `.gone`; `mv /home/ada.old /home/ada` makes it `.back`.
///
/// Confined to the watcher's thread, like `WatchState`.
struct RootGuard {
    /// The folder a root is: what tells "moved back" from "something else is there now".
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// What a check found about one root.
    enum Finding: Hashable {
        /// Its path no longer leads to its folder.
        case gone(FilePath)
        /// Its path leads to a folder again (the same one or a new one).
        case back(FilePath)
        /// A folder above it was moved or deleted and it is still (or again) where it was:
        /// events may have been reported under paths that did not exist meanwhile.
        case touched(FilePath)
    }

    static let mask = UInt32(bitPattern: IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF
        | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    let fd: Int32
    /// Every guarded root: the folder it is, or nil while it is missing.
    private(set) var roots: [FilePath: Identity?] = [:]
    private var ancestors: [Int32: FilePath] = [:]
    private var watchByPath: [FilePath: Int32] = [:]
    /// Roots below an ancestor that was touched since the last check.
    private var touched: Set<FilePath> = []
    /// The folder each root was when it was last there: what tells its file system unmounted
    /// (the bare mount point showing through) from the root moved or made again.
    private var lastSeen: [FilePath: Identity] = [:]

    init(fd: Int32) { self.fd = fd }

    /// The roots whose path leads nowhere now.
    var missing: [FilePath] { roots.compactMap { $0.value == nil ? $0.key : nil } }

    /// Starts guarding a root that is the folder `identity`.
    mutating func guardRoot(_ root: FilePath, identity: Identity) {
        roots[root] = .some(identity)
        lastSeen[root] = identity
        rearm()
    }

    /// The root went away (its own watch said so): wait for it to come back.
    mutating func markMissing(_ root: FilePath) {
        guard roots[root] != nil else { return }
        roots[root] = .some(nil)
        rearm()
    }

    /// Stops guarding a root (removed from the configuration).
    mutating func forget(_ root: FilePath) {
        roots[root] = nil
        lastSeen[root] = nil
        touched.remove(root)
        rearm()
    }

    /// Reads what the kernel queued; true when something may concern a root (then `check()`).
    mutating func drain() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            guard case .success(let n) = buffer.withUnsafeMutableBytes({ SystemCall.read(fd, into: $0) }), n > 0 else { break }
            let events = buffer.withUnsafeBytes { RawInotifyEvent.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for e in events {
                if e.has(IN_Q_OVERFLOW) {
                    touched.formUnion(roots.keys)
                    relevant = true
                    continue
                }
                guard let folder = ancestors[e.wd] else { continue }
                if e.has(IN_IGNORED) {
                    ancestors[e.wd] = nil
                    if watchByPath[folder] == e.wd { watchByPath[folder] = nil }
                }
                let named = e.name.isEmpty ? folder.bytes : joined(folder.bytes, e.name)
                let below = roots.keys.filter { isPath($0.bytes, atOrBelow: named) }
                guard !below.isEmpty else { continue }
                // A watched ancestor moved or went: its watch follows the old inode, so it is
                // dropped, and `rearm` watches whatever is at that path next.
                if e.name.isEmpty ? (e.has(IN_MOVE_SELF) || e.has(IN_DELETE_SELF)) : (e.has(IN_MOVED_FROM) || e.has(IN_DELETE)) {
                    unwatch(FilePath(bytes: named))
                }
                relevant = true
                // The root's own entry in its parent is the folder watches' business.
                touched.formUnion(below.filter { $0.bytes != named })
            }
        }
        return relevant
    }

    /// Looks at every root's path again, after the watches on the way to each are in place (so a
    /// folder created meanwhile is either seen here or reported later).
    mutating func check() -> [Finding] {
        rearm()
        var findings: [Finding] = []
        for (root, identity) in roots.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            let now = Self.identity(of: root)
            switch (identity, now) {
            case (.some(let was), .some(let is_)) where was == is_:
                if touched.contains(root) { findings.append(.touched(root)) }
            case (.some, .some(let is_)) where showsBareMountPoint(root, is_):
                roots[root] = .some(nil)      // its file system was unmounted: gone, not back
                findings.append(.gone(root))
            case (.some, .some(let is_)):
                roots[root] = .some(is_)      // another folder in its place: gone, and back
                lastSeen[root] = is_
                findings += [.gone(root), .back(root)]
            case (.some, nil):
                roots[root] = .some(nil)
                findings.append(.gone(root))
            case (nil, .some(let is_)) where showsBareMountPoint(root, is_):
                break                         // still unmounted
            case (nil, .some(let is_)):
                roots[root] = .some(is_)
                lastSeen[root] = is_
                findings.append(.back(root))
            case (nil, nil):
                break
            }
        }
        touched = []
        rearm()
        return findings
    }

    /// Whether the root's path shows the folder its file system was mounted on rather than the
    /// root: the root was on another file system than its parent (a mount point: a disk, an
    /// image, a share) and the folder there now is on the parent's. The root's file system was
    /// unmounted, and it is awaited as missing, its items kept, until it is mounted again.
    /// Taken for the root come back, the empty mount point was compared with the index and
    /// every item of the root removed (a volume's own index emptied as its disk was unplugged).
    private func showsBareMountPoint(_ root: FilePath, _ now: Identity) -> Bool {
        guard let last = lastSeen[root], last.device != now.device,
              let parent = Self.identity(of: root.removingLastComponent()) else { return false }
        return parent.device != last.device && parent.device == now.device
    }

    /// The folder at `path` now, or nil if there is none (missing, a file, unreadable).
    static func identity(of path: FilePath) -> Identity? {
        guard case .success(let sx) = path.withPlatformString({ SystemCall.statx(at: AT_FDCWD, $0) }),
              FileType(mode: sx.mode) == .directory else { return nil }
        return Identity(device: sx.dev, inode: sx.ino)
    }

    /// Watches exactly the ancestors of the guarded roots that exist now.
    private mutating func rearm() {
        var wanted = Set<FilePath>()
        for root in roots.keys {
            var p = root.removingLastComponent()
            while true {
                wanted.insert(p)
                let up = p.removingLastComponent()
                if up == p || up.isEmpty { break }
                p = up
            }
        }
        for (path, wd) in watchByPath where !wanted.contains(path) {
            inotify_rm_watch(fd, wd)
            watchByPath[path] = nil
            ancestors[wd] = nil
        }
        for path in wanted where watchByPath[path] == nil {
            guard case .success(let wd) = SystemCall.inotifyAddWatch(fd, path, mask: Self.mask) else { continue }
            if let old = ancestors[wd], old != path, watchByPath[old] == wd { watchByPath[old] = nil }
            ancestors[wd] = path
            watchByPath[path] = wd
        }
    }

    private mutating func unwatch(_ path: FilePath) {
        guard let wd = watchByPath.removeValue(forKey: path) else { return }
        ancestors[wd] = nil
        inotify_rm_watch(fd, wd)
    }

    private func joined(_ dir: [UInt8], _ name: [UInt8]) -> [UInt8] {
        dir.last == 0x2F ? dir + name : dir + [0x2F] + name
    }

    private func isPath(_ bytes: [UInt8], atOrBelow prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && bytes.starts(with: prefix)
            && (bytes.count == prefix.count || prefix.last == 0x2F || bytes[prefix.count] == 0x2F)
    }
}
