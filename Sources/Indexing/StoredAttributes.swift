import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// The columns of an `items` row that repeat attributes, so that its `attributes` JSON can
/// leave those out (issue 14, "Half the index": they were a third of the JSON).
///
/// An attribute is left out only when the column gives back exactly what decoding the JSON
/// would (a date to the millisecond it is stored with), and `items.omitted` has one bit per
/// attribute left out (`keys`), so reading puts back those and no others: an item without a
/// `path` attribute (a donated one) does not gain one. Queries need nothing of this: they read
/// these attributes from their columns (and `contentTypeTree` from `item_types`) already.
///
/// Whoever changes one of these columns writes the JSON again through ``omitting(_:)`` with the
/// new values (moves, refreshes), or leaves the attribute in the JSON.
@MemberwiseInit
struct StoredAttributes {
    var path: [UInt8]
    var domain: String
    var name: String
    var contentType: String?
    var kind: String?
    var extractor: String?
    var size: Int64?
    var modified: Double?
    var created: Double?

    /// What a reader selects to decode an item's attributes with ``attributes(_:)``.
    static let selection = """
        items.attributes, items.omitted, items.path, items.domain, items.name, items.content_type, items.kind,
        items.extractor, items.size, items.modified, items.created
        """

    /// Bit `i` of `items.omitted` stands for `keys[i]`. Append only: the bits are stored.
    /// Only attributes that queries read from a column (`Schema.attributeColumns`, the path, the
    /// type tree in `item_types`) are here: any other is matched in the JSON (`json_extract`), so
    /// `displayName` and `contentModificationDate` stay there even when they equal a column.
    /// `contentTypeTree` has two bits: its type's tree as `ContentType.tree` gives it, and the
    /// form a crawl stores (`public.content`, `public.data`, `public.item` moved to the end).
    static let keys: [AttributeKey] = [
        .path, .domainIdentifier, .name, .contentType, .kind, .extractor, .fileSize,
        .contentTypeTree, .fsContentChangeDate, .fsCreationDate, .contentTypeTree,
    ]

    /// The columns of a row selected with `selection`.
    init(row: Row) {
        self.init(path: Array(row["path"] as Data), domain: row["domain"], name: row["name"], contentType: row["content_type"],
                  kind: row["kind"], extractor: row["extractor"], size: row["size"], modified: row["modified"], created: row["created"])
    }

    /// The value the columns give for bit `bit` (its key is `keys[bit]`), as the JSON would decode
    /// it; nil when they give none.
    func value(bit: Int) -> AttributeValue? {
        if bit == 10 { return contentType.map { .strings(Self.crawledTree(ContentType(rawValue: $0)).map(\.rawValue)) } }
        return switch Self.keys[bit] {
        case .path: .string(ByteString.escaped(ItemIdentifier.split(path).file))
        case .domainIdentifier: .string(domain)
        case .name: .string(name)
        case .contentType: contentType.map { .string($0) }
        case .kind: kind.map { .string($0) }
        case .extractor: extractor.map { .string($0) }
        case .fileSize: size.map { .integer($0) }
        case .contentTypeTree: contentType.map { .strings(ContentType(rawValue: $0).tree.map(\.rawValue)) }
        case .fsContentChangeDate: modified.map { Self.stored(.date(Date(timeIntervalSince1970: $0))) }
        case .fsCreationDate: created.map { Self.stored(.date(Date(timeIntervalSince1970: $0))) }
        default: nil
        }
    }

    /// A type's tree as the crawl's type detection stores it (`TypeDetector.normalized`): the
    /// roots last. Written out here, not called: stored bits must keep their meaning.
    static func crawledTree(_ type: ContentType) -> [ContentType] {
        let tree = type.tree
        let roots: Set<ContentType> = [.content, .data, .item]
        var out: [ContentType] = []
        for t in tree where !roots.contains(t) && !out.contains(t) { out.append(t) }
        if tree.contains(.content) { out.append(.content) }
        out.append(.data)
        out.append(.item)
        return out
    }

    /// A value as it comes back from the JSON (a date to the millisecond).
    static func stored(_ value: AttributeValue) -> AttributeValue {
        guard case .date(let d) = value, let back = AttributeValue.parseISO8601(AttributeValue.iso8601(d)) else { return value }
        return .date(back)
    }

    /// Whether the columns give back `v` for bit `bit`. Dates are compared by the millisecond the
    /// JSON stores (`AttributeValue.iso8601` depends on nothing else), without formatting one:
    /// a crawl writes two per item.
    func matches(_ v: AttributeValue, bit: Int) -> Bool {
        switch Self.keys[bit] {
        case .fsContentChangeDate, .fsCreationDate:
            guard case .date(let d) = v, let column = Self.keys[bit] == .fsCreationDate ? created : modified,
                  let a = Self.millisecond(d.timeIntervalSince1970), let b = Self.millisecond(column) else { return false }
            return a == b
        default:
            return value(bit: bit) == v
        }
    }

    /// The millisecond `AttributeValue.iso8601` writes for a time (nil outside its exact range).
    static func millisecond(_ t: Double) -> Int64? {
        let ms = (t * 1000).rounded()
        guard ms.isFinite, abs(ms) < 1e15 else { return nil }
        return Int64(ms)
    }

    /// `attributes` without what the columns give back, and the bits of what was left out.
    func omitting(_ attributes: AttributeSet) -> (attributes: AttributeSet, omitted: Int64?) {
        var out = attributes
        var bits: Int64 = 0
        for (i, key) in Self.keys.enumerated() {
            guard let v = out[key], matches(v, bit: i) else { continue }
            out = out.removing(key)
            bits |= 1 << Int64(i)
        }
        return (out, bits == 0 ? nil : bits)
    }

    /// `attributes` (decoded from the JSON) with the attributes of `omitted` put back.
    func restoring(_ attributes: AttributeSet, omitted: Int64?) -> AttributeSet {
        guard let omitted, omitted != 0 else { return attributes }
        var out = attributes
        for (i, key) in Self.keys.enumerated() where omitted & (1 << Int64(i)) != 0 {
            out[key] = value(bit: i)
        }
        return out
    }

    /// The JSON to store and its `omitted` bits.
    func encode(_ attributes: AttributeSet) throws -> (json: String, omitted: Int64?) {
        let (kept, omitted) = omitting(attributes)
        return (try kept.jsonText(), omitted)
    }
}

extension IndexStore {
    /// What a reader selects (from `items`) to decode an item's attributes with ``attributes(_:)``.
    package static var attributeSelection: String { StoredAttributes.selection }

    /// The attribute set of a row selected with ``attributeSelection`` (no text): the JSON with
    /// the attributes its columns hold put back.
    package static func attributes(_ row: Row) throws -> AttributeSet {
        let decoded = try attributes(json: row["attributes"])
        return StoredAttributes(row: row).restoring(decoded, omitted: row["omitted"])
    }
}
