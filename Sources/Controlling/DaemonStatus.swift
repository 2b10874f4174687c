import Attributes
import FoundationEssentials
import MemberwiseInit

/// The daemon's answer to `.status`: plain values that the daemon fills in.
package struct DaemonStatus: Sendable, Hashable, Codable {
    package enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// The first crawl of the roots is running.
        case crawling
        /// Up to date, following changes.
        case watching
        /// Paused by `.pause`; changes are not followed until `.resume`.
        case paused
        /// A `.reindex` request is running.
        case reindexing
        case stopping
    }

    package var state: State
    /// Changes waiting to be indexed.
    package var queueLength: Int
    package var lastError: String?
    /// The indexed roots, as path bytes (`rootsBase64` exact, `roots` printable on the wire).
    package var roots: [[UInt8]]
    /// Folders followed with inotify watches.
    package var watched: Int
    /// Folders followed by polling (out of watches, or on file systems without inotify).
    package var polled: Int
    /// Roots or folders that cannot be reached right now.
    package var unreachable: Int
    package var pid: Int32
    package var uptimeSeconds: Double
    package var itemsIndexedSinceStart: Int
    /// Roots whose folder is gone (moved away, deleted, a folder above renamed): awaited.
    package var missingRoots: [MissingRoot]

    package init(state: State, queueLength: Int = 0, lastError: String? = nil, roots: [[UInt8]] = [],
                watched: Int = 0, polled: Int = 0, unreachable: Int = 0, pid: Int32, uptimeSeconds: Double = 0,
                itemsIndexedSinceStart: Int = 0, missingRoots: [MissingRoot] = []) {
        self.missingRoots = missingRoots
        self.state = state
        self.queueLength = queueLength
        self.lastError = lastError
        self.roots = roots
        self.watched = watched
        self.polled = polled
        self.unreachable = unreachable
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.itemsIndexedSinceStart = itemsIndexedSinceStart
    }

    private enum CodingKeys: String, CodingKey {
        case state, queueLength, lastError, roots, rootsBase64, watched, polled, unreachable, pid, uptimeSeconds,
             itemsIndexedSinceStart, missingRoots
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(State.self, forKey: .state)
        queueLength = try c.decode(Int.self, forKey: .queueLength)
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        roots = try WirePaths.decode(from: c, exact: .rootsBase64, printable: .roots)
        watched = try c.decode(Int.self, forKey: .watched)
        polled = try c.decode(Int.self, forKey: .polled)
        unreachable = try c.decode(Int.self, forKey: .unreachable)
        pid = try c.decode(Int32.self, forKey: .pid)
        uptimeSeconds = try c.decode(Double.self, forKey: .uptimeSeconds)
        itemsIndexedSinceStart = try c.decode(Int.self, forKey: .itemsIndexedSinceStart)
        missingRoots = try c.decodeIfPresent([MissingRoot].self, forKey: .missingRoots) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(queueLength, forKey: .queueLength)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try WirePaths.encode(roots, exact: .rootsBase64, printable: .roots, into: &c)
        try c.encode(watched, forKey: .watched)
        try c.encode(polled, forKey: .polled)
        try c.encode(unreachable, forKey: .unreachable)
        try c.encode(pid, forKey: .pid)
        try c.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try c.encode(itemsIndexedSinceStart, forKey: .itemsIndexedSinceStart)
        try c.encode(missingRoots, forKey: .missingRoots)
    }
}

/// A root whose path leads to no folder now; fsindexd watches for it to come back.
@MemberwiseInit
package struct MissingRoot: Sendable, Hashable, Codable {
    package var path: [UInt8]
    /// How long it has been gone.
    package var missingSeconds: Double
    /// How long its items stay in the index if it does not come back; nil once they are removed.
    package var itemsKeptForSeconds: Double?

    private enum CodingKeys: String, CodingKey { case path, pathBase64, missingSeconds, itemsKeptForSeconds }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let exact = try c.decodeIfPresent(String.self, forKey: .pathBase64), let data = Data(base64Encoded: exact) {
            path = [UInt8](data)
        } else {
            path = Array(try c.decode(String.self, forKey: .path).utf8)
        }
        missingSeconds = try c.decode(Double.self, forKey: .missingSeconds)
        itemsKeptForSeconds = try c.decodeIfPresent(Double.self, forKey: .itemsKeptForSeconds)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ByteString.escaped(path, escapeControls: true), forKey: .path)
        try c.encode(Data(path).base64EncodedString(), forKey: .pathBase64)
        try c.encode(missingSeconds, forKey: .missingSeconds)
        try c.encodeIfPresent(itemsKeptForSeconds, forKey: .itemsKeptForSeconds)
    }
}
