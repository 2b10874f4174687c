import FoundationEssentials
import MemberwiseInit

/// Finds the days a mail's text mentions, for the priority pass's `deadline` evidence
/// (`mentionedDates`): `2026-11-29`, `29 November [2026]`, `29th Nov`, `November 29[, 2026]`,
/// `Nov 29th` and `tomorrow`.
///
/// For example, in a message dated 2026-11-27, "please send it by 29 November" gives
/// `["2026-11-29"]`, and "tomorrow" gives `["2026-11-28"]`.
///
/// A key design decision: this is a small word scanner, not a natural-language date parser. It
/// knows English month names and the ISO form, which is what deadlines in mail mostly use, and it
/// never guesses between `11/12` as day/month or month/day. A day without a year takes the
/// message's year, or the next one when that would fall before the message. Only days from the
/// message's day to a year after it are kept (a date long past, or a birth date, says nothing
/// about what is due), at most `maximumDays` of them. Days are reckoned in UTC: the worker
/// has no time zone database in its sandbox, and a deadline is a day, not an instant.
///
/// Cost: one pass over the words of the text (at most `scannedCharacters` of it).
struct MentionedDates {
    static let maximumDays = 20
    /// Characters of text scanned: a deadline is stated near the top of a mail.
    static let scannedCharacters = 64 * 1024

    static let months: [String: Int] = {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"]
        var out: [String: Int] = [:]
        for (i, n) in names.enumerated() {
            out[n] = i + 1
            out[String(n.prefix(3))] = i + 1
        }
        out["sept"] = 9
        return out
    }()

    /// The days `text` mentions, as ISO 8601 days, in the order first mentioned; `sent` is the
    /// message's date (nil: only days with a year are kept, and `tomorrow` is not).
    static func find(in text: String, sent: Date?) -> [String] {
        let base = sent.map { CivilDay(unixSeconds: Int($0.timeIntervalSince1970.rounded(.down))) }
        let words = tokens(text.prefix(scannedCharacters))
        var found: [String] = []
        func keep(_ day: CivilDay?) {
            guard let day, day.isValid, found.count < maximumDays else { return }
            if let base {
                let n = day.dayNumber - base.dayNumber
                guard n >= 0, n <= 366 else { return }
            }
            let iso = day.iso
            if !found.contains(iso) { found.append(iso) }
        }
        /// A year-less day: the message's year, or the next one if that is before the message.
        func anchored(month: Int, day: Int) -> CivilDay? {
            guard let base else { return nil }
            let d = CivilDay(year: base.year, month: month, day: day)
            return d.dayNumber < base.dayNumber ? CivilDay(year: base.year + 1, month: month, day: day) : d
        }
        var i = 0
        while i < words.count, found.count < maximumDays {
            let w = words[i]
            defer { i += 1 }
            if let iso = isoDay(w) {
                keep(iso)
            } else if w == "tomorrow", let base {
                keep(CivilDay(dayNumber: base.dayNumber + 1))
            } else if i + 1 < words.count, let (day, month) = dayAndMonth(w, words[i + 1]) {
                // 29 November [2026], November 29[, 2026]
                if i + 2 < words.count, let year = year(words[i + 2]) {
                    keep(CivilDay(year: year, month: month, day: day))
                    i += 2
                } else {
                    keep(anchored(month: month, day: day))
                    i += 1
                }
            }
        }
        return found
    }

    /// Lowercased words: letters, digits and `-`; everything else separates.
    static func tokens(_ text: Substring) -> [String] {
        var out: [String] = []
        var word = ""
        for c in text.unicodeScalars {
            if c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" {
                word.unicodeScalars.append(c)
            } else if !word.isEmpty {
                out.append(word.lowercased())
                word = ""
            }
        }
        if !word.isEmpty { out.append(word.lowercased()) }
        return out
    }

    /// `29`, `29th`, `1st`, `2nd`, `3rd`: a day of the month.
    /// A day and a month in either order ("29 November", "November 29").
    static func dayAndMonth(_ a: String, _ b: String) -> (day: Int, month: Int)? {
        if let day = dayNumber(a), let month = months[b] { return (day, month) }
        if let month = months[a], let day = dayNumber(b) { return (day, month) }
        return nil
    }

    static func dayNumber(_ w: String) -> Int? {
        var digits = Substring(w)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            break
        }
        guard (1...2).contains(digits.count), let n = Int(digits), (1...31).contains(n) else { return nil }
        return n
    }

    static func year(_ w: String) -> Int? {
        guard w.count == 4, let n = Int(w), (1970...9999).contains(n) else { return nil }
        return n
    }

    /// `2026-11-29`.
    static func isoDay(_ w: String) -> CivilDay? {
        let parts = w.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1970...9999).contains(y) else { return nil }
        return CivilDay(year: y, month: m, day: d)
    }
}

/// A day of the proleptic Gregorian calendar, with its number counted from 1970-01-01 (Howard
/// Hinnant's algorithms).
@MemberwiseInit
struct CivilDay: Hashable {
    var year: Int
    var month: Int
    var day: Int

    init(unixSeconds: Int) {
        self.init(dayNumber: Int((Double(unixSeconds) / 86_400).rounded(.down)))
    }

    init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    var dayNumber: Int { daysFromCivil(year: year, month: month, day: day) }

    /// Whether the day exists (not 31 April, not 29 February of a common year).
    var isValid: Bool {
        (1...12).contains(month) && (1...31).contains(day) && CivilDay(dayNumber: dayNumber) == self
    }

    var iso: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}
