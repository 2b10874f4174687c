import Attributes
import FoundationEssentials
import GRDB
import SystemPackage
import Glibc

/// What the index calls when items must be rebuilt from the files: Core Spotlight's
/// `CSIndexExtensionRequestHandler`. `fsindex reindex` calls it, and so does the index itself
/// when it needs to (see `IndexStore.maintenanceRequests`). A handler calls the acknowledgement
/// once the work is done and committed.
package protocol IndexRequestHandler: Sendable {
    /// Re-reads every item of every domain from the files.
    func reindexAllSearchableItems(acknowledgementHandler: @escaping @Sendable () -> Void) throws
    /// Re-reads these items from the files (an identifier whose file is gone is deleted).
    func reindexSearchableItems(withIdentifiers identifiers: [ItemIdentifier],
                                acknowledgementHandler: @escaping @Sendable () -> Void) throws
}

/// Why the index asks for a reindex.
package enum MaintenanceRequest: Sendable, Hashable, CustomStringConvertible {
    /// A schema change (or a repaired corruption) needs every item rebuilt.
    case rebuildAll(reason: String)
    /// These items were written by an older extractor, or have expired.
    case reindex([ItemIdentifier], reason: String)

    package var description: String {
        switch self {
        case .rebuildAll(let reason): "reindexing everything: \(reason)"
        case .reindex(let ids, let reason): "reindexing \(ids.count) items: \(reason)"
        }
    }
}

extension IndexStore {
    /// Opens the index; a damaged database file is moved aside (`index.sqlite.damaged-<time>`) and
    /// a fresh one created, and `rebuilt` is true: the caller then reindexes everything, since
    /// the files are the truth. Other errors are thrown.
    ///
    /// `checkIntegrity` also reads every page (`PRAGMA quick_check`: seconds on a large index),
    /// as fsindexd does when it starts; without it, only damage found while opening counts.
    /// `forceRebuild` moves the database aside unconditionally (after a `.corrupt` error met
    /// while working).
    package static func openRecovering(location: IndexLocation, checkIntegrity: Bool = false,
                                      forceRebuild: Bool = false) throws(IndexError) -> (store: IndexStore, rebuilt: Bool) {
        do throws(IndexError) {
            if forceRebuild { throw IndexError.corrupt(path: location.directory.string, detail: "damage found while working") }
            let store = try IndexStore(location: location)
            if checkIntegrity, let problem = store.integrityProblem() {
                throw IndexError.corrupt(path: location.directory.string, detail: problem)
            }
            return (store, false)
        } catch {
            guard case .corrupt = error else { throw error }
            let stamp = Int(Date().timeIntervalSince1970)
            for suffix in ["", "-wal", "-shm"] {
                let from = location.databasePath(suffix: suffix)
                let to = location.directory.appending("index.sqlite.damaged-\(stamp)\(suffix)")
                _ = from.withPlatformString { f in to.withPlatformString { rename(f, $0) } }
            }
            let store = try IndexStore(location: location)
            try store.setMeta("rebuild_required", "the database was damaged (\(error)); it was moved aside")
            return (store, true)
        }
    }

    /// What the index needs done by a request handler: a rebuild after a schema change or a
    /// repair, items written by an extractor older than `extractorVersion`, expired items (which
    /// are purged first: their files, if still there, are indexed again without expiration).
    package func maintenanceRequests(extractorVersions: ExtractorVersions, now: Date = Date()) throws(IndexError) -> [MaintenanceRequest] {
        var out: [MaintenanceRequest] = []
        if let reason = try meta("rebuild_required") {
            out.append(.rebuildAll(reason: reason))
            return out
        }
        let old = try identifiers(staleAgainst: extractorVersions)
        if !old.isEmpty { out.append(.reindex(old, reason: "written by an older extractor")) }
        let expired: [ItemIdentifier] = try read { db in
            try Data.fetchAll(db, sql: "SELECT path FROM items WHERE expiration IS NOT NULL AND expiration <= ?",
                              arguments: [now.timeIntervalSince1970]).map { ItemIdentifier(bytes: Array($0)) }
        }
        if !expired.isEmpty {
            try purgeExpiredItems(now: now)
            out.append(.reindex(expired, reason: "expired"))
        }
        return out
    }

    /// Runs the maintenance requests through `handler` and clears the rebuild flag once it is done.
    package func performMaintenance(extractorVersions: ExtractorVersions, handler: any IndexRequestHandler,
                                   log: (String) -> Void = { _ in }) throws -> [MaintenanceRequest] {
        let requests = try maintenanceRequests(extractorVersions: extractorVersions)
        for r in requests {
            log(r.description)
            switch r {
            case .rebuildAll:
                try handler.reindexAllSearchableItems(acknowledgementHandler: {})
                try setMeta("rebuild_required", nil)
            case .reindex(let ids, _):
                try handler.reindexSearchableItems(withIdentifiers: ids, acknowledgementHandler: {})
            }
        }
        return requests
    }

    package func meta(_ key: String) throws(IndexError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    package func setMeta(_ key: String, _ value: String?) throws(IndexError) {
        try write { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
        }
    }
}
