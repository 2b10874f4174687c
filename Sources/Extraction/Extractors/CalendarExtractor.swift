import Attributes
import ExtractionModel
import FoundationEssentials

/// iCalendar files (`.ics`, `text/calendar`, RFC 5545): each `VEVENT` with Core Spotlight's
/// event attributes: `title` (SUMMARY), `startDate`, `endDate`, `allDay`, `namedLocation`
/// (LOCATION), `participants` (ATTENDEE and ORGANIZER, as `Name <address>`), `recurrenceRule`
/// (RRULE, as written) and `textContent` (DESCRIPTION).
///
/// A key design decision: a file with one event is that event (its attributes are the file's);
/// a file with several (a calendar's export) gives one child item per event (`event/1`,
/// `event/2`, ... in file order), as an mbox gives one per message, so that each event is found,
/// and suggested when it starts soon, on its own; the file itself then gets the calendar's name
/// (`X-WR-CALNAME`) as title and the events' summaries as text. Storing only the next upcoming
/// event instead would go stale the day it passed, until the file changed. A repeating event is
/// stored once with its rule: `Suggester` computes the next occurrence when asked.
///
/// Lines are unfolded first (a line that starts with a space or tab continues the one before);
/// text values are unescaped (`\n`, `\,`, `\;`, `\\`). Times: `…Z` is UTC; `TZID=Europe/Paris`
/// is that zone (an identifier the system's zoneinfo knows; a calendar's own `VTIMEZONE`
/// definitions are not read, so an unknown TZID is taken as floating); a floating time (no zone)
/// is taken in the worker's zone (the system's); a `DATE` value (`VALUE=DATE`, or 8 digits) is a
/// whole day from local midnight, `allDay` true, ending the next day when DTEND is absent.
/// DTEND, else DURATION (`PT1H30M`, `P1D`, `P2W`), gives `endDate`.
///
/// For example, `BEGIN:VEVENT / SUMMARY:Standup / DTSTART;TZID=Europe/Paris:20261127T090000 /
/// END:VEVENT` gives `title` "Standup" and `startDate` 2026-11-27T08:00:00Z.
///
/// Cost: linear in the bytes; at most `maxEvents` events are read.
package struct CalendarExtractor: Extractor {
    package var name: String { "calendar" }
    package init() {}

    static let calendarType: ContentType = "public.calendar-event"
    static let maxEvents = 10_000

    package func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: Self.calendarType) || input.mimeType == "text/calendar"
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        var output = ExtractionOutput(attributes: attributes)
        try extract(input, into: &output)
        attributes = output.attributes
    }

    package func extract(_ input: ExtractionInput, into output: inout ExtractionOutput) throws(ExtractionError) {
        let text = String(decoding: input.bytes, as: UTF8.self)
        let calendar = Self.parse(text)
        guard !calendar.events.isEmpty || calendar.sawCalendar else {
            throw .malformed(extractor: name, reason: "no VCALENDAR found; an iCalendar file starts with BEGIN:VCALENDAR")
        }
        if calendar.events.count == 1 {
            calendar.events[0].apply(to: &output.attributes)
            return
        }
        if let title = calendar.name { output.attributes[.title] = .string(title) }
        var summary = TextBuffer(cap: input.textCap)
        for (n, event) in calendar.events.enumerated() {
            var child = AttributeSet()
            event.apply(to: &child)
            child.contentType = Self.calendarType
            child.contentTypeTree = input.contentTypeTree.contains(Self.calendarType) ? input.contentTypeTree : [Self.calendarType, .text]
            child[.mimeType] = .string("text/calendar")
            child.kind = "Calendar event"
            child[.name] = .string(event.summary ?? "(no title)")
            output.children.append(ChildItem(key: "event/\(n + 1)", attributes: child))
            summary.breakLine()
            summary.append(event.summary ?? "")
        }
        if calendar.events.count > 1 {
            let (text, full) = summary.result
            output.attributes[.textContent] = .string(text)
            if !full { output.attributes[.textTruncated] = .bool(true) }
        }
    }

    // MARK: Parsing

    /// One content line: `NAME;PARAM=VALUE:value`.
    struct Line {
        var name: String
        var parameters: [String: String]
        var value: String
    }

    /// What `parse` finds.
    struct ParsedCalendar {
        var name: String?
        var events: [Event] = []
        var sawCalendar = false
    }

    /// One VEVENT.
    struct Event: Equatable {
        var summary: String?
        var description: String?
        var location: String?
        var start: Date?
        var end: Date?
        var duration: TimeInterval?
        var allDay = false
        var participants: [String] = []
        var rule: String?

        func apply(to a: inout AttributeSet) {
            if let summary { a[.title] = .string(summary) }
            if let description { a[.textContent] = .string(description) }
            if let location { a[.namedLocation] = .string(location) }
            if let start {
                a[.startDate] = .date(start)
                a[.allDay] = .bool(allDay)
                if let end = end ?? duration.map({ start.addingTimeInterval($0) }) ?? (allDay ? start.addingTimeInterval(86_400) : nil) {
                    a[.endDate] = .date(end)
                }
            }
            if !participants.isEmpty { a[.participants] = .strings(participants) }
            if let rule { a[.recurrenceRule] = .string(rule) }
        }
    }

    /// The calendar's events, from its unfolded lines (`VALARM`s and `VTIMEZONE`s skipped).
    static func parse(_ text: String, localZone: ZoneInfo? = ZoneInfo.local()) -> ParsedCalendar {
        var calendar = ParsedCalendar()
        var event: Event?
        var depth = 0   // components open inside the VEVENT (VALARM)
        for raw in unfold(text) {
            guard let line = contentLine(raw) else { continue }
            switch line.name {
            case "BEGIN":
                let component = line.value.uppercased()
                if component == "VCALENDAR" { calendar.sawCalendar = true }
                if event != nil { depth += 1 } else if component == "VEVENT", calendar.events.count < maxEvents { event = Event() }
                continue
            case "END":
                if event != nil {
                    if depth > 0 { depth -= 1 } else if line.value.uppercased() == "VEVENT" {
                        calendar.events.append(event!)
                        event = nil
                    }
                }
                continue
            default: break
            }
            if event == nil {
                if line.name == "X-WR-CALNAME" { calendar.name = unescape(line.value) }
                continue
            }
            guard depth == 0 else { continue }
            switch line.name {
            case "SUMMARY": event!.summary = unescape(line.value)
            case "DESCRIPTION": event!.description = unescape(line.value)
            case "LOCATION": event!.location = unescape(line.value)
            case "DTSTART":
                if let value = dateTime(line, localZone: localZone) { event!.start = value.0; event!.allDay = value.1 }
            case "DTEND": event!.end = dateTime(line, localZone: localZone)?.0
            case "DURATION": event!.duration = duration(line.value)
            case "RRULE": event!.rule = line.value
            case "ATTENDEE", "ORGANIZER":
                let address = line.value.lowercased().hasPrefix("mailto:") ? String(line.value.dropFirst(7)) : line.value
                let person = line.parameters["CN"].map { "\($0) <\(address)>" } ?? address
                if !person.isEmpty, !event!.participants.contains(person) { event!.participants.append(person) }
            default: break
            }
        }
        return calendar
    }

    /// The logical lines: a CRLF (or LF) followed by a space or tab is removed with that one
    /// character (RFC 5545 3.1).
    static func unfold(_ text: String) -> [String] {
        var lines: [String] = []
        for physical in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let first = physical.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += physical.dropFirst()
            } else {
                lines.append(String(physical))
            }
        }
        return lines
    }

    /// `NAME;P1=V1;P2="V:2":value`: the name and parameter names uppercased, quotes removed.
    static func contentLine(_ raw: String) -> Line? {
        var quoted = false
        var colon: String.Index?
        for i in raw.indices {
            if raw[i] == "\"" { quoted.toggle() } else if raw[i] == ":", !quoted { colon = i; break }
        }
        guard let colon else { return nil }
        var parts: [String] = []
        var current = ""
        quoted = false
        for c in raw[..<colon] {
            if c == "\"" { quoted.toggle(); continue }
            if c == ";", !quoted { parts.append(current); current = ""; continue }
            current.append(c)
        }
        parts.append(current)
        var parameters: [String: String] = [:]
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { parameters[kv[0].uppercased()] = String(kv[1]) }
        }
        return Line(name: parts[0].uppercased(), parameters: parameters, value: String(raw[raw.index(after: colon)...]))
    }

    /// A TEXT value with its escapes undone.
    static func unescape(_ value: String) -> String {
        var out = ""
        var escaped = false
        for c in value {
            if escaped {
                out.append(c == "n" || c == "N" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// A DATE or DATE-TIME value and whether it is a whole day.
    static func dateTime(_ line: Line, localZone: ZoneInfo?) -> (Date, Bool)? {
        let v = String(line.value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let digits = v.filter { $0.isNumber }
        let isDay = line.parameters["VALUE"]?.uppercased() == "DATE" || (digits.count == 8 && !v.contains("T"))
        guard digits.count == 8 || digits.count == 14 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? { Int(String(digits.dropFirst(from).prefix(count))) }
        guard let year = number(0, 4), let month = number(4, 2), let day = number(6, 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = Int64(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if !isDay, digits.count == 14 {
            guard let h = number(8, 2), let m = number(10, 2), let sec = number(12, 2), h < 24, m < 60, sec < 61 else { return nil }
            seconds += Int64(h * 3600 + m * 60 + sec)
        }
        // The wall-clock time read as UTC, then moved by its zone: UTC (`Z`), the TZID's, or
        // (floating times and whole days) this process's own.
        let utc: Int64
        if !isDay, v.hasSuffix("Z") {
            utc = seconds
        } else if !isDay, let id = line.parameters["TZID"], let zone = ZoneInfo.named(id.hasPrefix("/") ? String(id.dropFirst()) : id) {
            utc = zone.utc(fromLocal: seconds)
        } else {
            utc = localZone?.utc(fromLocal: seconds) ?? seconds
        }
        return (Date(timeIntervalSince1970: Double(utc)), isDay)
    }

    /// A DURATION value (`PT1H30M`, `P1D`, `P2W`, `-PT15M`) in seconds.
    static func duration(_ value: String) -> TimeInterval? {
        var v = Substring(value.uppercased())
        var sign = 1.0
        if v.first == "-" { sign = -1; v = v.dropFirst() } else if v.first == "+" { v = v.dropFirst() }
        guard v.first == "P" else { return nil }
        var total = 0.0
        var number = ""
        var inTime = false
        for c in v.dropFirst() {
            if c.isNumber { number.append(c); continue }
            if c == "T" { inTime = true; continue }
            guard let n = Double(number) else { return nil }
            number = ""
            switch (c, inTime) {
            case ("W", false): total += n * 7 * 86_400
            case ("D", false): total += n * 86_400
            case ("H", true): total += n * 3600
            case ("M", true): total += n * 60
            case ("S", true): total += n
            default: return nil
            }
        }
        return number.isEmpty ? sign * total : nil
    }
}
