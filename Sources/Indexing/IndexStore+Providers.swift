import Attributes
import FoundationEssentials
import GRDB

/// A reindex the index asked of an app's command and that is not acknowledged yet.
package struct ProviderRequest: Sendable, Hashable, Codable {
    package var domain: String
    /// The identifiers to donate again; nil: all of the domain's items.
    package var ids: [String]?
    package var attempts: Int
    package var lastError: String?
    package var lastAttempt: Date?
    package var nextAttempt: Date
}

extension IndexStore {
    /// Asks for `domain`'s items again (`ids` nil: all), merged with what is already asked: all
    /// wins over a list, lists are joined. Due at once.
    package func requestReindex(domain: String, ids: [String]?, now: Date = Date()) throws(IndexError) {
        try write { db in
            let existing = try Row.fetchOne(db, sql: "SELECT ids FROM provider_requests WHERE domain = ?", arguments: [domain])
            var merged: [String]? = ids
            if let existing {
                let old: String? = existing["ids"]
                if let old, let ids, let list = try? JSONDecoder().decode([String].self, from: Data(old.utf8)) {
                    merged = Array(Set(list + ids)).sorted()
                } else {
                    merged = nil
                }
            }
            let text = merged.map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data("[]".utf8), as: UTF8.self) }
            try db.execute(sql: """
                INSERT INTO provider_requests(domain, ids, next_attempt) VALUES (?, ?, ?)
                ON CONFLICT(domain) DO UPDATE SET ids = excluded.ids, next_attempt = min(next_attempt, excluded.next_attempt)
                """, arguments: [domain, text, now.timeIntervalSince1970])
        }
    }

    /// Every open request, the soonest first.
    package func providerRequests() throws(IndexError) -> [ProviderRequest] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM provider_requests ORDER BY next_attempt, domain").map { row in
                let ids: String? = row["ids"]
                let last: Double? = row["last_attempt"]
                return ProviderRequest(domain: row["domain"], ids: ids.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) },
                                       attempts: row["attempts"], lastError: row["last_error"],
                                       lastAttempt: last.map { Date(timeIntervalSince1970: $0) },
                                       nextAttempt: Date(timeIntervalSince1970: row["next_attempt"]))
            }
        }
    }

    /// Records how a run of `request` went. Acknowledged: the request goes (unless more was asked
    /// meanwhile, which stays). Failed: kept, with the error, and tried again after a backoff
    /// (1, 5, 30 minutes, then every 6 hours).
    package func finishProviderRequest(_ request: ProviderRequest, error: String?, now: Date = Date()) throws(IndexError) {
        let t = now.timeIntervalSince1970
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT ids, attempts FROM provider_requests WHERE domain = ?", arguments: [request.domain]) else { return }
            let stored: String? = row["ids"]
            let storedIDs = stored.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            if let error {
                let attempts: Int = row["attempts"]
                let backoff: [Double] = [60, 300, 1800, 21_600]
                try db.execute(sql: "UPDATE provider_requests SET attempts = ?, last_error = ?, last_attempt = ?, next_attempt = ? WHERE domain = ?",
                               arguments: [attempts + 1, error, t, t + backoff[min(attempts, backoff.count - 1)], request.domain])
                return
            }
            // What was asked after this run started stays asked.
            if stored == nil && request.ids == nil || storedIDs.map({ Set($0).subtracting(request.ids ?? []).isEmpty }) == true {
                try db.execute(sql: "DELETE FROM provider_requests WHERE domain = ?", arguments: [request.domain])
            } else if let storedIDs, let done = request.ids {
                let left = storedIDs.filter { !done.contains($0) }
                let text = String(decoding: (try? JSONEncoder().encode(left)) ?? Data("[]".utf8), as: UTF8.self)
                try db.execute(sql: "UPDATE provider_requests SET ids = ?, attempts = 0, last_error = NULL, last_attempt = ? WHERE domain = ?",
                               arguments: [text, t, request.domain])
            }
        }
    }

    /// Whether `domain` has ever committed a batch in this index (a rebuilt index has lost it).
    package func hasDonations(domain: String) throws(IndexError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM donated_domains WHERE name = ?) OR EXISTS(SELECT 1 FROM items WHERE domain = ?)",
                              arguments: [domain, domain]) ?? false
        }
    }

    /// Donated items of `domains` that expired (before they are purged), by domain: due again.
    package func expiredDonations(domains: [String], now: Date = Date()) throws(IndexError) -> [String: [String]] {
        guard !domains.isEmpty else { return [:] }
        return try read { db in
            var out: [String: [String]] = [:]
            for d in domains {
                let paths = try Data.fetchAll(db, sql: "SELECT path FROM items WHERE domain = ? AND expiration IS NOT NULL AND expiration <= ?",
                                              arguments: [d, now.timeIntervalSince1970])
                let ids = paths.compactMap { ItemIdentifier(bytes: Array($0)).donatedParts?.id }
                if !ids.isEmpty { out[d] = ids }
            }
            return out
        }
    }
}
