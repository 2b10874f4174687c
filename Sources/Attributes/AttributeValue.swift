import FoundationEssentials

/// One attribute's value. Dates are absolute instants; integers are 64-bit.
public enum AttributeValue: Sendable, Hashable {
    case string(String)
    case strings([String])
    case integer(Int64)
    case double(Double)
    case date(Date)
    case bool(Bool)

    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .strings(let a): a.joined(separator: ", ")
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .date(let d): AttributeValue.iso8601(d)
        case .bool(let b): String(b)
        }
    }

    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .double(let d): Int64(exactly: d.rounded())
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }

    public var dateValue: Date? {
        if case .date(let d) = self { return d }
        return nil
    }

    /// Every string this value holds (one for `.string`, all for `.strings`), for full text.
    public var textValues: [String] {
        switch self {
        case .string(let s): [s]
        case .strings(let a): a
        default: []
        }
    }

    /// ISO 8601 with milliseconds in UTC, the form used in JSON output and storage.
    public static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)
            .timeZone(separator: .omitted).dateSeparator(.dash).timeSeparator(.colon))
    }

    /// Parses the ISO 8601 forms we write (with or without fractional seconds).
    public static func parseISO8601(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) {
            return d
        }
        return try? Date(text, strategy: .iso8601)
    }
}
