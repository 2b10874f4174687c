import Foundation

/// An iCalendar recurrence rule (RFC 5545 `RRULE`) in its simple forms, for the next occurrence
/// of a repeating event: `FREQ` (`DAILY`, `WEEKLY`, `MONTHLY`, `YEARLY`) with `INTERVAL`,
/// `COUNT`, `UNTIL`, and for weekly rules `BYDAY` with plain weekdays (`MO,WE,FR`).
///
/// For example:
/// ```swift
/// let rule = RecurrenceRule("FREQ=WEEKLY;BYDAY=MO,WE")!
/// rule.nextOccurrence(of: start, atOrAfter: now, calendar: .current)
/// ```
///
/// What it leaves: any other `BY…` part (`BYMONTHDAY`, `BYSETPOS`, `BYDAY=1MO`, ...),
/// `HOURLY` and finer rules, `RDATE` and `EXDATE`: such a rule is not parsed (`init` returns nil)
/// and the event counts by its first start only, rather than by a guess. `BYDAY` days are taken
/// as days after the first start's weekday (so `WKST` does not matter), and a monthly rule on
/// the 31st falls on the month's last day where the month is shorter (RFC 5545 would skip it).
/// Occurrences are computed in the calendar given (the user's time zone), so a weekly event at
/// 9:00 stays at 9:00 across a change to summer time.
package struct RecurrenceRule: Sendable, Hashable {
    package enum Frequency: String, Sendable, Hashable { case daily = "DAILY", weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY" }

    package var frequency: Frequency
    package var interval: Int = 1
    package var count: Int?
    package var until: Date?
    /// For a weekly rule: the days after the first start's weekday (0 to 6) it falls on, sorted.
    package var dayOffsets: [Int] = [0]

    /// Parses `text` (`FREQ=WEEKLY;INTERVAL=2;BYDAY=MO`); nil for a form it does not handle.
    /// `start` is the first occurrence, which `BYDAY` is relative to.
    package init?(_ text: String, start: Date = Date(timeIntervalSince1970: 0), calendar: Calendar = .current) {
        var frequency: Frequency?
        var interval = 1, count: Int?, until: Date?, offsets = [0]
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            let value = pair[1]
            switch pair[0].uppercased() {
            case "FREQ": frequency = Frequency(rawValue: value.uppercased())
            case "INTERVAL":
                guard let n = Int(value), n >= 1 else { return nil }
                interval = n
            case "COUNT":
                guard let n = Int(value), n >= 1 else { return nil }
                count = n
            case "UNTIL":
                guard let d = Self.date(value, calendar: calendar) else { return nil }
                until = d
            case "WKST": break
            case "BYDAY":
                let days = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
                var weekdays: [Int] = []
                for d in value.uppercased().split(separator: ",") {
                    guard let i = days.firstIndex(of: String(d)) else { return nil }   // `1MO`, `-1FR`: left
                    weekdays.append(i + 1)
                }
                let first = calendar.component(.weekday, from: start)
                offsets = Set(weekdays.map { ($0 - first + 7) % 7 }).sorted()
            default: return nil
            }
        }
        guard let frequency, offsets == [0] || frequency == .weekly else { return nil }
        self.frequency = frequency
        self.interval = interval
        self.count = count
        self.until = until
        self.dayOffsets = offsets
    }

    /// `UNTIL`'s value: a UTC time (`…Z`), a floating time, or a date (its end of day is inclusive).
    static func date(_ value: String, calendar: Calendar) -> Date? {
        let digits = value.filter(\.isNumber)
        guard digits.count == 8 || digits.count == 14 else { return nil }
        var c = DateComponents()
        c.year = Int(digits.prefix(4)); c.month = Int(digits.dropFirst(4).prefix(2)); c.day = Int(digits.dropFirst(6).prefix(2))
        c.hour = 23; c.minute = 59; c.second = 59
        if digits.count == 14 {
            c.hour = Int(digits.dropFirst(8).prefix(2)); c.minute = Int(digits.dropFirst(10).prefix(2)); c.second = Int(digits.dropFirst(12).prefix(2))
        }
        var cal = calendar
        if value.hasSuffix("Z") { cal.timeZone = TimeZone(identifier: "UTC")! }
        return cal.date(from: c)
    }

    /// The first occurrence of an event first starting at `start` that is at or after `date`;
    /// nil when the rule has ended by then.
    package func nextOccurrence(of start: Date, atOrAfter date: Date, calendar: Calendar) -> Date? {
        let unit: Calendar.Component, seconds: Double
        switch frequency {
        case .daily: (unit, seconds) = (.day, 86_400)
        case .weekly: (unit, seconds) = (.weekOfYear, 7 * 86_400)
        case .monthly: (unit, seconds) = (.month, 31 * 86_400)
        case .yearly: (unit, seconds) = (.year, 366 * 86_400)
        }
        // Jump close to `date` (a period or two early, for the calendar's irregular lengths)
        // rather than walking from a start years ago.
        var k = max(0, Int(((date.timeIntervalSince(start)) / (seconds * Double(interval))).rounded(.down)) - 2)
        for _ in 0..<4_096 {
            guard let base = calendar.date(byAdding: unit, value: k * interval, to: start) else { return nil }
            for (j, offset) in dayOffsets.enumerated() {
                if let count, k * dayOffsets.count + j >= count { return nil }
                guard let occurrence = offset == 0 ? base : calendar.date(byAdding: .day, value: offset, to: base) else { return nil }
                if let until, occurrence > until { return nil }
                if occurrence >= date { return occurrence }
            }
            k += 1
        }
        return nil
    }
}
