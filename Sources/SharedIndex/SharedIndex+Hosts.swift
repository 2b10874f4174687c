import Foundation
import PostgresNIO

/// A host of the shared index, as `fsindex status` lists it.
package struct SharedHost: Sendable, Hashable, Codable {
    package var host: String
    package var items: Int
    package var domains: [String]
    package var lastBatch: Date?
    package var lastBatchItems: Int?
    /// What its watchers' last passes could not publish: per domain, how many and why (the
    /// paths only the watchers' role may read, and `fsindex publish` prints).
    package var failures: [SharedFailureCount] = []
}

/// Items (or a whole domain) of one host's domain the shared index refused, with one reason.
package struct SharedFailureCount: Sendable, Hashable, Codable {
    package var domain: String
    package var count: Int
    package var error: String
}

/// The shared index as a whole: its hosts, and forgetting one.
package enum SharedIndexHosts {
    /// Every host with its item count, domains and last batch (as the URL's role sees them).
    package static func list(_ link: PostgresLink) throws(SharedIndexError) -> [SharedHost] {
        try SharedSchema.check(link)
        // A database set up before failures were recorded has no such table: none to show.
        let failures = try SharedSchema.has("v2-failures", link) ? failureCounts(link) : [:]
        return try link.query("""
            SELECT h.host, h.last_batch, h.last_batch_items,
                   (SELECT count(*) FROM items i WHERE i.host = h.host) AS n,
                   (SELECT coalesce(array_agg(d.domain ORDER BY d.domain), '{}') FROM domains d WHERE d.host = h.host) AS domains
            FROM hosts h ORDER BY h.host
            """).map { row in
            let r = row.makeRandomAccess()
            return SharedHost(host: (try? r["host"].decode(String.self)) ?? "", items: Int((try? r["n"].decode(Int64.self)) ?? 0),
                              domains: (try? r["domains"].decode([String].self)) ?? [],
                              lastBatch: (try? r["last_batch"].decode(Double.self)).map { Date(timeIntervalSince1970: $0) },
                              lastBatchItems: (try? r["last_batch_items"].decode(Int32.self)).map(Int.init),
                              failures: failures[(try? r["host"].decode(String.self)) ?? ""] ?? [])
        }
    }

    /// The failures table, by host: per domain, the number and the latest reason.
    static func failureCounts(_ link: PostgresLink) throws(SharedIndexError) -> [String: [SharedFailureCount]] {
        var out: [String: [SharedFailureCount]] = [:]
        for row in try link.query("""
            SELECT host, domain, count(*) AS n, (array_agg(error ORDER BY at DESC))[1] AS error
            FROM failures GROUP BY host, domain ORDER BY host, domain
            """) {
            guard let host = row.value("host", as: String.self), let domain = row.value("domain", as: String.self) else { continue }
            out[host, default: []].append(SharedFailureCount(domain: domain, count: Int(row.value("n", as: Int64.self) ?? 0),
                                                             error: row.value("error", as: String.self) ?? ""))
        }
        return out
    }

    /// Drops a host: its items, domains, accounts and record, in one transaction. Returns the
    /// number of items removed. Its watchers, if still running, publish it again from scratch.
    package static func forget(host: String, _ link: PostgresLink) throws(SharedIndexError) -> Int {
        try SharedSchema.check(link)
        return try link.transaction { () throws(SharedIndexError) -> Int in
            let rows = try link.query("WITH gone AS (DELETE FROM items WHERE host = $1 RETURNING 1) SELECT count(*) AS n FROM gone", [.text(host)])
            try link.query("DELETE FROM hosts WHERE host = $1", [.text(host)])
            try link.query("SELECT pg_notify('fsindex_items', $1)", [.text("{\"forgotten\":true}")])
            return Int(rows.first.flatMap { try? $0.makeRandomAccess()["n"].decode(Int64.self) } ?? 0)
        }
    }
}
