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
    ///
    /// The milliseconds are rounded here, not left to the formatter, which truncates: the parser
    /// reads `15.884` as 15.8839998 s, which the formatter wrote back as `15.883`, so a date lost
    /// a millisecond each time it crossed the worker pipe or the index's JSON (found by
    /// fsindex-fuzz worker-result). Rounded, `parseISO8601` and this are exact inverses.
    public static func iso8601(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: false)
            .timeZone(separator: .omitted).dateSeparator(.dash).timeSeparator(.colon)
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite, abs(ms) < 1e15 else {
            return date.formatted(style.time(includingFractionalSeconds: true))
        }
        let total = Int64(ms)
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let fraction = Int(total - seconds * 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(style)   // …T20:23:15Z
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses the ISO 8601 forms we write (with or without fractional seconds).
    public static func parseISO8601(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) {
            return d
        }
        return try? Date(text, strategy: .iso8601)
    }
}
