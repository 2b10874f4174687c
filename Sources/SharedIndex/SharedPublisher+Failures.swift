import Attributes
import Foundation
import Indexing
import MemberwiseInit

/// One item or domain the shared index refused.
@MemberwiseInit
package struct PublishFailure: Sendable, Hashable {
    package var domain: String
    /// The item's identifier bytes; empty when the whole domain failed (another watcher owns it).
    package var path: [UInt8]
    /// Why, as the server said it (its SQLSTATE and message, never the item's text).
    package var message: String
}

/// One bad item never blocks the others (issue 22, F3: a NUL in one comment stopped every
/// domain after it, and fsindexd retried it forever).
///
/// A key design decision: a batch is one transaction, so the server's refusal of one row
/// rolls back all of them; the batch is then written again one item at a time, and only the
/// items refused again are left out. Each is recorded in the `failures` table (`fsindex
/// status` shows them) and in the pass's report (`fsindex publish` prints them and exits 2).
/// The domain then gets no client state, so the next pass compares it again and tries them
/// again. A lost connection is not a refusal: it stops the pass (`isTransient`), which starts
/// again later. Cost: nothing while batches go in; a refused batch costs one transaction per item.
extension SharedPublisher {
    /// `write`, and when the server refuses the batch, its items one by one.
    func writeIsolating(_ items: [ExportedItem], removing: [[UInt8]], domain: String?, clientState: [UInt8]?,
                        _ link: PostgresLink, into report: inout PublishReport) throws(SharedIndexError) {
        do {
            try write(items, removing: removing, domain: domain, clientState: clientState, link)
            report.written += items.count
            return
        } catch where !error.isTransient && !items.isEmpty {
            if items.count == 1, removing.isEmpty {
                try recordFailures([PublishFailure(domain: domain ?? items[0].item.domainIdentifier, path: items[0].item.uniqueIdentifier.bytes,
                                                   message: error.description)], link, into: &report)
                return
            }
        }
        var refused: [PublishFailure] = []
        for item in items {
            do {
                try write([item], removing: [], domain: domain, clientState: nil, link)
                report.written += 1
            } catch where !error.isTransient {
                refused.append(PublishFailure(domain: domain ?? item.item.domainIdentifier, path: item.item.uniqueIdentifier.bytes,
                                              message: error.description))
            }
        }
        // Removals on their own: a refusal there is the domain's, and `publishAll` records it.
        if !removing.isEmpty { try write([], removing: removing, domain: domain, clientState: nil, link) }
        try recordFailures(refused, link, into: &report)
    }

    /// One failure as a line of a log or of stderr: `<path>: not published: <why>`, or the
    /// domain's name when the whole domain failed.
    package static func describe(_ f: PublishFailure) -> String {
        let what = f.path.isEmpty ? "domain \(f.domain)" : ByteString.escaped(f.path, escapeControls: true)
        return "\(what): not published: \(f.message)"
    }

    /// Adds `failures` to the report and to the `failures` table (replacing an older one of the
    /// same item).
    func recordFailures(_ failures: [PublishFailure], _ link: PostgresLink, into report: inout PublishReport) throws(SharedIndexError) {
        guard !failures.isEmpty else { return }
        report.failures += failures
        let now = Date().timeIntervalSince1970
        for f in failures {
            try link.query("""
                INSERT INTO failures(host, domain, path, error, at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (host, domain, path) DO UPDATE SET error = excluded.error, at = excluded.at
                """, [.text(host), .text(f.domain), .bytes(f.path), .text(f.message), .double(now)])
        }
    }
}
