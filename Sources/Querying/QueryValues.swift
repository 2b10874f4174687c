import Foundation
import MemberwiseInit

/// The clock and calendar a query's dates are read against: `today`, `this_week` and
/// `2026-01-15` mean the user's local days (`TZ`), as in Spotlight and Recoll.
@MemberwiseInit
package struct QueryClock: Sendable {
    package var now: Date = Date()
    package var calendar: Calendar = .current
}

/// A span of time: from `start` (included) to `end` (excluded); either may be open.
package struct TimeSpan: Sendable, Hashable {
    package var start: Date?
    package var end: Date?
}

/// Reading dates, durations and sizes out of query text.
enum QueryValues {
    // MARK: Dates

    /// The instant of a `$time` value and, for the forms that name a period (`today`,
    /// `this_month`, `iso(2026-01-31)`), that period.
    static func resolve(_ t: TimeExpression, _ clock: QueryClock) -> (instant: Date, period: TimeSpan?)? {
        let cal = clock.calendar
        func period(_ unit: Calendar.Component, _ n: Int) -> (Date, TimeSpan?)? {
            guard let start = cal.dateInterval(of: unit, for: clock.now)?.start,
                  let moved = cal.date(byAdding: unit, value: n, to: start),
                  let end = cal.date(byAdding: unit, value: 1, to: moved) else { return nil }
            return (moved, TimeSpan(start: moved, end: end))
        }
        switch t {
        case .now(let offset): return (clock.now.addingTimeInterval(offset), nil)
        case .today(let days): return period(.day, days)
        case .yesterday: return period(.day, -1)
        case .thisWeek(let n): return period(.weekOfYear, n)
        case .thisMonth(let n): return period(.month, n)
        case .thisYear(let n): return period(.year, n)
        case .iso(let text):
            guard let span = date(text, clock) else { return nil }
            return (span.start!, span)
        }
    }

    /// `2026`, `2026-03`, `2026-03-15`, `2026-03-15T10:30`, `…:45`, `…:45.250`, with `Z` or
    /// `+02:00` after a time (else local time): the period the text names (a year, month, day,
    /// minute or second).
    static func date(_ text: String, _ clock: QueryClock) -> TimeSpan? {
        let s = Array(text.unicodeScalars)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                guard ("0"..."9").contains(s[k]) else { return nil }
                v = v * 10 + Int(s[k].value - 48)
            }
            i += n
            return v
        }
        func take(_ c: Unicode.Scalar) -> Bool {
            if i < s.count, s[i] == c { i += 1; return true }
            return false
        }
        var parts = DateComponents()
        var unit: Calendar.Component = .year
        guard let year = digits(4) else { return nil }
        parts.year = year
        if take("-") {
            guard let m = digits(2), (1...12).contains(m) else { return nil }
            parts.month = m
            unit = .month
            if take("-") {
                guard let d = digits(2), (1...31).contains(d) else { return nil }
                parts.day = d
                unit = .day
                if take("T") || take(" ") {
                    guard let h = digits(2), h < 24, take(":"), let mi = digits(2), mi < 60 else { return nil }
                    parts.hour = h
                    parts.minute = mi
                    unit = .minute
                    if take(":") {
                        guard let sec = digits(2), sec < 61 else { return nil }
                        parts.second = sec
                        unit = .second
                        if take(".") {
                            var frac = ""
                            while i < s.count, ("0"..."9").contains(s[i]) { frac.unicodeScalars.append(s[i]); i += 1 }
                            guard !frac.isEmpty else { return nil }
                            parts.nanosecond = Int((Double("0." + frac) ?? 0) * 1e9)
                        }
                    }
                    var cal = clock.calendar
                    if take("Z") {
                        cal.timeZone = TimeZone(secondsFromGMT: 0)!
                    } else if i < s.count, s[i] == "+" || s[i] == "-" {
                        let sign = s[i] == "-" ? -1 : 1
                        i += 1
                        guard let oh = digits(2) else { return nil }
                        _ = take(":")
                        let om = digits(2) ?? 0
                        guard let tz = TimeZone(secondsFromGMT: sign * (oh * 3600 + om * 60)) else { return nil }
                        cal.timeZone = tz
                    }
                    guard i == s.count, let start = cal.date(from: parts),
                          cal.component(.day, from: start) == parts.day,
                          let end = cal.date(byAdding: unit, value: 1, to: start) else { return nil }
                    return TimeSpan(start: start, end: end)
                }
            }
        }
        let cal = clock.calendar
        guard i == s.count, let start = cal.date(from: parts), let end = cal.date(byAdding: unit, value: 1, to: start) else { return nil }
        if let d = parts.day, cal.component(.day, from: start) != d { return nil }   // 2026-02-30
        return TimeSpan(start: start, end: end)
    }

    /// A duration such as `7d`, `12h`, `30min`, `2w`, `3m` (months), `1y`, as the instant that
    /// long before now.
    static func ago(_ text: String, _ clock: QueryClock) -> Date? {
        let lower = text.lowercased()
        let digits = lower.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let n = Int(digits), n < 100_000 else { return nil }
        let unit = lower.dropFirst(digits.count)
        let component: Calendar.Component
        switch unit {
        case "s", "sec", "secs", "second", "seconds": component = .second
        case "min", "mins", "minute", "minutes": component = .minute
        case "h", "hour", "hours": component = .hour
        case "d", "day", "days": component = .day
        case "w", "week", "weeks": component = .weekOfYear
        case "m", "mo", "month", "months": component = .month
        case "y", "year", "years": component = .year
        default: return nil
        }
        return clock.calendar.date(byAdding: component, value: -n, to: clock.now)
    }

    /// `today`, `yesterday`, `this_week`, `this_month`, `this_year`, `last_week`, `last_month`,
    /// `last_year`: the period.
    static func namedPeriod(_ text: String, _ clock: QueryClock) -> TimeSpan? {
        let t: TimeExpression
        switch text.lowercased().replacing("-", with: "_") {
        case "today": t = .today(days: 0)
        case "yesterday": t = .yesterday
        case "this_week", "thisweek": t = .thisWeek(0)
        case "this_month", "thismonth": t = .thisMonth(0)
        case "this_year", "thisyear": t = .thisYear(0)
        case "last_week", "lastweek": t = .thisWeek(-1)
        case "last_month", "lastmonth": t = .thisMonth(-1)
        case "last_year", "lastyear": t = .thisYear(-1)
        default: return nil
        }
        return resolve(t, clock)?.period
    }

    // MARK: Numbers and sizes

    /// A byte count such as `10MB`, `1.5G`, `512k`, `2KiB`, `4096`: k, M, G, T are powers of
    /// 1000 and Ki, Mi, Gi, Ti powers of 1024 (as `fd --size`); `B` is optional.
    /// Also returns the unit, for `size:10MB` meaning 10 MB up to 11 MB.
    static func size(_ text: String) -> (bytes: Double, unit: Double)? {
        let lower = text.lowercased()
        let number = lower.prefix { ($0.isASCII && $0.isNumber) || $0 == "." }
        guard !number.isEmpty, let n = Double(number), n >= 0 else { return nil }
        var unit = String(lower.dropFirst(number.count))
        if unit.hasSuffix("b") { unit.removeLast() }
        let scale: Double
        switch unit {
        case "": scale = 1
        case "k": scale = 1e3
        case "m": scale = 1e6
        case "g": scale = 1e9
        case "t": scale = 1e12
        case "ki": scale = 1024
        case "mi": scale = 1024 * 1024
        case "gi": scale = 1024 * 1024 * 1024
        case "ti": scale = 1024 * 1024 * 1024 * 1024
        default: return nil
        }
        return (n * scale, scale)
    }

    /// A length of time such as `90s`, `10m`, `1.5h`, `1h30m`, `1:30:00`, `2:05` or `600`
    /// (seconds), for `duration:` (issue 28): s, m (or min), h as seconds, minutes, hours.
    /// Also returns the unit of its last part, for `duration:10m` meaning 10 up to 11 minutes
    /// (a bare number is exact, as for other numbers).
    static func seconds(_ text: String) -> (seconds: Double, unit: Double)? {
        let lower = text.lowercased()
        if lower.contains(":") {
            let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count) else { return nil }
            var total = 0.0
            for (i, p) in parts.enumerated() {
                guard !p.isEmpty, let n = Double(p), n >= 0, n.isFinite, i == 0 || n < 60 else { return nil }
                total = total * 60 + n
            }
            return (total, 1)
        }
        var total = 0.0, unit = 1.0, rest = Substring(lower)
        guard !rest.isEmpty else { return nil }
        var bare = true
        while !rest.isEmpty {
            let number = rest.prefix { ($0.isASCII && $0.isNumber) || $0 == "." }
            guard !number.isEmpty, let n = Double(number), n.isFinite else { return nil }
            rest = rest.dropFirst(number.count)
            let word = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(word.count)
            switch word {
            case "": guard rest.isEmpty, bare else { return nil }; unit = 1
            case "s", "sec", "secs", "second", "seconds": unit = 1; bare = false
            case "m", "min", "mins", "minute", "minutes": unit = 60; bare = false
            case "h", "hr", "hrs", "hour", "hours": unit = 3600; bare = false
            default: return nil
            }
            total += n * unit
        }
        return (total, bare ? 1 : unit)
    }
}
