import Attributes
import Controlling
import FoundationEssentials
import Indexing
import Logging
import Synchronization
import SystemCalls
import SystemPackage

/// Uses: `fsindex used` over the socket, and the desktop's recently-used list. Both go through
/// the single writer like every other change, and both tell live-query subscribers which
/// indexed items changed (their `lastUsedDate` and `useCount` did).
extension IndexDaemon {
    /// Follows the desktop's recently-used list at `file`: reads it once now (through the work
    /// queue) and again whenever it is written. Returns the monitor to stop at exit, or nil when
    /// the list's folder cannot be watched (logged; the rest of the daemon is unaffected).
    package func followRecentlyUsed(file: FilePath) -> RecentlyUsedMonitor? {
        recentlyUsedFile.withLock { $0 = file }
        let monitor: RecentlyUsedMonitor
        do {
            monitor = try RecentlyUsedMonitor(file: file) { [self] in queueRecentlyUsed() }
        } catch {
            logger.notice("not following recently used files: cannot watch \(file.removingLastComponent().string) (\(error)); fsindexd follows \(file.string) once that folder exists and fsindexd is restarted")
            return nil
        }
        logger.info("following recently used files in \(file.string)")
        queueRecentlyUsed()
        return monitor
    }

    private func queueRecentlyUsed() {
        if !recentlyUsedQueued.exchange(true, ordering: .relaxed) { submit(.recentlyUsed) }
    }

    /// Records a use of each path now (`fsindex used` through the socket).
    func recordUses(_ paths: [[UInt8]], title: String?) -> Result<[UsageRecord], WriterError> {
        let now = Date()
        do {
            let records = try store.recordUses(paths.map { ItemUse(identifier: ItemIdentifier(bytes: $0), date: now, title: title) })
            publish(records)
            logger.info("recorded a use of \(records.count) items")
            return .success(records)
        } catch {
            record(error: "a use was not recorded: \(error)")
            return .failure(.notWritten("the use was not recorded", cause: error))
        }
    }

    /// Reads the recently-used list and applies its new visits with their marks, in one
    /// transaction. A list that cannot be read or is malformed changes nothing (logged).
    func applyRecentlyUsed() {
        recentlyUsedQueued.store(false, ordering: .relaxed)
        guard let file = recentlyUsedFile.withLock({ $0 }) else { return }
        let list: RecentlyUsedList
        do {
            list = try RecentlyUsedList(contentsOf: file).resolvingFolders()
        } catch .missing {
            return   // no list yet: nothing was ever opened
        } catch {
            logger.warning("\(file.string): \(error)")
            return
        }
        logger.debug("recently used files read: \(list.bookmarks.count) listed, \(list.skipped) not local files")
        do {
            let marks = try store.feedMarks(RecentlyUsedFeed.name)
            let (uses, newMarks) = RecentlyUsedFeed.uses(in: list, marks: marks, roots: roots.map(\.bytes))
            if uses.isEmpty && newMarks == marks { return }
            let records = try store.recordUses(uses, feed: RecentlyUsedFeed.name, marks: newMarks)
            publish(records)
            logger.info("recently used files: \(uses.count) new visits applied")
        } catch {
            record(error: "recently used files not applied: \(error)")
        }
    }

    private func publish(_ records: [UsageRecord]) {
        let indexed = records.filter(\.indexed).map(\.identifier.bytes)
        guard !indexed.isEmpty, let publish = publisher.withLock({ $0 }) else { return }
        publish(ItemChanges(updated: indexed))
    }
}
