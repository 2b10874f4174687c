import Attributes
import Foundation
import Indexing
import NIOCore
import PostgresNIO
import Synchronization
import SystemPackage
import Glibc

/// What one publishing pass did.
package struct PublishReport: Sendable, Hashable {
    package var written = 0
    package var removed = 0
    /// Domains whose client state showed them unchanged since the last pass.
    package var unchanged: [String] = []
    package var domains: [String] = []
    package var batches = 0
    /// What the server refused: left out, recorded, and tried again next pass.
    package var failures: [PublishFailure] = []
}

/// Feeds the shared PostgreSQL index from a watcher's local index, with Core Spotlight's
/// contract: each batch of items is written in one transaction with the domain's client state,
/// so it is committed once or not at all.
///
/// The local index is the watcher's journal. fsindexd and `fsindex index` keep it as always,
/// and the publisher sends what it holds: after a failure (the server went away in the middle
/// of a batch) the next pass compares the two and sends again what is missing, so nothing is
/// lost while the server is down. A domain is host plus root: rows are keyed by host and path,
/// and each (host, domain) is claimed by one watcher, so no watcher can clobber another's.
package final class SharedPublisher: @unchecked Sendable {
    package let url: SharedIndexURL
    package let host: String
    /// Stable across restarts and rebuilds of the same local index.
    package let watcher: String
    package let store: IndexStore
    package var batchSize = 256
    /// Which local domains this publisher sends; the others it leaves alone, in the shared
    /// index as in the local one. `fsindex publish` sends every domain; fsindexd the domains
    /// of the roots it watches and the apps' (`SharedPublisher.watching(_:)`).
    package var publishes: @Sendable (String) -> Bool = { _ in true }
    /// The connection and the domains this watcher has claimed over it, held for a whole
    /// pass: one pass at a time, since a pass's claims and writes belong to its connection.
    private let session = Mutex<Session>(Session())
    private struct Session {
        var link: PostgresLink?
        var claimed: Set<String> = []
    }

    package init(store: IndexStore, url: SharedIndexURL, host: String? = nil) {
        self.store = store
        self.url = url
        self.host = host ?? Self.hostName()
        watcher = self.host + ":" + store.location.directory.string
    }

    /// A filter for `publishes` that takes the domains of the roots watched now (`roots()`:
    /// their names, as `IndexUpdater.domainName` makes them) and every app's domain (an app's
    /// domain is never a path), and leaves out the other roots a local index may hold: a root
    /// fsindexd does not watch is not kept up to date, and its rows would go stale in the
    /// shared index. Those stay as the last `fsindex publish` of them left them.
    package static func watching(_ roots: @escaping @Sendable () -> Set<String>) -> @Sendable (String) -> Bool {
        { domain in !domain.hasPrefix("/") || roots().contains(domain) }
    }

    /// This machine's name, as `hostname` prints it.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Forgets the connection (after an error), so the next call connects again.
    package func disconnect() {
        session.withLock { s in
            s.link?.close()
            s = Session()
        }
    }

    /// The connection, made (and the schema, host and accounts set up) when there is none.
    private func connection(_ s: inout Session) throws(SharedIndexError) -> PostgresLink {
        if let link = s.link, !link.isClosed { return link }
        let link = try PostgresLink.connect(url)
        do {
            try SharedSchema.migrate(link)
            try link.query("INSERT INTO hosts(host, first_seen) VALUES ($1, $2) ON CONFLICT (host) DO NOTHING",
                           [.text(host), .double(Date().timeIntervalSince1970)])
            try publishAccounts(link)
        } catch {
            link.close()
            throw error
        }
        s = Session(link: link)
        return link
    }

    /// The host's users and their groups, replaced as a whole.
    private func publishAccounts(_ link: PostgresLink) throws(SharedIndexError) {
        let accounts = AccountNames.all()
        try link.transaction { () throws(SharedIndexError) in
            try link.query("DELETE FROM accounts WHERE host = $1", [.text(host)])
            for a in accounts {
                try link.query("INSERT INTO accounts(host, role, uid, gids) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                               [.text(host), .text(a.name), .int(Int64(Int32(bitPattern: a.uid))), .ints(a.gids.map { Int32(bitPattern: $0) })])
            }
        }
    }

    /// Claims `domain` of this host for this watcher, or says who has it.
    private func claim(_ domain: String, _ link: PostgresLink, _ s: inout Session) throws(SharedIndexError) {
        if s.claimed.contains(domain) { return }
        try link.query("INSERT INTO domains(host, domain, watcher) VALUES ($1, $2, $3) ON CONFLICT (host, domain) DO NOTHING",
                       [.text(host), .text(domain), .text(watcher)])
        let owner = try link.query("SELECT watcher FROM domains WHERE host = $1 AND domain = $2", [.text(host), .text(domain)])
            .first?.value("watcher", as: String.self)
        guard owner == watcher else { throw .domainOwned(host: host, domain: domain, watcher: owner ?? "unknown") }
        s.claimed.insert(domain)
    }

    /// Sends every local domain this publisher publishes (`publishes`): for each, the items
    /// whose version differs from the shared one, and the removal of shared items the local
    /// index no longer has. A domain whose client state matches the local index is skipped
    /// without reading the shared rows; its folders above the root are checked all the same
    /// (`refreshRootChain`), since a chmod there changes nothing in the local index.
    ///
    /// What the server refuses for one item or one domain is left out and recorded
    /// (`report.failures`, the `failures` table `fsindex status` reads); the others are sent.
    /// Only a lost connection (`isTransient`) stops the pass.
    package func publishAll() throws(SharedIndexError) -> PublishReport {
        try session.withLock { s throws(SharedIndexError) -> PublishReport in try publishAll(&s) }
    }

    private func publishAll(_ s: inout Session) throws(SharedIndexError) -> PublishReport {
        let link = try connection(&s)
        var report = PublishReport()
        let rowsBefore = (try? link.query("SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'items'::regclass").first?
            .makeRandomAccess()["n"].decode(Double.self)) ?? 0
        let domains: [String]
        let roots: [String: [UInt8]]
        do {
            domains = try store.domainNames().filter(publishes)
            roots = try store.domainRoots()
        } catch { throw .local(error) }
        for domain in domains {
            do {
                try publishDomain(domain, root: roots[domain], link, &s, into: &report)
            } catch where !error.isTransient {
                try recordFailures([PublishFailure(domain: domain, path: [], message: error.description)], link, into: &report)
            }
        }
        if Self.settles(written: report.written, rowsBefore: rowsBefore) { settle(link) }
        return report
    }

    /// Whether a pass wrote enough rows to settle `items` after it: 10,000 rows and a tenth of
    /// the table, as a first publish or a new root does; not the few rows of a change.
    static func settles(written: Int, rowsBefore: Double) -> Bool {
        written >= 10_000 && Double(written) >= 0.1 * rowsBefore
    }

    /// `VACUUM (ANALYZE) items` after a bulk pass, so that queries right after it take the
    /// plans they will take for good. ANALYZE tells the planner about the new rows, and the
    /// vacuum marks their pages all-visible, without which an index-only scan (`--name` along
    /// `items_name_length`) checks the table for every entry it reads: at 1 M items, right
    /// after a first publish, the planner took the trigram plan instead, 333 ms against about
    /// 60 after a vacuum. Autovacuum would get there within minutes; this makes it part of
    /// the publish. Publishers that finish together take turns (a vacuum waits for another's,
    /// then has only the pages written since to visit). A failure here loses nothing (the rows
    /// are committed, and autovacuum does the same later), so it does not fail the pass; a
    /// role that does not own the table gets a warning from the server and nothing is done.
    func settle(_ link: PostgresLink) {
        try? link.execute("VACUUM (ANALYZE) items")
    }

    /// One domain of `publishAll`.
    private func publishDomain(_ domain: String, root: [UInt8]?, _ link: PostgresLink, _ s: inout Session,
                               into report: inout PublishReport) throws(SharedIndexError) {
        try claim(domain, link, &s)
        report.domains.append(domain)
        if let root { try refreshRootChain(root, link) }
        let local: [[UInt8]: String]
        do { local = try store.versions(domain: domain) } catch { throw .local(error) }
        let state = Self.digest(local)
        let stored = try link.query("SELECT client_state FROM domains WHERE host = $1 AND domain = $2",
                                    [.text(host), .text(domain)]).first?.bytes("client_state")
        if stored == state { report.unchanged.append(domain); return }
        // What failed last time is tried again now, and recorded again if it fails again.
        try link.query("DELETE FROM failures WHERE host = $1 AND domain = $2", [.text(host), .text(domain)])
        var remote: [[UInt8]: String] = [:]
        // A row published before ACLs were ("v4-acl": its `acl` is NULL) is sent again.
        for row in try link.query("SELECT path, version, acl IS NULL AS old FROM items WHERE host = $1 AND domain = $2", [.text(host), .text(domain)]) {
            let access = row.makeRandomAccess()
            guard let path = try? access["path"].decode(ByteBuffer.self), let version = try? access["version"].decode(String.self) else { continue }
            remote[Array(path.readableBytesView)] = (try? access["old"].decode(Bool.self)) == true ? "" : version
        }
        let changed = local.filter { remote[$0.key] != $0.value }.map(\.key).sorted { $0.lexicographicallyPrecedes($1) }
        let gone = remote.keys.filter { local[$0] == nil }.sorted { $0.lexicographicallyPrecedes($1) }
        var removals = gone[...]
        var start = 0
        let failuresBefore = report.failures.count
        repeat {
            let slice = Array(changed[start..<min(start + batchSize, changed.count)])
            let deleting = Array(removals.prefix(max(batchSize - slice.count, slice.isEmpty ? batchSize : 0)))
            removals = removals.dropFirst(deleting.count)
            start += slice.count
            let last = start >= changed.count && removals.isEmpty
            let items: [ExportedItem]
            do { items = try store.exportItems(slice) } catch { throw .local(error) }
            // An item deleted locally since the versions were read is removed too.
            let vanished = Set(slice).subtracting(items.map(\.item.uniqueIdentifier.bytes))
            // The client state only when every item went in: a domain with a failure is
            // compared again next time.
            let clean = report.failures.count == failuresBefore
            try writeIsolating(items, removing: deleting + vanished.sorted { $0.lexicographicallyPrecedes($1) }, domain: domain,
                               clientState: last && clean ? state : nil, link, into: &report)
            report.removed += deleting.count + vanished.count
            report.batches += 1
        } while start < changed.count || !removals.isEmpty
    }

    /// `publishAll`, again and again while the server is unreachable or goes away, waiting
    /// 0.5 s, then twice as long each time up to 30 s; gives up after `giveUpAfter` seconds
    /// (nil: never). A batch cut off by a lost connection was rolled back by the server; the
    /// next pass compares again, so it is sent once more and committed once.
    package func publishAllRetrying(giveUpAfter: Double? = nil, log: (String) -> Void = { _ in }) throws(SharedIndexError) -> PublishReport {
        let start = Date()
        var delay = 0.5
        var total = PublishReport()
        while true {
            do {
                let report = try publishAll()
                total.written += report.written
                total.removed += report.removed
                total.batches += report.batches
                total.domains = report.domains
                total.unchanged = report.unchanged
                total.failures = report.failures
                return total
            } catch where error.isTransient {
                disconnect()
                if let giveUpAfter, Date().timeIntervalSince(start) + delay > giveUpAfter { throw error }
                log("\(error.description); trying again in \(delay) s")
                usleep(useconds_t(delay * 1_000_000))   // a real server coming back: `fsindex publish` waits for it
                delay = min(delay * 2, 30)
            }
        }
    }

    /// Sends these items as they are in the local index now (fsindexd calls it with each change
    /// it commits): those it holds are written, the others removed with the items inside them.
    /// Items of a domain this publisher does not publish are left alone; an item the server
    /// refuses is recorded, as in `publishAll`.
    package func publish(_ identifiers: [[UInt8]]) throws(SharedIndexError) -> PublishReport {
        try session.withLock { s throws(SharedIndexError) -> PublishReport in try publish(identifiers, &s) }
    }

    private func publish(_ identifiers: [[UInt8]], _ s: inout Session) throws(SharedIndexError) -> PublishReport {
        let link = try connection(&s)
        var report = PublishReport()
        for start in stride(from: 0, to: identifiers.count, by: batchSize) {
            let slice = Array(identifiers[start..<min(start + batchSize, identifiers.count)])
            let items: [ExportedItem]
            do { items = try store.exportItems(slice) } catch { throw .local(error) }
            let present = Set(items.map(\.item.uniqueIdentifier.bytes))
            let gone = slice.filter { !present.contains($0) }
            var byDomain: [String: [ExportedItem]] = [:]
            for item in items where publishes(item.item.domainIdentifier) { byDomain[item.item.domainIdentifier, default: []].append(item) }
            if byDomain.isEmpty, !gone.isEmpty { byDomain[""] = [] }
            var first = true
            for (domain, group) in byDomain {
                do {
                    if !domain.isEmpty { try claim(domain, link, &s) }
                    try writeIsolating(group, removing: first ? gone : [], domain: domain.isEmpty ? nil : domain, clientState: nil, link, into: &report)
                } catch where !error.isTransient {
                    try recordFailures([PublishFailure(domain: domain, path: [], message: error.description)], link, into: &report)
                }
                if first { report.removed += gone.count }
                first = false
                report.batches += 1
            }
        }
        return report
    }

    /// One batch, one transaction: upserts, removals (with the items inside removed files),
    /// the domain's client state, the host's last batch, and a notification for live queries.
    /// The items' owner, group and mode are compared with the shared rows' first: where one
    /// changed (a chmod, chown or ACL), the rows below it change in the same transaction.
    func write(_ items: [ExportedItem], removing: [[UInt8]], domain: String?, clientState: [UInt8]?,
               _ link: PostgresLink) throws(SharedIndexError) {
        var folders = FolderAccess()
        let access = items.map { folders.access(of: $0.item.uniqueIdentifier.bytes) }
        let rows = rowsJSON(items, access: access)
        let now = Date().timeIntervalSince1970
        try link.transaction { () throws(SharedIndexError) in
            if !items.isEmpty {
                let changed = try accessChanges(items, access: access, link)
                try link.query(Self.upsertSQL, [.text(host), .text(rows)])
                for change in changed { try refreshBelow(change, link) }
            }
            // What went in (or went away) is no failure any more.
            if !items.isEmpty || !removing.isEmpty {
                try link.query("DELETE FROM failures WHERE host = $1 AND path = ANY($2::bytea[])",
                               [.text(host), .byteArrays(items.map(\.item.uniqueIdentifier.bytes) + removing)])
            }
            if !removing.isEmpty {
                try link.query("""
                    DELETE FROM items i USING domains d
                    WHERE i.host = $1 AND d.host = i.host AND d.domain = i.domain AND d.watcher = $3
                      AND EXISTS (SELECT 1 FROM unnest($2::bytea[]) AS p(path)
                                  WHERE i.path = p.path OR (i.path >= p.path || '\\x00'::bytea AND i.path < p.path || '\\x01'::bytea))
                    """, [.text(host), .byteArrays(removing), .text(watcher)])
            }
            if let domain {
                // A pass that is not the last of a full comparison leaves no client state: the
                // next pass must compare again.
                try link.query("UPDATE domains SET client_state = $3, updated = $4 WHERE host = $1 AND domain = $2",
                               [.text(host), .text(domain), .bytes(clientState), .double(now)])
            }
            try link.query("UPDATE hosts SET last_batch = $2, last_batch_items = $3 WHERE host = $1",
                           [.text(host), .double(now), .int(Int64(items.count + removing.count))])
            var payload: [UInt8] = Array("{\"host\":".utf8)
            AttributeSet.appendJSONString(host, to: &payload)
            payload += Array(",\"written\":\(items.count),\"removed\":\(removing.count)}".utf8)
            try link.query("SELECT pg_notify('fsindex_items', $1)", [.text(String(decoding: payload, as: UTF8.self))])
        }
    }

    static let upsertSQL = """
        INSERT INTO items (host, path, domain, name, content_type, kind, extractor, error, size, modified, created, used,
                           expiration, attributes, types, title, other, body, words, owner, grp, mode, access, version, acl)
        SELECT $1, decode(r.path, 'hex'), r.domain, r.name, r.content_type, r.kind, r.extractor, r.error, r.size, r.modified,
               r.created, r.used, r.expiration, r.attributes, coalesce(r.types, '{}'), r.title, r.other, r.body, r.words::tsvector,
               r.owner, r.grp, r.mode, coalesce(r.access, '{}'), r.version, coalesce(r.acl, '{}')
        FROM jsonb_to_recordset($2::jsonb) AS r(path text, domain text, name text, content_type text, kind text, extractor text,
             error text, size bigint, modified double precision, created double precision, used double precision,
             expiration double precision, attributes jsonb, types text[], title text, other text, body text, words text,
             owner integer, grp integer, mode integer, access integer[], version text, acl integer[])
        ON CONFLICT (host, path) DO UPDATE SET
            domain = excluded.domain, name = excluded.name, content_type = excluded.content_type, kind = excluded.kind,
            extractor = excluded.extractor, error = excluded.error, size = excluded.size, modified = excluded.modified,
            created = excluded.created, used = excluded.used, expiration = excluded.expiration,
            attributes = excluded.attributes, types = excluded.types, title = excluded.title, other = excluded.other,
            body = excluded.body, words = excluded.words, owner = excluded.owner, grp = excluded.grp, mode = excluded.mode,
            access = excluded.access, version = excluded.version, acl = excluded.acl
        """
}
