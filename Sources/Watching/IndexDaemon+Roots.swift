import Attributes
import Configuration
import Controlling
import Crawling
import Dispatch
import Indexing
import Logging
import Synchronization
import SystemCalls
import SystemPackage
import Updating

/// What the daemon knows about a root whose folder is gone.
struct MissingRootState: Sendable {
    var since: DispatchTime
    var generation: Int
    /// Seconds its items are kept (the setting when it went).
    var grace: Int
    var purged = false
}

/// Roots that disappear and come back (issue 11: a root moved away and back used to empty the
/// index for good).
///
/// A key design decision: a missing root keeps its items for `missing_root_grace` seconds
/// (300 by default), then loses them; the source keeps watching for it either way, and when it
/// is back it is compared with the index like at start. Keeping them makes the common cases free:
/// a sync tool or a restore that moves a folder away and back, `mv` by mistake and back, an
/// unmounted disk plugged in again; the reconcile then finds every file unchanged instead of
/// extracting the whole tree again. Meanwhile a search may still name those files, which costs
/// nothing: the query pipeline checks every result on disk and hides (and drops) what is gone.
/// Purging after the grace period keeps the index in step with the disk when the root is really
/// gone. 0 purges at once.
extension IndexDaemon {
    /// Notes the roots that went or came back in this batch, in order.
    func noteRootEvents(_ batch: [FileEvent]) {
        for event in batch {
            switch event {
            case .rootGone(let root): rootWentMissing(root)
            case .rootReturned(let root): rootCameBack(root)
            default: continue
            }
        }
    }

    private func rootWentMissing(_ root: FilePath) {
        let (generation, grace) = state.withLock { s -> (Int, Int) in
            s.missingGeneration += 1
            let grace = s.settings.daemon.missingRootGrace
            s.missing[root] = MissingRootState(since: .now(), generation: s.missingGeneration, grace: grace)
            return (s.missingGeneration, grace)
        }
        logger.warning("root \(ByteString.escaped(root.bytes)) is gone (moved away, deleted, or a folder above it renamed); watching for it to come back; its items are kept for \(grace) s")
        if grace == 0 {
            purgeMissing(root, generation: generation)
            return
        }
        after(.seconds(grace)) { [self] in
            submit(.purgeMissing(root, generation: generation))
        }
    }

    private func rootCameBack(_ root: FilePath) {
        guard let was = state.withLock({ $0.missing.removeValue(forKey: root) }) else { return }
        logger.notice("root \(ByteString.escaped(root.bytes)) is back after \(Self.seconds(since: was.since)) s; watching it again and comparing it with the index")
    }

    /// The grace period of a missing root ended: its items go (unless it came back, or went again
    /// since, which `generation` tells).
    func purgeMissing(_ root: FilePath, generation: Int) {
        let due = state.withLock { s in
            guard let m = s.missing[root], m.generation == generation, !m.purged else { return false }
            s.missing[root]?.purged = true
            return true
        }
        guard due else { return }
        do {
            let removed = try store.deletedItems(under: ItemIdentifier(bytes: root.bytes))
            logger.notice("root \(ByteString.escaped(root.bytes)) still missing: its \(removed.count) items were removed; they are indexed again if it comes back")
            let publish = publisher.withLock { $0 }
            publish?(ItemChanges(updated: [], removed: removed.map(\.bytes)))
        } catch {
            record(error: error.description)
        }
    }

    /// The missing roots for `fsindex status`.
    func missingRoots(_ s: State) -> [MissingRoot] {
        s.missing.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map { root, m in
            let gone = Self.seconds(since: m.since)
            return MissingRoot(path: root.bytes, missingSeconds: gone,
                               itemsKeptForSeconds: m.purged ? nil : max(0, Double(m.grace) - gone))
        }
    }

    static func seconds(since t: DispatchTime) -> Double {
        (Double(DispatchTime.now().uptimeNanoseconds - t.uptimeNanoseconds) / 1e8).rounded() / 10
    }
}
