import Foundation
import TestSupport
import Testing

/// `fsfind --complete` (through fsindexd like any query) and `fsindex suggest`, as users run them
/// (issue 27).
@Suite("fsfind --complete and fsindex suggest", .blocking)
struct SuggestCompleteCLITests {
    /// An iCalendar time in UTC (`20261127T093000Z`).
    static func icsTime(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.string(from: date)
    }

    static func calendar(_ events: [(summary: String, start: Date)]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0"] + events.flatMap { e in
            ["BEGIN:VEVENT", "SUMMARY:\(e.summary)", "DTSTART:\(icsTime(e.start))", "DTEND:\(icsTime(e.start.addingTimeInterval(1800)))",
             "LOCATION:Room 4", "ATTENDEE;CN=Ada:mailto:ada@example.org", "END:VEVENT"]
        } + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    @Test("fsfind --complete: words, kind: values and field names, answered by fsindexd as fsfind-direct answers them")
    func completeThroughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/a.txt", contents: "The annual budget for the garden.\n")
            try d.tree.create("root/b.txt", contents: "A budget and a budgeting plan.\n")
            try d.tree.create("root/c.txt", contents: "Another budget.\n")
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["budget"], env: d.env).lines.count == 3 }
            let cases: [(args: [String], out: String)] = [
                (["--complete", "annual bud"], "annual budget\nannual budgeting\n"),
                (["--complete", "--limit", "1", "bud"], "budget\n"),
                (["--complete", "--json", "kind:te"], "{\"count\":3,\"source\":\"value\",\"text\":\"kind:text\"}\n"),
                (["--complete", "kin"], "kind:\n"),
            ]
            for c in cases {
                let served = try run("fsfind", c.args, env: d.env.merging(FindThroughDaemonTests.trace) { $1 }, cwd: d.root)
                let direct = try run("fsfind-direct", c.args, env: d.env, cwd: d.root)
                #expect(served.stderr.contains("fsfind: answered by fsindexd"), "\(c.args): \(served.stderr)")
                #expect(served.status == 0 && served.out == c.out, "\(c.args): \(served.out) \(served.stderr)")
                #expect(served.stdout == direct.stdout && served.status == direct.status, "\(c.args): \(direct.out) \(direct.stderr)")
            }
            // Nothing to complete: exit 1; a query option with --complete: a usage error.
            #expect(try run("fsfind", ["--complete", "zzzq"], env: d.env).status == 1)
            #expect(try run("fsfind-direct", ["--complete", "--count", "bud"], env: d.env).status == 64)
        }
    }

    @Test("fsindex suggest: an event from an .ics starting soon, a frequent file, a note just edited, each with its reason")
    func suggest() throws {
        let f = try CLIFixture()
        let now = Date()
        try f.tree.create("root/cal/standup.ics", contents: Self.calendar([("Standup", now.addingTimeInterval(3600))]))
        // A calendar of several events: each is an item; only the one starting soon is suggested.
        try f.tree.create("root/cal/team.ics", contents: Self.calendar([("Retro", now.addingTimeInterval(7200)),
                                                                         ("Offsite", now.addingTimeInterval(30 * 86_400))]))
        try f.tree.create("root/notes/today.md", contents: "# Today\n\nWater the garden.\n")
        // Web pages: not notes (a text file just written would be a note edited now).
        try f.tree.create("root/docs/report.html", contents: "<html><head><title>Report</title></head><body><p>A report used often.</p></body></html>\n")
        try f.tree.create("root/docs/quiet.html", contents: "<html><head><title>Quiet</title></head><body><p>Never used.</p></body></html>\n")
        #expect(try f.fsindex("index", f.root).status == 0)
        for _ in 0..<3 { #expect(try f.fsindex("used", f.root + "/docs/report.html").status == 0) }

        let r = try f.fsindex("suggest", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.out.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        func reasons(_ path: String, item: String? = nil) -> [String] {
            let line = lines.first { $0["path"] as? String == f.root + path && $0["item"] as? String == item }
            return (line?["reasons"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        }
        #expect(reasons("/cal/standup.ics") == ["eventSoon"], "\(r.out)")
        #expect(reasons("/cal/team.ics", item: "event/1") == ["eventSoon"], "\(r.out)")
        #expect(reasons("/cal/team.ics", item: "event/2").isEmpty, "a month away: \(r.out)")
        #expect(Set(reasons("/docs/report.html")) == ["recent", "frequent"], "\(r.out)")
        #expect(reasons("/notes/today.md") == ["noteEdited"], "\(r.out)")
        #expect(reasons("/docs/quiet.html").isEmpty)
        let standup = try #require(lines.first { $0["path"] as? String == f.root + "/cal/standup.ics" })
        #expect(standup["name"] as? String == "Standup" && standup["namedLocation"] as? String == "Room 4", "\(standup)")
        let frequent = (lines.first { $0["path"] as? String == f.root + "/docs/report.html" }?["reasons"] as? [[String: Any]])?
            .first { $0["reason"] as? String == "frequent" }
        #expect(frequent?["uses"] as? Int == 3)
        // The events come first (an hour away scores above a use).
        #expect((lines.first?["reasons"] as? [[String: Any]])?.first?["reason"] as? String == "eventSoon")

        let plain = try f.fsindex("suggest", "--limit", "1")
        #expect(plain.status == 0 && plain.lines.count == 1 && plain.out.contains("eventSoon (starts at "), "\(plain.out)")
        // The attributes the extractor gave are queryable.
        #expect(Set(try f.fsfind("participants:ada").lines) == [f.root + "/cal/standup.ics", f.root + "/cal/team.ics"])
    }
}
