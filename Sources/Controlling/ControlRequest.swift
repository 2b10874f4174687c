import FoundationEssentials

/// A request from a tool to the daemon: one JSON line such as `{"request":"status"}`.
///
/// For example, `fsindex reindex ~/Documents` sends:
/// ```json
/// {"paths":["/home/ada/Documents"],"pathsBase64":["L2hvbWUvYWRhL0RvY3VtZW50cw=="],"request":"reindex"}
/// ```
/// and reads `.ok` at once, then `.reindexDone` when the work is finished.
package enum ControlRequest: Sendable, Hashable, Codable {
    /// Answered with ``ControlResponse/status(_:)``.
    case status
    /// Stops watching and crawling until ``resume``; answered with `.ok`.
    case pause
    case resume
    /// Reindexes these paths (bytes of absolute paths), or everything when the list is empty.
    /// Answered with ``ControlResponse/reindexDone(_:)`` once the work is done.
    case reindex(paths: [[UInt8]])
    /// Records a use of each of these items (bytes of absolute paths) now, with an optional
    /// title, through the daemon's single writer (`fsindex used`). Answered with
    /// ``ControlResponse/usesRecorded(_:)`` once written.
    case used(paths: [[UInt8]], title: String?)
    /// Asks for ``ControlResponse/itemsChanged(_:)`` lines on this connection from now on. The
    /// server answers it itself with `.ok(message: "subscribed")`; the handler never sees it.
    case subscribe
    /// Asks the daemon to stop (for tests and `fsindex daemon stop`).
    case shutdown
    /// An app's batch (Core Spotlight's `indexSearchableItems` between `beginBatch` and
    /// `endBatch(withClientState:)`): items of `domain` written by the daemon's one writer in a
    /// single transaction with the client state. Answered with `.ok` naming the count, or
    /// `.error` naming the bad item (nothing of the batch is written then).
    ///
    ///     {"request":"donate","domain":"notes","clientState":"v42","items":[{"uniqueIdentifier":"n1","attributes":{"title":"Budget"}}]}
    ///
    /// `items` holds each item's JSON text as the app wrote it: `DonationReader` reads it, the
    /// same bytes as without a daemon (no number or duplicate name is read twice, two ways). Only
    /// ``WireFormat`` carries them: the `Codable` form of this case is the envelope without items.
    /// `urlScheme`: the scheme the app declares as its own (its items' contentURLs may use it).
    case donate(domain: String, clientState: String?, items: [[UInt8]], urlScheme: String? = nil)
    /// Deletes a domain's items by identifier, or the whole domain when `ids` is nil (the
    /// field left out). `"ids": []` forgets nothing; `"ids": null` is refused as ambiguous.
    case forget(domain: String, ids: [String]?)
    /// Answered with `.clientState`: the state of the domain's last committed batch.
    case lastClientState(domain: String)
    /// A desktop search box's query, answered from the daemon's index with
    /// ``ControlResponse/searchBoxHits(_:)`` (or `.error`).
    case searchBox(SearchBoxQuery)

    /// The value of the `request` field.
    package var kind: String {
        switch self {
        case .status: "status"
        case .pause: "pause"
        case .resume: "resume"
        case .reindex: "reindex"
        case .used: "used"
        case .subscribe: "subscribe"
        case .shutdown: "shutdown"
        case .donate: "donate"
        case .forget: "forget"
        case .lastClientState: "lastClientState"
        case .searchBox: "searchBox"
        }
    }

    private enum CodingKeys: String, CodingKey { case request, paths, pathsBase64, title, domain, clientState, items, ids, query, urlScheme }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .request)
        switch kind {
        case "status": self = .status
        case "pause": self = .pause
        case "resume": self = .resume
        case "reindex": self = .reindex(paths: try WirePaths.decode(from: c, exact: .pathsBase64, printable: .paths))
        case "used":
            self = .used(paths: try WirePaths.decode(from: c, exact: .pathsBase64, printable: .paths),
                         title: try c.decodeIfPresent(String.self, forKey: .title))
        case "subscribe": self = .subscribe
        case "shutdown": self = .shutdown
        case "donate":
            self = .donate(domain: try c.decode(String.self, forKey: .domain), clientState: try c.decodeIfPresent(String.self, forKey: .clientState),
                           items: [], urlScheme: try c.decodeIfPresent(String.self, forKey: .urlScheme))
        case "forget":
            // Left out: the whole domain. null is neither "these" nor "all": refused, since
            // an app that meant a list it computed must not lose its domain (issue 22, F18).
            if c.contains(.ids), try c.decodeNil(forKey: .ids) {
                throw DecodingError.dataCorruptedError(
                    forKey: .ids, in: c,
                    debugDescription: "ids is null: give a list of identifiers to forget ([] forgets nothing), or leave ids out to forget the whole domain")
            }
            self = .forget(domain: try c.decode(String.self, forKey: .domain), ids: try c.decodeIfPresent([String].self, forKey: .ids))
        case "lastClientState": self = .lastClientState(domain: try c.decode(String.self, forKey: .domain))
        case "searchBox": self = .searchBox(try c.decode(SearchBoxQuery.self, forKey: .query))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .request, in: c,
                debugDescription: "unknown request \"\(kind.prefix(40))\" (known: status, pause, resume, reindex, used, subscribe, shutdown, donate, forget, lastClientState, searchBox)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .request)
        switch self {
        case let .reindex(paths):
            try WirePaths.encode(paths, exact: .pathsBase64, printable: .paths, into: &c)
        case let .used(paths, title):
            try WirePaths.encode(paths, exact: .pathsBase64, printable: .paths, into: &c)
            try c.encodeIfPresent(title, forKey: .title)
        case let .donate(domain, clientState, _, urlScheme):
            try c.encode(domain, forKey: .domain)
            try c.encodeIfPresent(clientState, forKey: .clientState)
            try c.encodeIfPresent(urlScheme, forKey: .urlScheme)
            try c.encode([String](), forKey: .items)   // WireFormat puts the items' own text here
        case let .forget(domain, ids):
            try c.encode(domain, forKey: .domain)
            try c.encodeIfPresent(ids, forKey: .ids)
        case let .lastClientState(domain):
            try c.encode(domain, forKey: .domain)
        case let .searchBox(query):
            try c.encode(query, forKey: .query)
        default:
            break
        }
    }
}
