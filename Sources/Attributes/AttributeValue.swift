import FoundationEssentials

/// One attribute's value. Dates are absolute instants; integers are 64-bit.
package enum AttributeValue: Sendable, Hashable {
    case string(String)
    case strings([String])
    case integer(Int64)
    case double(Double)
    case date(Date)
    case bool(Bool)

    package var stringValue: String? {
        switch self {
        case .string(let s): s
        case .strings(let a): a.joined(separator: ", ")
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .date(let d): AttributeValue.iso8601(d)
        case .bool(let b): String(b)
        }
    }

    package var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .double(let d): Int64(exactly: d.rounded())
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }

    package var dateValue: Date? {
        if case .date(let d) = self { return d }
        return nil
    }

    /// Every string this value holds (one for `.string`, all for `.strings`), for full text.
    package var textValues: [String] {
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
    package static func iso8601(_ date: Date) -> String {
        // Years 1600 to 9999 with integer arithmetic (the proleptic Gregorian calendar; the
        // formatter's calendar is Julian before October 1582): the formatter cost 7 % of
        // fsindexd's CPU while it wrote a first crawl's names. Same text, which a test checks.
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        if ms.isFinite, ms >= -11_676_096_000_000, ms < 253_402_300_800_000 {
            return iso8601(milliseconds: Int64(ms))
        }
        return formattedISO8601(date)
    }

    /// `iso8601` by Foundation's formatter, for any date.
    static func formattedISO8601(_ date: Date) -> String {
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

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` of milliseconds since 1970 (UTC), by the days-to-civil algorithm
    /// of H. Hinnant's `chrono` date algorithms.
    static func iso8601(milliseconds total: Int64) -> String {
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let fraction = total - seconds * 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func put(_ v: Int64, _ width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var v = v
            for i in stride(from: width - 1, through: 0, by: -1) { digits[i] = UInt8(ascii: "0") + UInt8(v % 10); v /= 10 }
            out.append(contentsOf: digits)
        }
        put(year, 4); out.append(UInt8(ascii: "-")); put(month, 2); out.append(UInt8(ascii: "-")); put(day, 2)
        out.append(UInt8(ascii: "T")); put(ofDay / 3600, 2); out.append(UInt8(ascii: ":")); put(ofDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":")); put(ofDay % 60, 2); out.append(UInt8(ascii: ".")); put(fraction, 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The dates an attribute may hold: the years 0001 to 9999 as `iso8601` writes them, ISO
    /// 8601's four-digit years. Outside them a date has no text that `parseISO8601` reads back,
    /// so the index could store it but not read it (issue 22, F15). The lower bound is what
    /// `parseISO8601` makes of `0001-01-01T00:00:00Z`, so that the text itself is taken.
    package static let supportedDates: Range<Date> = {
        let first = parseISO8601("0001-01-01T00:00:00Z") ?? Date(timeIntervalSince1970: -62_135_596_800)
        return first..<Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01T00:00:00Z
    }()

    /// `supportedDates` for messages.
    package static let supportedDatesText = "0001-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z"

    /// Parses the ISO 8601 forms we write (with or without fractional seconds).
    package static func parseISO8601(_ text: String) -> Date? {
        if let d = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) {
            return d
        }
        return try? Date(text, strategy: .iso8601)
    }
}
