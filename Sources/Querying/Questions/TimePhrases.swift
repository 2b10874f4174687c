import Foundation

/// Times as people say them in a query: "yesterday", "last week", "in March", "since Monday",
/// "past 3 days". Each becomes the `modified:` value it means, so "photos from last week" is
/// `photos from modified:last_week` (the stop word "from" then matters only as typed).
///
/// Only free words are read so (not quoted text, not a field's value), and only a phrase at
/// the start or the end of a query with other terms: "yesterday" alone is a search for the
/// word, as a file may be named so, and in "days between my birthday and today in Python" the
/// word is what the question is about (a question of the dev set that found nothing when
/// "today" was read as a date).
package enum TimePhrases {
    /// A phrase that starts at `words[0]`: the `modified:` value and how many words it took.
    /// `clock` says what "now" is and the calendar (weeks, the months' names are English).
    package static func match(_ words: [String], clock: QueryClock) -> (value: String, count: Int)? {
        let w = words.prefix(4).map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ",.;!?")) }
        guard let first = w.first else { return nil }
        switch first {
        case "today", "yesterday": return (first, 1)
        case "this", "last":
            guard w.count >= 2 else { return nil }
            if ["week", "month", "year"].contains(w[1]) { return ("\(first)_\(w[1])", 2) }
            if first == "last", w.count >= 3, let n = Int(w[1]), n > 0, n < 10_000, let unit = unit(w[2]) { return ("<\(n)\(unit)", 3) }
            return nil
        case "past":
            if w.count >= 3, let n = Int(w[1]), n > 0, n < 10_000, let unit = unit(w[2]) { return ("<\(n)\(unit)", 3) }
            if w.count >= 2, let unit = unit(w[1]) { return ("<1\(unit)", 2) }
            return nil
        case "in", "during":
            guard w.count >= 2, let month = months[w[1]] else { return nil }
            if w.count >= 3, let year = Int(w[2]), (1900...2999).contains(year) { return (String(format: "%04d-%02d", year, month), 3) }
            return (String(format: "%04d-%02d", latestYear(of: month, clock: clock), month), 2)
        case "since":
            guard w.count >= 2 else { return nil }
            if let month = months[w[1]] {
                if w.count >= 3, let year = Int(w[2]), (1900...2999).contains(year) { return (String(format: ">=%04d-%02d", year, month), 3) }
                return (String(format: ">=%04d-%02d", latestYear(of: month, clock: clock), month), 2)
            }
            if let weekday = weekdays[w[1]], let day = latest(weekday: weekday, clock: clock) { return (">=" + day, 2) }
            if let year = Int(w[1]), (1900...2999).contains(year) { return (">=\(year)", 2) }
            if w[1] == "yesterday" { return (">=yesterday", 2) }
            return nil
        default: return nil
        }
    }

    static func unit(_ word: String) -> String? {
        switch word {
        case "day", "days": "d"
        case "week", "weeks": "w"
        case "month", "months": "m"
        case "year", "years": "y"
        default: nil
        }
    }

    static let months: [String: Int] = [
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
        "september": 9, "october": 10, "november": 11, "december": 12,
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    ]

    static let weekdays: [String: Int] = [
        "sunday": 1, "monday": 2, "tuesday": 3, "wednesday": 4, "thursday": 5, "friday": 6, "saturday": 7,
    ]

    /// The year of the latest `month` that has begun: "in March" said in January is last March.
    static func latestYear(of month: Int, clock: QueryClock) -> Int {
        let now = clock.calendar.dateComponents([.year, .month], from: clock.now)
        let year = now.year ?? 2000
        return month <= (now.month ?? 12) ? year : year - 1
    }

    /// The latest `weekday` (1 Sunday … 7 Saturday) before today, as `YYYY-MM-DD`: "since
    /// Monday" said on a Monday means a week ago.
    static func latest(weekday: Int, clock: QueryClock) -> String? {
        let cal = clock.calendar
        let today = cal.startOfDay(for: clock.now)
        for back in 1...7 {
            guard let day = cal.date(byAdding: .day, value: -back, to: today) else { return nil }
            if cal.component(.weekday, from: day) == weekday {
                let c = cal.dateComponents([.year, .month, .day], from: day)
                return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
            }
        }
        return nil
    }
}
