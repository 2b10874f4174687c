import Attributes
import Foundation
import Indexing
import Querying
import TestSupport
import Testing

@Suite("Suggestions with their reasons (issue 27)")
struct SuggesterTests {
    /// Friday 2026-11-27 15:30 UTC, the clock of every test here.
    static let now = Date(timeIntervalSince1970: 1_795_793_400)
    static var utc: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }

    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func event(_ path: String, _ title: String, start: Date, end: Date? = nil, rule: String? = nil) -> SearchableItem {
        var item = makeItem(path, domain: "/r", title: title, type: "public.calendar-event")
        item.attributes[.startDate] = .date(start)
        if let end { item.attributes[.endDate] = .date(end) }
        if let rule { item.attributes[.recurrenceRule] = .string(rule) }
        return item
    }

    static func note(_ path: String, edited: Date, type: ContentType = "net.daringfireball.markdown") -> SearchableItem {
        var item = makeItem(path, domain: "/r", text: "a note", type: type)
        item.attributes[.fsContentChangeDate] = .date(edited)
        return item
    }

    static func fixture() throws -> QueryFixture {
        let f = try QueryFixture([
            event("/r/standup.ics", "Standup", start: at("2026-11-27T16:30:00Z"), end: at("2026-11-27T16:45:00Z")),
            // Weekly since October, at 17:00 on Fridays: the next is today.
            event("/r/review.ics", "Review", start: at("2026-10-02T17:00:00Z"), end: at("2026-10-02T18:00:00Z"), rule: "FREQ=WEEKLY"),
            // Under way: started ten minutes ago, ends in twenty.
            event("/r/call.ics", "Call", start: at("2026-11-27T15:20:00Z"), end: at("2026-11-27T15:50:00Z")),
            event("/r/past.ics", "Past", start: at("2026-11-26T09:00:00Z"), end: at("2026-11-26T10:00:00Z")),
            event("/r/later.ics", "Later", start: at("2026-11-30T09:00:00Z")),
            // A weekly rule that ended in October.
            event("/r/ended.ics", "Ended", start: at("2026-10-02T17:00:00Z"), rule: "FREQ=WEEKLY;COUNT=3"),
            doc("/r/often.txt", text: "often"), doc("/r/lately.txt", text: "lately"),
            doc("/r/afternoon.txt", text: "afternoon"), doc("/r/fridays.txt", text: "fridays"),
            note("/r/notes.md", edited: at("2026-11-27T13:30:00Z")),
            note("/r/old.md", edited: at("2026-10-01T13:30:00Z")),
            note("/r/app.log", edited: at("2026-11-27T15:00:00Z"), type: .plainText),
        ] + [{
            // A note an app donated (`fsindex donate`): a note like a file.
            var donated = makeItem("notes:n-42", domain: "notes", title: "Groceries", text: "eggs", type: "net.daringfireball.markdown")
            donated.attributes[.contentModificationDate] = .date(at("2026-11-27T12:00:00Z"))
            return donated
        }()])
        let uses: [(String, String)] = [
            // frequent only: five uses, the last 20 days ago (past the recent window).
            ("/r/often.txt", "2026-11-07T10:00:00Z"), ("/r/often.txt", "2026-11-06T10:00:00Z"), ("/r/often.txt", "2026-11-05T10:00:00Z"),
            ("/r/often.txt", "2026-11-04T11:00:00Z"), ("/r/often.txt", "2026-11-03T12:00:00Z"),
            // recent only: once, an hour ago.
            ("/r/lately.txt", "2026-11-27T14:30:00Z"),
            // timeOfDay: at 15:xx on a Tuesday, a Sunday and a Wednesday.
            ("/r/afternoon.txt", "2026-11-24T15:10:00Z"), ("/r/afternoon.txt", "2026-11-22T15:40:00Z"), ("/r/afternoon.txt", "2026-11-18T15:05:00Z"),
            // dayOfWeek: two earlier Fridays, in the morning.
            ("/r/fridays.txt", "2026-11-20T08:00:00Z"), ("/r/fridays.txt", "2026-11-13T08:00:00Z"),
        ]
        try f.store.recordUses(uses.map { ItemUse(identifier: ItemIdentifier($0.0), date: at($0.1)) })
        return f
    }

    func suggestions(_ f: QueryFixture, limit: Int = 20) throws -> [String: [SuggestionReason]] {
        let list = try Suggester(now: Self.now, calendar: Self.utc).suggestions(limit: limit, in: f.store)
        return Dictionary(list.map { ($0.item.uniqueIdentifier.description, $0.reasons) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("each reason: eventSoon, frequent, recent, timeOfDay, dayOfWeek, noteEdited; nothing without a reason")
    func reasons() throws {
        let f = try Self.fixture()
        let s = try suggestions(f)
        #expect(s["/r/standup.ics"] == [.eventSoon(startsAt: Self.at("2026-11-27T16:30:00Z"))])
        #expect(s["/r/review.ics"] == [.eventSoon(startsAt: Self.at("2026-11-27T17:00:00Z"))], "the weekly rule's next occurrence")
        #expect(s["/r/call.ics"] == [.eventSoon(startsAt: Self.at("2026-11-27T15:20:00Z"))], "under way")
        #expect(s["/r/often.txt"] == [.frequent(uses: 5)])
        #expect(s["/r/lately.txt"] == [.recent(usedAt: Self.at("2026-11-27T14:30:00Z"))])
        #expect(s["/r/afternoon.txt"]?.contains(.timeOfDay(hour: 15, uses: 3)) == true, "\(s["/r/afternoon.txt"] ?? [])")
        #expect(s["/r/afternoon.txt"]?.contains { if case .dayOfWeek = $0 { true } else { false } } == false)
        #expect(s["/r/fridays.txt"]?.contains(.dayOfWeek(weekday: 6, uses: 2)) == true, "\(s["/r/fridays.txt"] ?? [])")
        #expect(s["/r/fridays.txt"]?.contains { if case .timeOfDay = $0 { true } else { false } } == false)
        #expect(s["/r/notes.md"] == [.noteEdited(editedAt: Self.at("2026-11-27T13:30:00Z"))])
        #expect(s["notes:n-42"] == [.noteEdited(editedAt: Self.at("2026-11-27T12:00:00Z"))])
        for absent in ["/r/past.ics", "/r/later.ics", "/r/ended.ics", "/r/old.md", "/r/app.log"] {
            #expect(s[absent] == nil, "\(absent): \(s[absent] ?? [])")
        }
    }

    @Test("merged and ranked: an item's reasons add up, the event under way first; limit and admit apply")
    func ranking() throws {
        let f = try Self.fixture()
        let suggester = Suggester(now: Self.now, calendar: Self.utc)
        let list = try suggester.suggestions(limit: 20, in: f.store)
        #expect(list.first?.item.uniqueIdentifier == ItemIdentifier("/r/call.ics"), "\(list.map(\.item.uniqueIdentifier))")
        #expect(list.map(\.score) == list.map(\.score).sorted(by: >))
        // afternoon.txt: timeOfDay + frequent (3 uses) + recent, more than lately.txt's one reason.
        let afternoon = try #require(list.first { $0.item.uniqueIdentifier == ItemIdentifier("/r/afternoon.txt") })
        let lately = try #require(list.first { $0.item.uniqueIdentifier == ItemIdentifier("/r/lately.txt") })
        #expect(afternoon.reasons.count == 3 && afternoon.score > lately.score, "\(afternoon.reasons)")
        #expect(try suggester.suggestions(limit: 2, in: f.store).count == 2)
        let onlyNotes = try suggester.suggestions(limit: 20, in: f.store) { $0.uniqueIdentifier.description.hasSuffix(".md") }
        #expect(onlyNotes.map(\.item.uniqueIdentifier.description) == ["/r/notes.md"])
        // The JSON the CLI and the MCP tool print: typed reasons with their evidence.
        let line = try #require(list.first { $0.item.uniqueIdentifier == ItemIdentifier("/r/often.txt") }).jsonLine { String(decoding: $0, as: UTF8.self) }
        #expect(line.contains("\"reasons\":[{\"reason\":\"frequent\",\"uses\":5}]") && line.contains("\"path\":\"/r/often.txt\""), "\(line)")
    }

    @Test("use times are kept bounded: the oldest go past the maximum")
    func bounded() throws {
        let f = try QueryFixture([doc("/r/x.txt", text: "x")])
        let uses = (0..<(IndexStore.maximumUseTimes + 5)).map {
            ItemUse(identifier: ItemIdentifier("/r/x.txt"), date: Self.now.addingTimeInterval(Double($0 - 20_000)))
        }
        try f.store.recordUses(uses)
        let times = try f.store.useTimes(since: .distantPast)
        #expect(times.count == IndexStore.maximumUseTimes)
        #expect(times.first?.date == Self.now.addingTimeInterval(Double(5 - 20_000)))
    }
}

@Suite("Recurrence rules (issue 27)")
struct RecurrenceRuleTests {
    static var utc: Calendar { SuggesterTests.utc }
    static func at(_ text: String) -> Date { SuggesterTests.at(text) }

    @Test("DAILY, WEEKLY with BYDAY, MONTHLY, YEARLY: the next occurrence at or after a date")
    func next() throws {
        let start = Self.at("2026-01-05T09:00:00Z")   // a Monday
        let after = Self.at("2026-11-27T12:00:00Z")   // a Friday
        func next(_ rule: String) -> Date? {
            RecurrenceRule(rule, start: start, calendar: Self.utc)?.nextOccurrence(of: start, atOrAfter: after, calendar: Self.utc)
        }
        #expect(next("FREQ=DAILY") == Self.at("2026-11-28T09:00:00Z"))
        // The 28th is 327 days after the start (odd), the 27th's 9:00 is before `after`.
        #expect(next("FREQ=DAILY;INTERVAL=2") == Self.at("2026-11-29T09:00:00Z"))
        #expect(next("FREQ=WEEKLY") == Self.at("2026-11-30T09:00:00Z"))
        #expect(next("FREQ=WEEKLY;BYDAY=MO,SA") == Self.at("2026-11-28T09:00:00Z"))
        #expect(next("FREQ=MONTHLY") == Self.at("2026-12-05T09:00:00Z"))
        #expect(next("FREQ=YEARLY") == Self.at("2027-01-05T09:00:00Z"))
        #expect(next("FREQ=WEEKLY;COUNT=4") == nil)
        #expect(next("FREQ=DAILY;UNTIL=20261127T000000Z") == nil)
        #expect(next("FREQ=DAILY;UNTIL=20261201") == Self.at("2026-11-28T09:00:00Z"))
        // Forms it leaves are refused, not guessed.
        #expect(RecurrenceRule("FREQ=MONTHLY;BYDAY=1MO") == nil)
        #expect(RecurrenceRule("FREQ=HOURLY") == nil)
        #expect(RecurrenceRule("FREQ=MONTHLY;BYMONTHDAY=15") == nil)
    }
}
