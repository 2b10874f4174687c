import Attributes
import Foundation
import Indexing

/// Why an item is suggested: Core Spotlight's suggestions from `NSUserActivity` and donated
/// items, with the evidence.
package enum SuggestionReason: Sendable, Hashable {
    /// Used often: `uses` recorded uses.
    case frequent(uses: Int64)
    /// Used lately, last at `usedAt`.
    case recent(usedAt: Date)
    /// Used at this hour of the day before, `uses` times on earlier days.
    case timeOfDay(hour: Int, uses: Int)
    /// Used on this day of the week before, `uses` times in earlier weeks (1 is Sunday).
    case dayOfWeek(weekday: Int, uses: Int)
    /// A calendar event that starts at `startsAt` (soon, or it is under way).
    case eventSoon(startsAt: Date)
    /// A note edited at `editedAt`.
    case noteEdited(editedAt: Date)

    /// The reason's name, as `--json` and the MCP tool give it.
    package var name: String {
        switch self {
        case .frequent: "frequent"
        case .recent: "recent"
        case .timeOfDay: "timeOfDay"
        case .dayOfWeek: "dayOfWeek"
        case .eventSoon: "eventSoon"
        case .noteEdited: "noteEdited"
        }
    }

    /// The evidence as JSON-ready fields (dates in ISO 8601), beside `reason`.
    package var fields: [String: String] {
        switch self {
        case .frequent(let n): ["uses": String(n)]
        case .recent(let d): ["usedAt": AttributeValue.iso8601(d)]
        case .timeOfDay(let h, let n): ["hour": String(h), "uses": String(n)]
        case .dayOfWeek(let w, let n): ["weekday": String(w), "uses": String(n)]
        case .eventSoon(let d): ["startsAt": AttributeValue.iso8601(d)]
        case .noteEdited(let d): ["editedAt": AttributeValue.iso8601(d)]
        }
    }

    /// One line for people: `frequent (12 uses)`, `recent (used at 2026-11-27T09:00:00Z)`.
    package var description: String {
        switch self {
        case .frequent(let n): "frequent (\(n) uses)"
        case .recent(let d): "recent (used at \(AttributeValue.iso8601(d)))"
        case .timeOfDay(let h, let n): "timeOfDay (used \(n) times at \(h):00 before)"
        case .dayOfWeek(let w, let n): "dayOfWeek (used \(n) times on \(Self.weekdays[(w - 1) % 7]) before)"
        case .eventSoon(let d): "eventSoon (starts at \(AttributeValue.iso8601(d)))"
        case .noteEdited(let d): "noteEdited (edited at \(AttributeValue.iso8601(d)))"
        }
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
}

/// One suggested item, its reasons strongest first, and its score (the sum of theirs).
package struct Suggestion: Sendable, Hashable {
    package var item: SearchableItem
    package var reasons: [SuggestionReason]
    package var score: Double
    /// For an event, its next start (a recurring event's next occurrence).
    package var startsAt: Date?
}

/// What the user is likely to want now, without a query (`fsindex suggest`, the MCP `suggest`
/// tool): items used often or lately, items used at this hour or on this weekday before,
/// calendar events starting soon, and notes edited lately; merged per item and ranked.
///
/// For example:
/// ```swift
/// let store = try IndexStore(location: .resolve(explicit: nil), readOnly: true)
/// for s in try Suggester(now: Date()).suggestions(limit: 10, in: store) {
///     print(s.item.uniqueIdentifier, s.reasons.map(\.description))
/// }
/// ```
///
/// A key design decision: every reason has a score in the same units, and an item's score is
/// the sum of its reasons', so an item used every morning that was also edited today ranks above
/// one that is only recent. An event's score rises as its start comes nearer; a use's falls as
/// it ages (a half-life of days). Each source reads a bounded number of rows (`candidates`), so
/// a suggestion costs milliseconds however large the index. `now` and the calendar (the time
/// zone, for "this hour") are given, so tests fix them.
package struct Suggester: Sendable {
    package var now: Date
    package var calendar: Calendar
    /// Events that start within this many seconds from now are "soon".
    package var eventHorizon: TimeInterval = 24 * 3600
    /// Uses and edits older than this are not "recent".
    package var recentWindow: TimeInterval = 14 * 86_400
    /// Notes edited within this many seconds count.
    package var noteWindow: TimeInterval = 7 * 86_400
    /// How far back uses are read for the hour and weekday.
    package var historyWindow: TimeInterval = 90 * 86_400
    /// Rows read from each source.
    package var candidates = 64

    package init(now: Date = Date(), calendar: Calendar = .current) {
        self.now = now
        self.calendar = calendar
    }

    /// The suggestions, best first, at most `limit`; `admit` filters the items (scopes, files
    /// that are there and readable).
    package func suggestions(limit: Int = 10, in store: IndexStore,
                            admit: (SearchableItem) -> Bool = { _ in true }) throws(IndexError) -> [Suggestion] {
        var byItem: [ItemIdentifier: Suggestion] = [:]
        func add(_ item: SearchableItem, _ reason: SuggestionReason, _ score: Double, startsAt: Date? = nil) {
            var s = byItem[item.uniqueIdentifier] ?? Suggestion(item: item, reasons: [], score: 0)
            s.reasons.append(reason)
            s.score += score
            if let startsAt { s.startsAt = startsAt }
            byItem[item.uniqueIdentifier] = s
        }
        let day: Double = 86_400
        for used in try store.usedItems(.mostUsed, limit: candidates, now: now) where used.useCount >= 2 {
            add(used.item, .frequent(uses: used.useCount), min(1.5, 0.3 * log(Double(used.useCount) + 1)))
        }
        for used in try store.usedItems(.lastUsed, limit: candidates, now: now) {
            let age = now.timeIntervalSince(used.lastUsed)
            guard age >= 0, age <= recentWindow else { continue }
            add(used.item, .recent(usedAt: used.lastUsed), 1.5 * pow(0.5, age / (2 * day)))
        }
        try addHabits(store, add)
        for event in try store.calendarEvents(limit: 4 * candidates * 8, now: now) {
            guard let start = nextStart(event.attributes) else { continue }
            let until = start.timeIntervalSince(now)
            add(event, .eventSoon(startsAt: start), until <= 0 ? 3 : 1 + 2 * (1 - until / eventHorizon), startsAt: start)
        }
        for note in try store.recentNotes(since: now.addingTimeInterval(-noteWindow), limit: candidates, now: now) {
            guard let edited = note.attributes.date(.fsContentChangeDate) ?? note.attributes.date(.contentModificationDate),
                  edited <= now else { continue }
            add(note, .noteEdited(editedAt: edited), pow(0.5, now.timeIntervalSince(edited) / (2 * day)))
        }
        return byItem.values.filter { admit($0.item) }
            .map { s in
                var s = s
                s.reasons.sort { Self.order($0) < Self.order($1) }
                return s
            }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.item.uniqueIdentifier < $1.item.uniqueIdentifier }
            .prefix(limit).map { $0 }
    }

    /// Uses at this hour of the day, and on this weekday, on earlier days: two or more make a habit.
    private func addHabits(_ store: IndexStore, _ add: (SearchableItem, SuggestionReason, Double, Date?) -> Void) throws(IndexError) {
        let today = calendar.startOfDay(for: now)
        let hour = calendar.component(.hour, from: now)
        let weekday = calendar.component(.weekday, from: now)
        var atHour: [ItemIdentifier: Set<Date>] = [:]
        var onWeekday: [ItemIdentifier: Set<Date>] = [:]
        for use in try store.useTimes(since: now.addingTimeInterval(-historyWindow)) where use.date < today {
            let dayStart = calendar.startOfDay(for: use.date)
            if calendar.component(.hour, from: use.date) == hour { atHour[use.identifier, default: []].insert(dayStart) }
            if calendar.component(.weekday, from: use.date) == weekday { onWeekday[use.identifier, default: []].insert(dayStart) }
        }
        // Days, not uses: ten uses in one morning are not a habit.
        let habits = atHour.filter { $0.value.count >= 2 }.mapValues(\.count)
        let weekly = onWeekday.filter { $0.value.count >= 2 }.mapValues(\.count)
        let ids = Array(Set(habits.keys).union(weekly.keys)).sorted().prefix(candidates)
        for item in try store.items(Array(ids), now: now) {
            if let n = habits[item.uniqueIdentifier] { add(item, .timeOfDay(hour: hour, uses: n), min(1.5, 0.4 * Double(n)), nil) }
            if let n = weekly[item.uniqueIdentifier] { add(item, .dayOfWeek(weekday: weekday, uses: n), min(1.2, 0.3 * Double(n)), nil) }
        }
    }

    /// An event's start if it is under way or starts within the horizon (the next occurrence of
    /// a recurring one), else nil.
    func nextStart(_ attributes: AttributeSet) -> Date? {
        guard let first = attributes.date(.startDate) else { return nil }
        let length = max(0, (attributes.date(.endDate) ?? first).timeIntervalSince(first))
        // Under way: started at most `length` ago.
        let from = now.addingTimeInterval(-length)
        var start: Date? = first >= from ? first : nil
        if start == nil, let text = attributes.string(.recurrenceRule),
           let rule = RecurrenceRule(text, start: first, calendar: calendar) {
            start = rule.nextOccurrence(of: first, atOrAfter: from, calendar: calendar)
        }
        guard let start, start.timeIntervalSince(now) <= eventHorizon else { return nil }
        // An event that ended is not under way (a zero-length one is, only at its instant).
        if start < now, start.addingTimeInterval(length) <= now { return nil }
        return start
    }

    /// Reasons listed strongest first.
    private static func order(_ r: SuggestionReason) -> Int {
        switch r {
        case .eventSoon: 0
        case .timeOfDay: 1
        case .dayOfWeek: 2
        case .recent: 3
        case .frequent: 4
        case .noteEdited: 5
        }
    }
}
