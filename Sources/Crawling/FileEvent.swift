import MemberwiseInit
import SystemPackage

/// One change seen on disk, in the order it happened. Batches of these flow to the daemon's single
/// writer, which brings the index in step with the disk.
///
/// A key design decision: an event names a path and what happened to it, never the file's new
/// state. The consumer reads the disk when it handles the event, so two events for one file (a
/// folder's `.rescan` and a `.created` inside it) are harmless as long as its updates are
/// idempotent upserts, and a file gone by the time an event is handled is simply deleted.
///
/// For example, `mv draft.txt report.txt` inside a watched folder arrives as:
/// ```swift
/// [.moved(from: "/home/ada/draft.txt", to: "/home/ada/report.txt", isDirectory: false)]
/// ```
package enum FileEvent: Sendable, Hashable {
    /// A file or folder appeared: created, or moved in from outside the watched trees.
    ///
    /// For a folder, its contents are *not* listed as events: the source adds the watches below it
    /// and follows this event with `.rescan(folder, recursive: true)`, and the consumer lists it.
    /// That is the only way not to miss files created between `mkdir` and the watch being added.
    case created(FilePath, isDirectory: Bool)

    /// A file's contents changed: it was written and closed (`IN_CLOSE_WRITE`), or it is still
    /// being written (`IN_MODIFY`, reported at most once a second per file; the final close is
    /// always reported).
    case modified(FilePath)

    /// Permissions, owner, times or extended attributes changed (`IN_ATTRIB`: chmod, chown,
    /// touch, setfattr, `fsindex tag`).
    case attributesChanged(FilePath)

    /// A file or folder went away: deleted, or moved out of the watched trees (an `IN_MOVED_FROM`
    /// whose `IN_MOVED_TO` did not come within about 75 ms). For a folder, everything the index
    /// holds below it went with it.
    case deleted(FilePath, isDirectory: Bool)

    /// A rename within the watched trees (`IN_MOVED_FROM` and `IN_MOVED_TO` paired by cookie),
    /// in one folder or across folders and roots. `mv new existing` arrives as
    /// `.moved(from: new, to: existing)`: the consumer drops what it held for `existing`. For a
    /// folder, the consumer rewrites the paths of everything below it; nothing needs reading.
    case moved(from: FilePath, to: FilePath, isDirectory: Bool)

    /// The consumer must compare this folder (and everything below it, if `recursive`) with the
    /// index, because events may have been missed: after the kernel's queue overflowed
    /// (`IN_Q_OVERFLOW`, recursive, for every root), for a polled folder whose mtime changed (not
    /// recursive), and after a folder was created or moved in (recursive).
    case rescan(FilePath, recursive: Bool)

    /// A root was deleted, moved away, its file system unmounted (`IN_DELETE_SELF`,
    /// `IN_MOVE_SELF`, `IN_UNMOUNT` on the root), or a folder above it was renamed or deleted so
    /// that its path leads nowhere. The source stops watching its folders and waits for it to
    /// come back (see `RootGuard`); what happens to its items meanwhile is the consumer's choice.
    case rootGone(FilePath)

    /// A root that was gone is a folder again (moved back, created again, its parent renamed
    /// back). The source watches it again *before* sending this; the consumer compares the whole
    /// root with the index, since anything may have changed while it was away.
    case rootReturned(FilePath)

    /// The path this event is about (the destination, for a move).
    package var path: FilePath {
        switch self {
        case .created(let p, _), .modified(let p), .attributesChanged(let p), .deleted(let p, _),
             .rescan(let p, _), .rootGone(let p), .rootReturned(let p):
            p
        case .moved(_, let to, _):
            to
        }
    }
}

/// What a `FileEventSource` watches, for `fsindex status`.
@MemberwiseInit
package struct WatchCounts: Sendable, Hashable, Codable {
    /// Folders watched with inotify: their changes are seen at once.
    package var watched: Int = 0
    /// Folders polled because the inotify watch budget (`fs.inotify.max_user_watches`) ran out:
    /// their changes are seen within the poll interval.
    package var polled: Int = 0
    /// Folders that could not be read (permissions): their changes are not seen at all.
    package var unreachable: Int = 0
}

/// Why watching could not start, with what to do about it. The underlying `Errno` is kept.
package enum WatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `inotify_init1` failed (EMFILE: too many inotify instances for this user; ENFILE, ENOMEM).
    case inotifyUnavailable(Errno)
    /// The root does not exist (or a component of its path is missing).
    case rootMissing(FilePath, Errno)
    /// The root exists but is not a folder.
    case rootNotADirectory(FilePath)
    /// The root cannot be read or watched (EACCES, ELOOP, ...).
    case rootUnreadable(FilePath, Errno)
    /// The watcher's thread could not be started (EAGAIN: the process's thread limit).
    case threadUnavailable(Errno)
    /// `stop()` was called (or the stream ended): nothing more can be watched.
    case stopped

    package var description: String {
        switch self {
        case .inotifyUnavailable(let e) where e == .tooManyOpenFiles:
            "cannot start watching: too many inotify instances for this user (\(e.description)); raise it with: sysctl fs.inotify.max_user_instances=512"
        case .inotifyUnavailable(let e):
            "cannot start watching: inotify_init1 failed (\(e.description)); check the open-file limits (ulimit -n, fs.file-max)"
        case .rootMissing(let p, let e):
            "cannot watch \(p): it does not exist (\(e.description)); create it or remove it from the roots in the config"
        case .rootNotADirectory(let p):
            "cannot watch \(p): it is not a folder; list folders as roots"
        case .rootUnreadable(let p, let e):
            "cannot watch \(p): \(e.description); give the daemon's user read and execute permission on it"
        case .threadUnavailable(let e):
            "cannot start the watcher's thread (\(e.description)); check the process limits (ulimit -u, systemd TasksMax=)"
        case .stopped:
            "the watcher was stopped; create a new one to watch again"
        }
    }
}
