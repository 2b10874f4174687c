import Attributes
import FoundationEssentials

/// How file paths travel in control messages: paths are bytes and not always UTF-8, so each list
/// goes out twice, as `<key>Base64` (the exact bytes, the only form read back) and as `<key>`
/// (printable, with `\xNN` for bytes that are not UTF-8, for people reading the JSON).
///
/// On input a list given only in its printable form (`{"request":"reindex","paths":["/home/ada"]}`
/// typed into `socat`) is taken as UTF-8.
enum WirePaths {
    static func encode<Key: CodingKey>(_ paths: [[UInt8]], exact: Key, printable: Key,
                                       into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encode(paths.map { Data($0).base64EncodedString() }, forKey: exact)
        try container.encode(paths.map { ByteString.escaped($0, escapeControls: true) }, forKey: printable)
    }

    static func decode<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, exact: Key,
                                       printable: Key) throws -> [[UInt8]] {
        if let encoded = try container.decodeIfPresent([String].self, forKey: exact) {
            return try encoded.map { text in
                guard let data = Data(base64Encoded: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: exact, in: container, debugDescription: "not base64: \(text.prefix(40))")
                }
                return [UInt8](data)
            }
        }
        if let plain = try container.decodeIfPresent([String].self, forKey: printable) {
            return plain.map { Array($0.utf8) }
        }
        return []
    }
}

/// One JSON object per line, UTF-8, in both directions.
enum WireFormat {
    /// The longest line a server accepts from a client: a donated batch (`donate`) is the one
    /// large request. It holds `DonationReader.maximumBatchBytes` (64 MiB) of items and the
    /// envelope, so that every batch valid without a daemon is valid through it.
    static let maxRequestLine = 65 << 20
    /// The longest line a client accepts from the daemon (a batch of changed paths).
    static let maxResponseLine = 64 << 20

    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(value))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    static func decode<T: Decodable>(_ type: T.Type, from line: ArraySlice<UInt8>) throws -> T {
        try JSONDecoder().decode(type, from: Data(line))
    }

    /// A request's line: the envelope through `Codable`, a batch's items spliced in as the
    /// app's own JSON text (``ControlRequest/donate(domain:clientState:items:)``).
    static func line(_ request: ControlRequest) throws -> [UInt8] {
        let envelope = try encodedLine(request)
        guard case let .donate(_, _, items, _) = request, !items.isEmpty else { return envelope }
        // Keys are sorted and strings escaped, so `"items":[]` occurs once: as the member itself
        // (inside a string its quotes would be escaped).
        let empty = Array(#""items":[]"#.utf8)
        guard let at = envelope.firstRange(of: empty) else { return envelope }
        var out: [UInt8] = []
        out.reserveCapacity(envelope.count + items.reduce(0) { $0 + $1.count + 1 })
        out += envelope[..<(at.upperBound - 1)]
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += item
        }
        out += envelope[(at.upperBound - 1)...]
        return out
    }

    private static func encodedLine(_ request: ControlRequest) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(request))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// A request from its line, after ``JSONShape`` has checked the whole line in one linear
    /// pass (syntax, at most `JSONShape.maximumDepth` levels, no name twice): only then does
    /// `JSONDecoder` see the envelope, and a batch's items stay the bytes the app sent.
    static func request(from line: [UInt8]) throws -> ControlRequest {
        let members = try JSONShape.members(of: line)
        guard let items = members.first(where: { $0.name == Array("items".utf8) }) else {
            return try decode(ControlRequest.self, from: line[...])
        }
        guard let ranges = JSONShape.elements(of: line, in: items.value) else {
            throw JSONShape.Failure(offset: items.value.lowerBound, reason: "items must be an array of item objects")
        }
        var envelope = line
        envelope.replaceSubrange(items.value, with: Array("[]".utf8))
        let request = try decode(ControlRequest.self, from: envelope[...])
        guard case let .donate(domain, clientState, _, urlScheme) = request else { return request }
        return .donate(domain: domain, clientState: clientState, items: ranges.map { Array(line[$0]) }, urlScheme: urlScheme)
    }

    /// A short reason for a decoding failure, without echoing the input.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let failure as JSONShape.Failure: return failure.description
        case let DecodingError.dataCorrupted(context): return context.debugDescription
        case let DecodingError.keyNotFound(key, _): return "missing \"\(key.stringValue)\""
        case let DecodingError.typeMismatch(_, context):
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case let DecodingError.valueNotFound(_, context):
            return "missing value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "not JSON"
        }
    }
}

/// Splits a byte stream into lines (without their `\n`, and without a `\r` before it).
struct LineBuffer {
    private(set) var bytes: [UInt8] = []
    private var scanned = 0

    mutating func append(_ chunk: UnsafeRawBufferPointer) { bytes.append(contentsOf: chunk) }
    mutating func append(_ chunk: [UInt8]) { bytes.append(contentsOf: chunk) }

    /// The next complete line, if one has arrived.
    mutating func nextLine() -> [UInt8]? {
        guard let newline = bytes[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = bytes.count
            return nil
        }
        var end = newline
        if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Array(bytes[..<end])
        bytes.removeSubrange(...newline)
        scanned = 0
        return line
    }

    /// Bytes waiting for their newline.
    var pendingCount: Int { bytes.count }
}
