import Crawling
import SystemCalls
import SystemPackage
import Glibc

/// Opens the regular file the crawl saw, for reading only, and checks it is still that file.
///
/// A key design decision: the *parent* opens every file a worker extracts and passes the
/// descriptor (SCM_RIGHTS). The worker is confined by Landlock to read-only library data and,
/// when started by root, runs as `nobody`, so it could not open the file by its name; and a file
/// only its owner can read is still extracted. So this lives in the parser-free model, shared by
/// the parent (`ExtractionWorker`) and in-process extraction (`ExtractionContext`).
///
/// For example:
/// ```swift
/// let (fd, size) = try CrawledFile.open(facts)   // O_NOFOLLOW: a symlink that took its place fails
/// defer { close(fd) }
/// ```
package enum CrawledFile {
    /// `O_NOATIME` (not exported by the Glibc module): 01000000 on x86-64 and arm64.
    static let openNoATime: Int32 = 0o1000000

    /// Opens `facts.path` read-only, never following a final symlink, never blocking on a FIFO
    /// that took the file's place, without updating its access time where we may. Returns the
    /// descriptor (close-on-exec; the caller closes it) and the size `fstat` saw.
    package static func open(_ facts: FileFacts) throws(ExtractionError) -> (descriptor: Int32, size: Int64) {
        let base = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        var opened = SystemCall.open(facts.path, base | openNoATime)
        if case .failure(.notPermitted) = opened { opened = SystemCall.open(facts.path, base) }   // O_NOATIME needs ownership
        let fd: Int32
        switch opened {
        case .success(let opened): fd = opened
        case .failure(.tooManySymbolicLinkLevels): throw .changedDuringRead   // a symlink took the file's place
        case .failure(let e): throw unreadable(e.rawValue)
        }
        do throws(ExtractionError) {
            return (fd, try check(fd, against: facts))
        } catch {
            SystemCall.close(fd)
            throw error
        }
    }

    /// Checks that the open `descriptor` is the regular file the crawl saw (same device and
    /// inode) and returns its size now.
    package static func check(_ descriptor: Int32, against facts: FileFacts) throws(ExtractionError) -> Int64 {
        let now: FileFacts
        do { now = try FileFacts.read(descriptor: FileDescriptor(rawValue: descriptor), path: facts.path) } catch {
            throw unreadable(error.rawValue)
        }
        guard now.type == .regular, now.inode == facts.inode, now.device == facts.device else {
            throw .changedDuringRead
        }
        return now.size
    }

    /// The error for a file that cannot be read, with what the user can do about it.
    package static func unreadable(_ e: Int32) -> ExtractionError {
        let reason = String(cString: strerror(e))
        let advice = switch e {
        case EACCES, EPERM: "give the indexing user read permission on the file, or exclude it from the index"
        case ENOENT, ENOTDIR: "it was deleted or renamed after the crawl; the next crawl drops or re-adds it"
        case EIO: "the storage reported an I/O error; check the disk (dmesg) and the file system"
        case EMFILE, ENFILE: "too many open files; raise the open-file limit (ulimit -n)"
        default: "check the file and try again"
        }
        return .unreadable(errno: e, message: "\(reason.lowercased()); \(advice)")
    }

}
