import ExtractionModel
import FoundationEssentials

/// Small parsers shared by the document extractors (PDF, RTF, OLE): calendar dates written as
/// fields or as ISO 8601 text, and name lists.
enum DocumentFields {
    /// The instant of a calendar date and time, read as UTC shifted by `offset` seconds east of
    /// Greenwich (`+02:00` is 7200). `nil` when a field is out of range.
    ///
    /// For example, `date(year: 2024, month: 2, day: 29)` is 2024-02-29T00:00:00Z.
    static func date(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Double = 0,
                     offset: Int = 0) -> Date? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...24).contains(hour), (0...59).contains(minute), second >= 0, second < 61 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }

    /// Parses the ISO 8601 (W3CDTF) dates of document metadata — XMP, OOXML, OpenDocument,
    /// EPUB, Dublin Core, front matter: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mm` (or a
    /// space for the `T`), `…:ss`, `…:ss.fff`, each optionally followed by `Z` or `±hh[:]mm`. A
    /// time without a zone is read as UTC. Anything else, free text included, gives nil. The one
    /// date parser of the extractors.
    ///
    /// For example, `"2010-06-30T14:01:54+02:00"` is 2010-06-30T12:01:54Z.
    static func iso8601(_ text: String) -> Date? {
        let s = Array(text.trimmingSpaces().utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var n = 0
            for k in i..<(i + digits) {
                guard s[k] >= 0x30 && s[k] <= 0x39 else { return nil }
                n = n * 10 + Int(s[k] - 0x30)
            }
            i += digits
            return n
        }
        func take(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4) else { return nil }
        var month = 1, day = 1, hour = 0, minute = 0, second = 0.0, offset = 0
        if take(UInt8(ascii: "-")) {
            guard let m = number(2) else { return nil }
            month = m
            if take(UInt8(ascii: "-")) {
                guard let d = number(2) else { return nil }
                day = d
                if take(UInt8(ascii: "T")) || take(UInt8(ascii: " ")) {
                    guard let h = number(2), take(UInt8(ascii: ":")), let mi = number(2) else { return nil }
                    hour = h
                    minute = mi
                    if take(UInt8(ascii: ":")) {
                        guard let sec = number(2) else { return nil }
                        second = Double(sec)
                        if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                            var scale = 0.1
                            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 {
                                second += Double(s[i] - 0x30) * scale
                                scale /= 10
                                i += 1
                            }
                        }
                    }
                    if take(UInt8(ascii: "Z")) {
                        offset = 0
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
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    /// Splits a free-text list (keywords) on commas and semicolons, trimming white space and
    /// dropping empty entries and repeats.
    ///
    /// For example, `"tika; pdf, test"` gives `["tika", "pdf", "test"]`.
    static func list(_ text: String, separators: Set<Character> = [",", ";"]) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for part in text.split(whereSeparator: { separators.contains($0) || $0 == "\n" || $0 == "\r" }) {
            let item = clean(String(part))
            if let item, seen.insert(item).inserted { out.append(item) }
        }
        return out
    }

    /// `text` with its white space runs collapsed to one space and trimmed; `nil` when nothing
    /// is left (or only NULs, as in padded OLE strings).
    static func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        var out = ""
        var space = false
        for scalar in text.unicodeScalars {
            if scalar == "\0" { continue }
            if scalar.properties.isWhitespace {
                space = !out.isEmpty
                continue
            }
            if space { out.unicodeScalars.append(" ") }
            space = false
            out.unicodeScalars.append(scalar)
        }
        return out.isEmpty ? nil : out
    }
}
