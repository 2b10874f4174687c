import Attributes
import Foundation
import Indexing

/// One host's item at a path of the shared index, as `fsindex show --index-url` prints it.
package struct SharedItem: Sendable, Hashable {
    package var host: String
    package var item: SearchableItem
}

extension SharedIndexHosts {
    /// The item at `identifier` on each host that holds it (only `host`'s when given), ordered
    /// by host, as the link's role may see them (row-level security: what the user of the
    /// same name could read on each host), expired items left out. The attributes are the
    /// local index's, and the text (`textContent`) is the one the watcher sent.
    package static func items(at identifier: [UInt8], host: String? = nil, _ link: PostgresLink,
                             now: Date = Date()) throws(SharedIndexError) -> [SharedItem] {
        try SharedSchema.check(link)
        return try link.query("""
            SELECT host, domain, attributes::text AS attributes, body, expiration FROM items
            WHERE path = $1 AND ($2::text IS NULL OR host = $2) AND (expiration IS NULL OR expiration > $3)
            ORDER BY host
            """, [.bytes(identifier), .text(host), .double(now.timeIntervalSince1970)]).compactMap { row in
            guard let host = row.value("host", as: String.self), let json = row.value("attributes", as: String.self),
                  var attributes = try? IndexStore.attributes(json: json) else { return nil }
            if let body = row.value("body", as: String.self) { attributes.textContent = body }
            let item = SearchableItem(uniqueIdentifier: ItemIdentifier(bytes: identifier), domainIdentifier: row.value("domain", as: String.self) ?? "",
                                      attributes: attributes, expirationDate: row.value("expiration", as: Double.self).map { Date(timeIntervalSince1970: $0) })
            return SharedItem(host: host, item: item)
        }
    }
}
