import FoundationEssentials

/// Small parsers for metadata values found in text formats (front matter, Dublin Core, meta
/// tags): dates, coordinates and lists.
///
/// For example:
/// ```swift
/// MetadataValues.date("2024-03-05")                 // 2024-03-05T00:00:00Z
/// MetadataValues.date("2000-12-01T10:30:00+02:00")  // 2000-12-01T08:30:00Z
/// MetadataValues.coordinates("50.1, 8.6")           // (50.1, 8.6)
/// MetadataValues.list("[a, \"b c\"]")               // ["a", "b c"]
/// ```
enum MetadataValues {
    /// A date written as `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally followed by `T` or a space
    /// and `HH:MM[:SS[.fff]]` and `Z` or `±HH[:]MM`. Without a zone the time is taken as UTC.
    /// Nil for anything else (free text such as "15 ноября 2002г." is not guessed).
    static func date(_ text: String) -> Date? {
        let s = Array(text.trimmingSpaces().utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var v = 0
            for k in i..<(i + digits) {
                guard s[k] >= 0x30, s[k] <= 0x39 else { return nil }
                v = v * 10 + Int(s[k] - 0x30)
            }
            i += digits
            return v
        }
        func take(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), year >= 1000 else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0.0, offset = 0
        if take(UInt8(ascii: "-")) {
            guard let m = number(2), (1...12).contains(m) else { return nil }
            month = m
            if take(UInt8(ascii: "-")) {
                guard let d = number(2), (1...31).contains(d) else { return nil }
                day = d
                if take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) {
                    guard let h = number(2), h < 24, take(UInt8(ascii: ":")), let mi = number(2), mi < 60 else { return nil }
                    hour = h
                    minute = mi
                    if take(UInt8(ascii: ":")) {
                        guard let sec = number(2), sec <= 60 else { return nil }
                        second = Double(sec)
                        if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                            var scale = 0.1
                            while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
                                second += Double(s[i] - 0x30) * scale
                                scale /= 10
                                i += 1
                            }
                        }
                    }
                    if take(UInt8(ascii: "Z")) {
                    } else if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                        let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                        i += 1
                        guard let oh = number(2) else { return nil }
                        _ = take(UInt8(ascii: ":"))
                        let om = number(2) ?? 0
                        offset = sign * (oh * 3600 + om * 60)
                    }
                }
            }
        }
        guard i == s.count else { return nil }
        // Days since 1970-01-01 (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }

    /// `lat, lon` or `lat;lon` (decimal degrees) as a checked pair.
    static func coordinates(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == ";" }).map { String($0).trimmingSpaces() }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        return (lat, lon)
    }

    /// A YAML/TOML flow list `[a, "b"]`, or a comma-separated string, as trimmed unquoted items.
    static func list(_ text: String) -> [String] {
        var t = text.trimmingSpaces()
        if t.hasPrefix("["), t.hasSuffix("]") { t = String(t.dropFirst().dropLast()) }
        return t.split(separator: ",").map { unquoted(String($0).trimmingSpaces()) }.filter { !$0.isEmpty }
    }

    /// The text without one pair of enclosing `"` or `'`.
    static func unquoted(_ s: String) -> String {
        if s.count >= 2, let f = s.first, let l = s.last, (f == "\"" && l == "\"") || (f == "'" && l == "'") {
            return String(s.dropFirst().dropLast())
        }
        return s
    }
}
