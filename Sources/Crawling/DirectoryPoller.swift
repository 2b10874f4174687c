import CSysShims
import SystemCalls
import SystemPackage
import Glibc

/// Folders watched by looking at them: the fallback when the inotify watch budget
/// (`fs.inotify.max_user_watches`) is exhausted.
///
/// Every `interval` each folder is `statx`ed; a folder whose mtime, ctime or inode changed had an
/// entry created, deleted or renamed in it, and is reported so the consumer compares it with the
/// index (`.rescan(folder, recursive: false)`). A change *inside* a file (a write) does not change
/// its folder's mtime, so a polled folder's edited files are only seen at the next full crawl:
/// raising the limit is the real remedy, which is why the watcher says how.
///
/// The cost is one `statx` per polled folder per interval (about 1 ms for a thousand folders on a
/// warm cache); nothing runs while no folder is polled.
struct DirectoryPoller {
    /// What tells that a folder's entries changed.
    struct Stamp: Hashable {
        var modificationNanos: Int64
        var changeNanos: Int64
        var inode: UInt64
    }

    /// What one round of polling found.
    enum Finding: Hashable {
        /// The folder's entries changed since the last look.
        case changed(FilePath)
        /// The folder is gone (or is no longer a folder); it is no longer polled.
        case gone(FilePath)
    }

    /// Nanoseconds between two looks.
    let interval: UInt64
    private(set) var folders: [FilePath: Stamp] = [:]
    /// When the next look is due (`CLOCK_MONOTONIC` nanoseconds); nil when nothing is polled.
    private(set) var nextDue: UInt64?

    init(interval: UInt64) {
        self.interval = max(interval, 1_000_000)
    }

    var count: Int { folders.count }

    func contains(_ folder: FilePath) -> Bool { folders[folder] != nil }

    /// Starts polling `folder`, remembering how it looks now.
    mutating func add(_ folder: FilePath, now: UInt64) {
        // A folder unreadable already is reported gone at the first look.
        folders[folder] = Self.stamp(of: folder) ?? Stamp(modificationNanos: 0, changeNanos: 0, inode: 0)
        if nextDue == nil { nextDue = now + interval }
    }

    mutating func remove(_ folder: FilePath) {
        folders[folder] = nil
        if folders.isEmpty { nextDue = nil }
    }

    /// Stops polling `folder` and every folder below it; returns them.
    @discardableResult
    mutating func removeSubtree(_ folder: FilePath) -> [FilePath] {
        let gone = folders.keys.filter { $0.starts(with: folder) }
        for f in gone { folders[f] = nil }
        if folders.isEmpty { nextDue = nil }
        return gone
    }

    /// Follows a folder renamed from `old` to `new`: the folders below it keep being polled under
    /// their new paths.
    mutating func rewrite(from old: FilePath, to new: FilePath) {
        for f in folders.keys where f.starts(with: old) {
            let stamp = folders.removeValue(forKey: f)!
            folders[rebase(f, from: old, to: new)] = stamp
        }
    }

    /// Looks at every folder if a look is due, and reports those that changed or went away.
    mutating func check(now: UInt64) -> [Finding] {
        guard let due = nextDue, now >= due else { return [] }
        var findings: [Finding] = []
        for (folder, old) in folders {
            guard let new = Self.stamp(of: folder) else {
                folders[folder] = nil
                findings.append(.gone(folder))
                continue
            }
            if new != old {
                folders[folder] = new
                findings.append(.changed(folder))
            }
        }
        nextDue = folders.isEmpty ? nil : now + interval
        return findings
    }

    /// The folder's stamp, or nil if it is not a readable folder any more.
    static func stamp(of folder: FilePath) -> Stamp? {
        guard case .success(let sx) = folder.withPlatformString({ SystemCall.statx(at: AT_FDCWD, $0) }),
              FileType(mode: sx.mode) == .directory else { return nil }
        return Stamp(modificationNanos: sx.mtime_ns, changeNanos: sx.ctime_ns, inode: sx.ino)
    }
}

/// `path` with its leading `old` replaced by `new` (`path` must start with `old`).
func rebase(_ path: FilePath, from old: FilePath, to new: FilePath) -> FilePath {
    let suffix = path.bytes.dropFirst(old.bytes.count)
    return FilePath(bytes: new.bytes + suffix)
}
