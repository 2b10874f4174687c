import FoundationEssentials

/// The attributes of one item, after Core Spotlight's `CSSearchableItemAttributeSet`.
///
/// A plain dictionary from `AttributeKey` to `AttributeValue`, with typed accessors for the
/// attributes every stage uses. It encodes to a flat JSON object whose keys are the attribute
/// names: strings, numbers, booleans, arrays of strings, and dates as ISO 8601 strings. Decoding
/// uses `AttributeKey.valueType` to turn those strings back into dates.
///
/// For example:
/// ```swift
/// var set = AttributeSet()
/// set.title = "Annual report"
/// set[.fileSize] = .integer(4096)
/// ```
package struct AttributeSet: Sendable, Hashable {
    package private(set) var values: [AttributeKey: AttributeValue]

    package init(_ values: [AttributeKey: AttributeValue] = [:]) { self.values = values }

    package subscript(key: AttributeKey) -> AttributeValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    package var keys: [AttributeKey] { values.keys.sorted() }
    package var isEmpty: Bool { values.isEmpty }

    /// Adds `other`'s values, replacing ours where both have one.
    package mutating func merge(_ other: AttributeSet) {
        values.merge(other.values) { _, new in new }
    }

    package func removing(_ key: AttributeKey) -> AttributeSet {
        var copy = self
        copy.values[key] = nil
        return copy
    }

    // MARK: Typed accessors

    package func string(_ key: AttributeKey) -> String? { values[key]?.stringValue }
    package func strings(_ key: AttributeKey) -> [String] { values[key]?.textValues ?? [] }
    package func integer(_ key: AttributeKey) -> Int64? { values[key]?.integerValue }
    package func date(_ key: AttributeKey) -> Date? { values[key]?.dateValue }

    package mutating func set(_ key: AttributeKey, _ string: String?) {
        values[key] = string.map(AttributeValue.string)
    }

    package var title: String? {
        get { string(.title) }
        set { set(.title, newValue) }
    }
    package var textContent: String? {
        get { string(.textContent) }
        set { set(.textContent, newValue) }
    }
    package var contentType: ContentType? {
        get { string(.contentType).map(ContentType.init(rawValue:)) }
        set { set(.contentType, newValue?.rawValue) }
    }
    package var contentTypeTree: [ContentType] {
        get { strings(.contentTypeTree).map(ContentType.init(rawValue:)) }
        set { values[.contentTypeTree] = newValue.isEmpty ? nil : .strings(newValue.map(\.rawValue)) }
    }
    package var kind: String? {
        get { string(.kind) }
        set { set(.kind, newValue) }
    }
    package var fileSize: Int64? {
        get { integer(.fileSize) }
        set { values[.fileSize] = newValue.map(AttributeValue.integer) }
    }
}

extension AttributeSet: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes each attribute by its type. A value that does not decode as its type (a date
    /// stored by an older build outside `AttributeValue.supportedDates`, a count that SQLite
    /// turned into a REAL) is kept as the JSON gave it, a string or a number, rather than failing
    /// the whole set: one bad value made `fsindex show` fail and `--json` drop every attribute
    /// of its item (issue 22, F15).
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        var values: [AttributeKey: AttributeValue] = [:]
        for k in c.allKeys {
            let key = AttributeKey(k.stringValue)
            if let type = key.valueType, let typed = try? Self.decode(k, as: type, c) {
                values[key] = typed
            } else {
                values[key] = try Self.inferred(k, c)
            }
        }
        self.values = values
    }

    private static func decode(_ k: Key, as type: AttributeValueType, _ c: KeyedDecodingContainer<Key>) throws -> AttributeValue {
        switch type {
        case .date:
            let s = try c.decode(String.self, forKey: k)
            guard let d = AttributeValue.parseISO8601(s), AttributeValue.supportedDates.contains(d) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "not an ISO 8601 date of the years 0001 to 9999: \(s)")
            }
            return .date(d)
        case .integer: return .integer(try c.decode(Int64.self, forKey: k))
        case .double: return .double(try c.decode(Double.self, forKey: k))
        case .bool: return .bool(try c.decode(Bool.self, forKey: k))
        case .strings: return .strings(try c.decode([String].self, forKey: k))
        case .string: return .string(try c.decode(String.self, forKey: k))
        }
    }

    /// A value by its JSON type: attributes of names we do not know, and values that are not of
    /// their attribute's type.
    private static func inferred(_ k: Key, _ c: KeyedDecodingContainer<Key>) throws -> AttributeValue {
        if let b = try? c.decode(Bool.self, forKey: k) { return .bool(b) }
        if let i = try? c.decode(Int64.self, forKey: k) { return .integer(i) }
        if let d = try? c.decode(Double.self, forKey: k) { return .double(d) }
        if let a = try? c.decode([String].self, forKey: k) { return .strings(a) }
        return .string(try c.decode(String.self, forKey: k))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for key in keys {
            let k = Key(stringValue: key.rawValue)
            switch values[key]! {
            case .string(let s): try c.encode(s, forKey: k)
            case .strings(let a): try c.encode(a, forKey: k)
            case .integer(let i): try c.encode(i, forKey: k)
            case .double(let d): try c.encode(d, forKey: k)
            case .bool(let b): try c.encode(b, forKey: k)
            case .date(let d): try c.encode(AttributeValue.iso8601(d), forKey: k)
            }
        }
    }
}
