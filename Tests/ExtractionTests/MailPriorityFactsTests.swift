import Attributes
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

/// The facts the mail extractor records for the priority pass (issue 27): bulk headers and the
/// days a message mentions.
@Suite("Mail priority facts")
struct MailPriorityFactsTests {
    /// 2026-11-27 10:00 UTC, a Friday.
    static let sent = Date(timeIntervalSince1970: 1_795_773_600)

    @Test("the date finder: ISO days, day-month and month-day with or without a year, tomorrow; a day before the message or over a year after is left out")
    func finder() {
        #expect(CivilDay(unixSeconds: 1_795_773_600).iso == "2026-11-27")
        let text = """
            Please send the figures by 29 November, or at the latest Dec 3rd. The review is on
            2026-12-10 and the party on January 5, 2027. Last year: 12 March 2025. Also tomorrow.
            Born 1970-01-01. Next decade: 2036-01-01. Not a date: 31 April, 29 vacancies, May I?
            """
        #expect(MentionedDates.find(in: text, sent: Self.sent)
                == ["2026-11-29", "2026-12-03", "2026-12-10", "2027-01-05", "2026-11-28"])
        // A year-less day that has passed this year is next year's.
        #expect(MentionedDates.find(in: "see you on 3 February", sent: Self.sent) == ["2027-02-03"])
        // Without the message's date, only days with a year.
        #expect(MentionedDates.find(in: "by 29 November or 2026-12-01, tomorrow", sent: nil) == ["2026-12-01"])
        #expect(MentionedDates.find(in: "no dates at all in here", sent: Self.sent).isEmpty)
    }

    @Test("a message gets mailBulkHeaders from List-Unsubscribe, List-Id and Precedence: bulk, and mentionedDates from its subject and body; a personal one neither")
    func extracted() throws {
        let tree = try TemporaryTree(prefix: "fsindex-mailfacts")
        let list = try tree.create("list.eml", contents: """
            From: News <news@lists.example.org>
            To: ada@example.org
            Subject: Weekly digest
            Date: Fri, 27 Nov 2026 10:00:00 +0000
            List-Unsubscribe: <mailto:leave@lists.example.org>
            List-Id: Weekly <weekly.lists.example.org>
            Precedence: bulk

            Sale ends 30 November!

            """)
        let a = try extract(list).attributes
        #expect(a.strings(.mailBulkHeaders) == ["List-Unsubscribe", "List-Id", "Precedence: bulk"])
        #expect(a.strings(.mentionedDates) == ["2026-11-30"])

        let personal = try tree.create("personal.eml", contents: """
            From: Bob <bob@example.org>
            To: Ada <ada@example.org>
            Subject: Report due 2026-12-01
            Date: Fri, 27 Nov 2026 10:00:00 +0000
            Precedence: first-class

            Hello Ada, nothing else.

            """)
        let p = try extract(personal).attributes
        #expect(p[.mailBulkHeaders] == nil)
        #expect(p.strings(.mentionedDates) == ["2026-12-01"])
        let plain = try extract(try tree.create("plain.eml", contents: "From: b@example.org\nTo: a@example.org\nSubject: hi\n\nno dates\n")).attributes
        #expect(plain[.mentionedDates] == nil && plain[.mailBulkHeaders] == nil)
    }
}
