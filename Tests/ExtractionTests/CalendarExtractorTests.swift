import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("CalendarExtractor", .blocking)
struct CalendarExtractorTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// One event with folded lines (a CRLF and a space, and a tab), a TZID, escapes, an
    /// organizer and attendees, an alarm whose DESCRIPTION is not the event's.
    static let one = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
        "BEGIN:VEVENT", "UID:1@test",
        "SUMMARY:Quarterly budget revi", " ew with the board",
        "DTSTART;TZID=Europe/Paris:20261127T090000",
        "DTEND;TZID=Europe/Paris:20261127T103000",
        "LOCATION:Room 4\\, old library",
        "DESCRIPTION:Bring the figures.\\nAnd the", "\tdraft\\; both.",
        "ORGANIZER;CN=Ada Lovelace:mailto:ada@example.org",
        "ATTENDEE;CN=\"Babbage, Charles\";ROLE=REQ-PARTICIPANT:mailto:charles@example.org",
        "ATTENDEE:mailto:bob@example.org",
        "RRULE:FREQ=WEEKLY;BYDAY=FR",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "END:VALARM",
        "END:VEVENT", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    func extractICS(_ text: String, name: String = "event.ics") throws -> ExtractionResult {
        let tree = try TemporaryTree(prefix: "fsindex-ics")
        try tree.create(name, contents: text)
        return try extract(tree.path(name))
    }

    @Test("one event: folded lines, TZID, escapes, location, organizer and attendees, the rule; the alarm left out")
    func oneEvent() throws {
        let r = try extractICS(Self.one)
        #expect(r.extractor == "calendar")
        let a = r.attributes
        #expect(a.title == "Quarterly budget review with the board")
        #expect(a.date(.startDate) == Self.at("2026-11-27T08:00:00Z"))   // Paris is UTC+1 in November
        #expect(a.date(.endDate) == Self.at("2026-11-27T09:30:00Z"))
        #expect(a[.allDay] == .bool(false))
        #expect(a.string(.namedLocation) == "Room 4, old library")
        #expect(a.textContent == "Bring the figures.\nAnd thedraft; both.")
        #expect(a.strings(.participants) == ["Ada Lovelace <ada@example.org>", "Babbage, Charles <charles@example.org>", "bob@example.org"])
        #expect(a.string(.recurrenceRule) == "FREQ=WEEKLY;BYDAY=FR")
        #expect(r.children.isEmpty)
    }

    @Test("a real calendar from another project's test files: its event's summary, times, location and description",
          .realCorpus)
    func realCalendar() throws {
        let r = try extractReal("misc/testICalendar.ics")
        #expect(r.extractor == "calendar")
        let a = r.attributes
        #expect(a.contentType == ContentType(rawValue: "public.calendar-event"))
        #expect(a.title == "Susi Hyldgaard - Festival International de Jazz de Montréal")
        #expect(a.date(.startDate) == Self.at("2001-07-01T21:30:00Z"))
        #expect(a.date(.endDate) == Self.at("2001-07-01T22:30:00Z"))
        #expect(a.string(.namedLocation) == "Banque Nationale Stage ()")
        #expect(a.textContent?.contains("SUSI HYLDGAARD\n\nAs the new millennium opens") == true)
    }

    @Test("several events are child items; UTC, floating, all-day DATE values and DURATION")
    func severalEvents() throws {
        let text = [
            "BEGIN:VCALENDAR", "X-WR-CALNAME:Team", "BEGIN:VTIMEZONE", "TZID:Europe/Paris", "BEGIN:STANDARD",
            "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
            "BEGIN:VEVENT", "SUMMARY:Launch", "DTSTART:20261201T140000Z", "DURATION:PT1H30M", "END:VEVENT",
            "BEGIN:VEVENT", "SUMMARY:Holiday", "DTSTART;VALUE=DATE:20261224", "END:VEVENT",
            "BEGIN:VEVENT", "SUMMARY:Floating", "DTSTART:20261202T100000", "END:VEVENT",
            "END:VCALENDAR",
        ].joined(separator: "\n")
        let r = try extractICS(text)
        #expect(r.attributes.title == "Team")
        #expect(r.attributes.textContent?.contains("Launch") == true && r.attributes[.startDate] == nil)
        try #require(r.children.map(\.key) == ["event/1", "event/2", "event/3"])
        let launch = r.children[0].attributes, holiday = r.children[1].attributes, floating = r.children[2].attributes
        #expect(launch.title == "Launch" && launch.contentType == "public.calendar-event")
        #expect(launch.date(.startDate) == Self.at("2026-12-01T14:00:00Z") && launch.date(.endDate) == Self.at("2026-12-01T15:30:00Z"))
        // A DATE is a whole day from local midnight, ending the next day.
        var local = Calendar(identifier: .gregorian)
        local.timeZone = .current
        let midnight = local.date(from: DateComponents(year: 2026, month: 12, day: 24))
        #expect(holiday[.allDay] == .bool(true) && holiday.date(.startDate) == midnight)
        #expect(holiday.date(.endDate) == midnight?.addingTimeInterval(86_400))
        #expect(floating.date(.startDate) == local.date(from: DateComponents(year: 2026, month: 12, day: 2, hour: 10)))
    }

    @Test("unfolding, durations and content lines, directly")
    func parts() {
        #expect(CalendarExtractor.unfold("A:1\r\n 2\r\nB:3\n\t4") == ["A:12", "B:34"])
        #expect(CalendarExtractor.duration("PT1H30M") == 5400 && CalendarExtractor.duration("P2W") == 14 * 86_400)
        #expect(CalendarExtractor.duration("-PT15M") == -900 && CalendarExtractor.duration("P1X") == nil)
        let line = CalendarExtractor.contentLine("attendee;cn=\"A;B:C\":mailto:x@y")
        #expect(line?.name == "ATTENDEE" && line?.parameters["CN"] == "A;B:C" && line?.value == "mailto:x@y")
    }

    @Test("text without a VCALENDAR holds no calendar (the extractor then reports it malformed)")
    func notACalendar() {
        let parsed = CalendarExtractor.parse("hello, this is not a calendar\nSUMMARY:x\n")
        #expect(!parsed.sawCalendar && parsed.events.isEmpty)
    }
}
