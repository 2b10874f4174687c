import Attributes
import Controlling
import Indexing
import Logging
import Synchronization
import SystemCalls
import SystemPackage
import Updating
import Glibc

extension UpdateError {
    /// The index could not be written because its disk (or file system quota) is full.
    var isDiskFull: Bool {
        if case .index(.diskFull) = self { return true }
        return false
    }
}

/// A full disk under the index (issue 40).
///
/// A key design decision: when a write fails for want of space, the batch is rolled back (the
/// index stays sound and answers queries) and fsindexd stops writing: the batches of events
/// that follow are not applied one by one (each would fail too, and log it), but once space
/// returns every root is compared with the disk again, as at start, so nothing that changed
/// meanwhile is lost, and fsindexd needs no restart. Whether space came back is looked at every
/// `diskFullRetry` on the daemon's clock, with `statvfs` (cheap); only when the free space grew
/// is the reconcile tried, and a reconcile that fills the disk again waits the same way. An
/// idle daemon with room to write arms no timer.
extension IndexDaemon {
    /// How often a daemon waiting for space looks at the free space of the index's disk.
    static let diskFullRetry: Duration = .seconds(10)

    /// Bytes free for us on the file system of the index folder (nil: cannot tell).
    func freeBytes() -> UInt64? {
        var s = statvfs()
        guard statvfs(store.location.directory.string, &s) == 0 else { return nil }
        return UInt64(s.f_bavail) &* UInt64(s.f_frsize)
    }

    /// Whether writing waits for space (events are then left to the reconcile that follows).
    var waitingForSpace: Bool { state.withLock { $0.spaceAwaited != nil } }

    /// A write failed for want of space: from now on nothing is written until space is back.
    /// Said each time (the first failure, and each reconcile that fills the disk again).
    func diskFull(_ error: UpdateError) {
        let free = freeBytes() ?? 0
        let first = state.withLock { s -> Bool in
            defer { s.spaceAwaited = free }
            return s.spaceAwaited == nil
        }
        let what = error.description.split(separator: ";").first.map(String.init) ?? "the disk holding the index is full"
        record(error: "\(what) (\(free / 1024) KiB free): fsindexd writes nothing until space is freed there, then compares every root with the disk again, so no change is lost; queries go on")
        if first { waitForSpace() }
    }

    private func waitForSpace() {
        after(Self.diskFullRetry) { [self] in submit(.retryAfterDiskFull) }
    }

    /// On the clock's tick while waiting for space: when the free space grew, every root is
    /// compared with the disk; else the wait goes on.
    func retryAfterDiskFull() {
        guard let before = state.withLock({ $0.spaceAwaited }) else { return }
        let free = freeBytes() ?? 0
        guard free > before else {
            state.withLock { $0.spaceAwaited = min(before, free) }
            waitForSpace()
            return
        }
        let updater = self.updater
        updater.namesFirst = true
        setStatus(.crawling)
        defer {
            updater.namesFirst = false
            setStatus(state.withLock { $0.paused } ? .paused : .watching)
        }
        do {
            let report = try updater.crawl(roots: indexRoots)
            state.withLock { s in
                s.spaceAwaited = nil
                s.lastError = nil
                s.indexedSinceStart += report.indexed
            }
            logger.notice("space is back on the disk holding \(ByteString.escaped(store.location.directory.bytes)) (\(free / 1024) KiB free): reconciled \(report.indexed) indexed, \(report.unchanged) unchanged, \(report.removed) removed in \(report.seconds) s")
            crawled.withLock { $0 }?()   // summaries and the rest follow, as after any work
        } catch .cancelled {
            return
        } catch where error.isDiskFull {
            state.withLock { $0.spaceAwaited = nil }
            diskFull(error)   // full again: said again, and the wait goes on
        } catch {
            state.withLock { $0.spaceAwaited = nil }
            record(error: error.description)
        }
    }
}
