import Attributes
import FoundationEssentials
import MemberwiseInit

/// One result as a search box shows it: what `GetResultMetas` and KRunner's `Match` send, and
/// what fsindexd answers a ``SearchBoxQuery`` with.
@MemberwiseInit
package struct DesktopHit: Sendable, Hashable, Codable {
    /// The id on the bus (``ResultID``).
    package var id: String
    /// The item's identifier in the index: a path, or a donated item's `DOMAIN:ID`.
    package var identifier: [UInt8]
    /// The title a person reads: the display name, else the title, else the file name.
    package var name: String
    /// The folder, with the home folder as `~`; nil for a donated item.
    package var folder: String? = nil
    /// `textContentSummary`, when the summary pass wrote one.
    package var summary: String? = nil
    /// The MIME type (`text/plain`), for the icon.
    package var contentType: String? = nil
    /// A donated item's `contentURL`.
    package var contentURL: String? = nil

    /// The line under the name: the folder (or a donated item's URL), then the summary, so that
    /// two files of one name are told apart and a document says what it is about.
    ///
    /// A key design decision: no snippet. FTS5 makes one by reading the matched rows' text
    /// again (over the range of rows between the page's first and last), which cost 6 of the
    /// 8 ms of a rare word's search box answer on the bench corpus; the stored summary costs
    /// nothing to read.
    package var description: String {
        let text = summary.map { Self.shortened($0, to: 160) }
        switch (folder ?? contentURL, text) {
        case let (place?, text?): return place + " — " + text
        case let (place?, nil): return place
        case let (nil, text?): return text
        case (nil, nil): return ""
        }
    }

    private enum CodingKeys: String, CodingKey { case id, identifierBase64, name, folder, summary, contentType, contentURL }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let bytes = Data(base64Encoded: try c.decode(String.self, forKey: .identifierBase64)), !bytes.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .identifierBase64, in: c, debugDescription: "not base64")
        }
        self.init(id: try c.decode(String.self, forKey: .id), identifier: Array(bytes), name: try c.decode(String.self, forKey: .name),
                  folder: try c.decodeIfPresent(String.self, forKey: .folder),
                  summary: try c.decodeIfPresent(String.self, forKey: .summary), contentType: try c.decodeIfPresent(String.self, forKey: .contentType),
                  contentURL: try c.decodeIfPresent(String.self, forKey: .contentURL))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(Data(identifier).base64EncodedString(), forKey: .identifierBase64)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(folder, forKey: .folder)
        try c.encodeIfPresent(summary, forKey: .summary)
        try c.encodeIfPresent(contentType, forKey: .contentType)
        try c.encodeIfPresent(contentURL, forKey: .contentURL)
    }

    static func shortened(_ text: String, to limit: Int) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard flat.count > limit else { return flat }
        return String(flat.prefix(limit)) + "…"
    }

    /// A path as people read it: `~/…` under the home folder, and bytes that are not UTF-8
    /// shown as U+FFFD (a label only; the id keeps the bytes).
    package static func display(_ path: [UInt8], home: [UInt8]?) -> String {
        if let home, !home.isEmpty, path.isBelow(home) {
            return "~" + String(decoding: path[home.count...], as: UTF8.self)
        }
        if let home, path == home { return "~" }
        return String(decoding: path, as: UTF8.self)
    }
}
