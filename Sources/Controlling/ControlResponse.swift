import FoundationEssentials
import Indexing
import MemberwiseInit

/// A line from the daemon to a tool, such as `{"message":"paused","response":"ok"}`.
package enum ControlResponse: Sendable, Hashable, Codable {
    case status(DaemonStatus)
    case ok(message: String)
    /// The acknowledgement that a ``ControlRequest/reindex(paths:)`` has finished.
    case reindexDone(ReindexSummary)
    /// The acknowledgement that a ``ControlRequest/used(paths:title:)`` was written.
    case usesRecorded(RecordedUses)
    /// Streamed to subscribers (``ControlRequest/subscribe``) whenever items change.
    case itemsChanged(ItemChanges)
    /// The request failed or was refused; the text says why (`refused: …`, `bad request: …`).
    case error(String)
    /// The answer to ``ControlRequest/lastClientState(domain:)``: nil when the domain never
    /// committed a batch.
    case clientState(domain: String, state: String?)
    /// A search box's results, best first.
    case searchBoxHits([DesktopHit])

    /// The value of the `response` field.
    package var kind: String {
        switch self {
        case .status: "status"
        case .ok: "ok"
        case .reindexDone: "reindexDone"
        case .usesRecorded: "usesRecorded"
        case .itemsChanged: "itemsChanged"
        case .error: "error"
        case .clientState: "clientState"
        case .searchBoxHits: "searchBoxHits"
        }
    }

    private enum CodingKeys: String, CodingKey { case response, status, message, summary, changes, uses, domain, state, hits }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(String.self, forKey: .response)
        switch kind {
        case "status": self = .status(try c.decode(DaemonStatus.self, forKey: .status))
        case "ok": self = .ok(message: try c.decode(String.self, forKey: .message))
        case "reindexDone": self = .reindexDone(try c.decode(ReindexSummary.self, forKey: .summary))
        case "usesRecorded": self = .usesRecorded(try c.decode(RecordedUses.self, forKey: .uses))
        case "itemsChanged": self = .itemsChanged(try c.decode(ItemChanges.self, forKey: .changes))
        case "error": self = .error(try c.decode(String.self, forKey: .message))
        case "clientState": self = .clientState(domain: try c.decode(String.self, forKey: .domain), state: try c.decodeIfPresent(String.self, forKey: .state))
        case "searchBoxHits": self = .searchBoxHits(try c.decode([DesktopHit].self, forKey: .hits))
        default:
            throw DecodingError.dataCorruptedError(forKey: .response, in: c,
                                                   debugDescription: "unknown response \"\(kind.prefix(40))\"")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .response)
        switch self {
        case let .status(status): try c.encode(status, forKey: .status)
        case let .ok(message): try c.encode(message, forKey: .message)
        case let .reindexDone(summary): try c.encode(summary, forKey: .summary)
        case let .usesRecorded(uses): try c.encode(uses, forKey: .uses)
        case let .itemsChanged(changes): try c.encode(changes, forKey: .changes)
        case let .error(message): try c.encode(message, forKey: .message)
        case let .searchBoxHits(hits): try c.encode(hits, forKey: .hits)
        case let .clientState(domain, state):
            try c.encode(domain, forKey: .domain)
            try c.encode(state, forKey: .state)
        }
    }
}

/// What a finished reindex did, for the `.reindexDone` acknowledgement (the daemon fills it from
/// its crawl report).
@MemberwiseInit
package struct ReindexSummary: Sendable, Hashable, Codable {
    /// Items whose content was (re-)extracted and written.
    package var indexed: Int = 0
    /// Items removed because their files are gone.
    package var removed: Int = 0
    /// Items skipped because size, mtime, ctime and inode were unchanged.
    package var unchanged: Int = 0
    package var seconds: Double = 0
    /// How many files had problems (unreadable, vanished, malformed).
    package var problems: Int = 0
    /// Some of those problems as printable `path: reason` lines (the daemon may cap the list).
    package var problemMessages: [String] = []
}

/// What a recorded use left, per item, for the `.usesRecorded` acknowledgement: the item's use
/// count now and whether it is indexed yet (a use of a file not yet indexed waits for it).
///
/// On the wire: `{"indexed":[true],"paths":["/home/ada/notes.txt"],"pathsBase64":[…],"useCounts":[3]}`,
/// three lists in the same order.
@MemberwiseInit
package struct RecordedUses: Sendable, Hashable, Codable {
    package var paths: [[UInt8]] = []
    package var useCounts: [Int64] = []
    package var indexed: [Bool] = []

    private enum CodingKeys: String, CodingKey { case paths, pathsBase64, useCounts, indexed }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        paths = try WirePaths.decode(from: c, exact: .pathsBase64, printable: .paths)
        useCounts = try c.decode([Int64].self, forKey: .useCounts)
        indexed = try c.decode([Bool].self, forKey: .indexed)
        guard useCounts.count == paths.count, indexed.count == paths.count else {
            throw DecodingError.dataCorruptedError(forKey: .useCounts, in: c,
                                                   debugDescription: "paths, useCounts and indexed differ in length")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try WirePaths.encode(paths, exact: .pathsBase64, printable: .paths, into: &c)
        try c.encode(useCounts, forKey: .useCounts)
        try c.encode(indexed, forKey: .indexed)
    }
}

/// `ItemChanges` on the wire: `{"removed":[…],"removedBase64":[…],"summarized":[…],
/// "summarizedBase64":[…],"updated":[…],"updatedBase64":[…]}`; the `…Base64` lists are the exact
/// bytes, the others printable; `prioritized`/`prioritizedBase64` likewise. A list that is empty
/// may be left out (`summarized` is, by a daemon older than summaries), and is read as empty.
extension ItemChanges: Codable {
    private enum CodingKeys: String, CodingKey { case updated, updatedBase64, removed, removedBase64, summarized, summarizedBase64, prioritized, prioritizedBase64 }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(updated: try WirePaths.decode(from: c, exact: .updatedBase64, printable: .updated),
                  removed: try WirePaths.decode(from: c, exact: .removedBase64, printable: .removed),
                  summarized: try WirePaths.decode(from: c, exact: .summarizedBase64, printable: .summarized),
                  prioritized: try WirePaths.decode(from: c, exact: .prioritizedBase64, printable: .prioritized))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try WirePaths.encode(updated, exact: .updatedBase64, printable: .updated, into: &c)
        try WirePaths.encode(removed, exact: .removedBase64, printable: .removed, into: &c)
        // Left out when empty, so that the lines of ordinary changes are as they were.
        if !summarized.isEmpty {
            try WirePaths.encode(summarized, exact: .summarizedBase64, printable: .summarized, into: &c)
        }
        if !prioritized.isEmpty {
            try WirePaths.encode(prioritized, exact: .prioritizedBase64, printable: .prioritized, into: &c)
        }
    }

    /// Splits into pieces of at most `limit` paths, so that no line grows without bound.
    ///
    /// Removals come first: a subscriber applies a line's removals before its updates (a path in
    /// both was replaced, and is there now), so no update may reach it in an earlier line than a
    /// removal of the same path. Summaries come last, after the updates they follow.
    func chunked(maxPaths limit: Int) -> [ItemChanges] {
        guard count > limit else { return [self] }
        var pieces: [ItemChanges] = []
        var current = ItemChanges()
        for (paths, list) in [(removed, \ItemChanges.removed), (updated, \.updated), (summarized, \.summarized), (prioritized, \.prioritized)] {
            for path in paths {
                current[keyPath: list].append(path)
                if current.count == limit { pieces.append(current); current = ItemChanges() }
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
