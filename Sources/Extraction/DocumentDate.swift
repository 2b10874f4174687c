import FoundationEssentials

/// Dates written in document metadata (W3CDTF / ISO 8601 as OOXML, OpenDocument and EPUB use
/// them): `2009`, `2009-10`, `2009-10-07`, `2009-10-07T21:22:38`, with optional fractional
/// seconds and `Z` or `±hh:mm`. A date without a zone is read as UTC.
///
/// For example, `DocumentDate.parse("2008-12-11T16:04:00Z")` is 2008-12-11 16:04 UTC, and
/// `DocumentDate.parse("2009-10-07")` is midnight UTC of that day. Anything else gives nil.
enum DocumentDate {
    static func parse(_ text: String) -> Date? {
        let s = Array(text.trimmingSpaces().utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var v = 0
            for k in 0..<digits {
                let c = s[i + k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += digits
            return v
        }
        func take(_ c: Character) -> Bool {
            if i < s.count, s[i] == c.asciiValue! { i += 1; return true }
            return false
        }
        guard let year = number(4), year >= 1 else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0.0, offset = 0
        if take("-") {
            guard let m = number(2), (1...12).contains(m) else { return nil }
            month = m
            if take("-") {
                guard let d = number(2), (1...31).contains(d) else { return nil }
                day = d
                if take("T") || take(" ") {
                    guard let h = number(2), h <= 24, take(":"), let mi = number(2), mi < 60 else { return nil }
                    hour = h
                    minute = mi
                    if take(":") {
                        guard let sec = number(2), sec <= 60 else { return nil }
                        second = Double(sec)
                        if take(".") || take(",") {
                            var scale = 0.1
                            while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
                                second += Double(s[i] - 0x30) * scale
                                scale /= 10
                                i += 1
                            }
                        }
                    }
                    if take("Z") {
                    } else if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                        let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                        i += 1
                        guard let oh = number(2) else { return nil }
                        _ = take(":")
                        let om = number(2) ?? 0
                        offset = sign * (oh * 3600 + om * 60)
                    }
                }
            }
        }
        guard i == s.count else { return nil }
        // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
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
}
