import FoundationEssentials
import MemberwiseInit

/// What a desktop search box asks fsindexd (`fsindex search-provider` on behalf of GNOME Shell
/// and KRunner), answered with ``ControlResponse/searchBoxHits(_:)``: the terms, ANDed and read
/// as fsfind's short form, at most `limit` results, and, when the box narrows an earlier answer
/// (the user typed one more letter), only among the items `within`.
///
///     {"request":"searchBox","query":{"terms":["annual","bud"],"limit":20,"withinBase64":["L2hvbWUv..."]}}
@MemberwiseInit
package struct SearchBoxQuery: Sendable, Hashable, Codable {
    package var terms: [String]
    package var limit: Int
    /// Identifiers (paths, `DOMAIN:ID`) to search among; nil: the whole index.
    package var within: [[UInt8]]? = nil

    /// The most results one query may ask for.
    package static let maximumLimit = 1000

    private enum CodingKeys: String, CodingKey { case terms, limit, withinBase64 }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        terms = try c.decode([String].self, forKey: .terms)
        limit = try c.decode(Int.self, forKey: .limit)
        guard (1...Self.maximumLimit).contains(limit) else {
            throw DecodingError.dataCorruptedError(forKey: .limit, in: c, debugDescription: "limit must be from 1 to \(Self.maximumLimit)")
        }
        within = try c.decodeIfPresent([String].self, forKey: .withinBase64).map { list in
            try list.map { text in
                guard let d = Data(base64Encoded: text), !d.isEmpty else {
                    throw DecodingError.dataCorruptedError(forKey: .withinBase64, in: c, debugDescription: "an identifier that is not base64")
                }
                return Array(d)
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(terms, forKey: .terms)
        try c.encode(limit, forKey: .limit)
        try c.encodeIfPresent(within?.map { Data($0).base64EncodedString() }, forKey: .withinBase64)
    }
}
