import Attributes
import Configuration
import Foundation
import IndexTestSupport
import Indexing
import Querying
import SystemPackage
import TestSupport
import Testing
@testable import Updating

/// Mail's `isPriority` (issue 27, part 7): the rule, the reasons, the pass over a crawled
/// Maildir, the queries and `--sort priority` at the query engine.
@Suite("Priority")
struct PriorityPassTests {
    /// "Now" for these tests: 2026-11-27 12:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_780_800)
    static let utc = PriorityRule(deadlineDays: 7, timeZone: TimeZone(identifier: "UTC")!)

    /// A message as a Maildir file holds it.
    static func message(from: String, to: String, cc: String? = nil, subject: String, body: String,
                        extra: String = "", date: String = "Fri, 27 Nov 2026 09:00:00 +0000") -> String {
        "Return-Path: <\(from)>\nFrom: \(from)\nTo: \(to)\n" + (cc.map { "Cc: \($0)\n" } ?? "")
            + "Subject: \(subject)\nDate: \(date)\nMessage-ID: <\(subject.hashValue)@example.org>\n\(extra)\n\(body)\n"
    }

    /// A Maildir: mail Ada sent to Bob; in the inbox, Bob's direct mail, a list mail from Bob
    /// with a date, a stranger's mail with a date two days after `now`, a stranger's without.
    static func makeMaildir(_ f: CrawlFixture) throws {
        try f.tree.create("root/Mail/Sent/cur/1001.a:2,S", contents: message(
            from: "ada@example.org", to: "Bob <bob@example.org>", subject: "Engine notes", body: "Notes attached."))
        try f.tree.create("root/Mail/INBOX/cur/2001.direct:2,", contents: message(
            from: "Bob <bob@example.org>", to: "Ada <ada@example.org>", subject: "Re: Engine notes", body: "Thanks, will read."))
        try f.tree.create("root/Mail/INBOX/cur/2002.list:2,", contents: message(
            from: "Bob <bob@example.org>", to: "ada@example.org", subject: "[looms] weekly", body: "Meeting on 2026-11-29.",
            extra: "List-Unsubscribe: <mailto:leave@looms.example.org>\nList-Id: <looms.example.org>\n"))
        try f.tree.create("root/Mail/INBOX/cur/2003.deadline:2,", contents: message(
            from: "Dave <dave@elsewhere.example>", to: "ada@example.org", subject: "Contract", body: "Please sign it by 29 November."))
        try f.tree.create("root/Mail/INBOX/cur/2004.stranger:2,", contents: message(
            from: "Erin <erin@elsewhere.example>", to: "ada@example.org", subject: "Hello", body: "Would you like to chat?"))
    }

    static func attributes(_ f: CrawlFixture, _ relative: String) throws -> AttributeSet {
        try #require(try f.store.item(ItemIdentifier(bytes: Array(f.root.appending(relative).string.utf8)))).attributes
    }

    static func codes(_ a: AttributeSet) -> [String] {
        a.strings(.priorityReasons).map { String($0.prefix { $0 != ":" }) }
    }

    func names(_ f: CrawlFixture, _ text: String, sort: Querying.SortOrder = .relevance) throws -> [String] {
        let spec = try QueryRequest(text: text, sort: sort, now: Self.now).makeSpec()
        return try QueryEngine(store: f.store).run(spec).map { String($0.identifier.description.split(separator: "/").last ?? "") }
    }

    @Test("the rule: not bulk, not sent by me, and two of direct, correspondent and deadline; every reason is recorded")
    func rule() {
        let evidence = PriorityRule.Evidence(me: ["Ada@Example.org"], correspondents: ["bob@example.org", "ada@example.org"])
        #expect(evidence.me == ["ada@example.org"] && evidence.correspondents == ["bob@example.org"], "lowercased, me not a correspondent")
        func mail(from: String, to: [String], bulk: [String] = [], days: [String] = []) -> AttributeSet {
            var a = AttributeSet()
            a[.authorEmailAddresses] = .strings([from])
            a[.recipientEmailAddresses] = .strings(to)
            if !bulk.isEmpty { a[.mailBulkHeaders] = .strings(bulk) }
            if !days.isEmpty { a[.mentionedDates] = .strings(days) }
            return a
        }
        let rule = Self.utc
        func decide(_ a: AttributeSet) -> PriorityRule.Decision { rule.decide(a, evidence: evidence, now: Self.now) }
        let bob = decide(mail(from: "BOB@example.org", to: ["ada@example.org"]))
        #expect(bob.isPriority && bob.reasons == ["direct: addressed to you directly", "correspondent: from someone you write to (bob@example.org)"])
        #expect(bob.recheck == nil)
        // One piece of evidence is not enough.
        #expect(!decide(mail(from: "erin@x.example", to: ["ada@example.org"])).isPriority)
        #expect(!decide(mail(from: "bob@example.org", to: ["team@example.org"])).isPriority)
        #expect(!decide(mail(from: "erin@x.example", to: ["team@example.org"], days: ["2026-11-29"])).isPriority)
        // A deadline and one other.
        let due = decide(mail(from: "erin@x.example", to: ["ada@example.org"], days: ["2026-11-20", "2026-11-29", "2027-01-10"]))
        #expect(due.isPriority)
        #expect(due.reasons == ["direct: addressed to you directly", "deadline: mentions a date in the next 7 days: 2026-11-29"])
        // It changes at the end of 29 November (the soonest of that and 2027-01-10 minus 7 days).
        #expect(due.recheck == Date(timeIntervalSince1970: 1_795_996_800), "\(String(describing: due.recheck))")   // 2026-11-30 00:00 UTC
        // A day beyond the window is no deadline yet; it becomes one 7 days before.
        let later = decide(mail(from: "erin@x.example", to: ["ada@example.org"], days: ["2026-12-10"]))
        #expect(!later.isPriority && later.recheck == Date(timeIntervalSince1970: 1_796_256_000))   // 2026-12-03 00:00 UTC
        // Bulk vetoes, and says so beside the rest.
        let list = decide(mail(from: "bob@example.org", to: ["ada@example.org"], bulk: ["List-Unsubscribe"], days: ["2026-11-29"]))
        #expect(!list.isPriority)
        #expect(list.reasons.map { String($0.prefix { $0 != ":" }) } == ["bulk", "direct", "correspondent", "deadline"])
        #expect(list.reasons[0] == "bulk: bulk or list mail (List-Unsubscribe)")
        // My own mail is never priority.
        let mine = decide(mail(from: "ada@example.org", to: ["bob@example.org"], days: ["2026-11-29"]))
        #expect(!mine.isPriority && mine.reasons.first == "sent: sent by you")
    }

    @Test("the pass over a Maildir: me from the Sent folder, correspondents from my sent mail; reasons, flips, queries and --sort priority")
    func maildir() throws {
        let f = try CrawlFixture()
        try Self.makeMaildir(f)
        _ = try f.crawl()
        #expect(try f.store.pendingPriorityCount() == 5)
        let pass = PriorityPass(store: f.store, rule: Self.utc, now: { Self.now })
        #expect(try pass.evidence() == PriorityRule.Evidence(me: ["ada@example.org"], correspondents: ["bob@example.org"]))
        let report = try pass.runAll()
        #expect(report.decided == 5)
        let inbox = "Mail/INBOX/cur/"
        #expect(Set(report.changed.map { String($0.description.split(separator: "/").last!) }) == ["2001.direct:2,", "2003.deadline:2,"])
        #expect(try f.store.pendingPriorityCount() == 0)

        let direct = try Self.attributes(f, inbox + "2001.direct:2,")
        #expect(direct[.isPriority] == .bool(true))
        #expect(Self.codes(direct) == ["direct", "correspondent"])
        let list = try Self.attributes(f, inbox + "2002.list:2,")
        #expect(list[.isPriority] == .bool(false))
        #expect(Self.codes(list) == ["bulk", "direct", "correspondent", "deadline"], "\(list.strings(.priorityReasons))")
        let deadline = try Self.attributes(f, inbox + "2003.deadline:2,")
        #expect(deadline[.isPriority] == .bool(true))
        #expect(deadline.strings(.priorityReasons).last == "deadline: mentions a date in the next 7 days: 2026-11-29")
        let stranger = try Self.attributes(f, inbox + "2004.stranger:2,")
        #expect(stranger[.isPriority] == .bool(false) && Self.codes(stranger) == ["direct"])
        let sent = try Self.attributes(f, "Mail/Sent/cur/1001.a:2,S")
        #expect(sent[.isPriority] == .bool(false) && Self.codes(sent) == ["sent"])
        // The other attributes are kept.
        #expect(direct.string(.subject) == "Re: Engine notes" && direct.strings(.authorEmailAddresses) == ["bob@example.org"])

        // Queries: the short form, Spotlight's form, and the order.
        #expect(Set(try names(f, "priority:yes")) == ["2001.direct:2,", "2003.deadline:2,"])
        #expect(Set(try names(f, "isPriority == 1")) == ["2001.direct:2,", "2003.deadline:2,"])
        #expect(Set(try names(f, "priority:no")) == ["1001.a:2,S", "2002.list:2,", "2004.stranger:2,"])
        let ordered = try names(f, "kind:message", sort: .priority)
        #expect(ordered.count == 5 && Set(ordered.prefix(2)) == ["2001.direct:2,", "2003.deadline:2,"], "\(ordered)")
        let reversed = try QueryEngine(store: f.store).run(try QueryRequest(text: "kind:message", sort: .priority, reverse: true, now: Self.now).makeSpec())
        #expect(Set(reversed.suffix(2).map { String($0.identifier.description.split(separator: "/").last!) }) == ["2001.direct:2,", "2003.deadline:2,"])

        // Nothing to do: nothing changes.
        #expect(try pass.runAll() == PriorityReport())

        // Three days later 29 November has passed: the deadline mail is decided again and flips.
        let later = PriorityPass(store: f.store, rule: Self.utc, now: { Self.now.addingTimeInterval(3 * 86_400) })
        let afterDeadline = try later.runAll()
        #expect(afterDeadline.decided == 2, "only the messages whose recheck time came (the deadline mail and the list mail)")
        #expect(afterDeadline.changed.map(\.description) == [f.root.appending(inbox + "2003.deadline:2,").string])
        #expect(Self.codes(try Self.attributes(f, inbox + "2003.deadline:2,")) == ["direct"])

        // New sent mail to Erin: Erin becomes a correspondent, and her mail flips.
        try f.tree.create("root/Mail/Sent/cur/1002.b:2,S", contents: Self.message(
            from: "ada@example.org", to: "erin@elsewhere.example", subject: "Re: Hello", body: "Sure.",
            date: "Sat, 28 Nov 2026 09:00:00 +0000"))
        _ = try f.crawl()
        let afterSent = try later.runAll()
        #expect(afterSent.decided == 6, "the evidence changed: every message again")
        #expect(afterSent.changed.map(\.description) == [f.root.appending(inbox + "2004.stranger:2,").string])
        #expect(Self.codes(try Self.attributes(f, inbox + "2004.stranger:2,")) == ["direct", "correspondent"])
    }

    @Test("me: [mail] addresses when set (only them), otherwise the Sent folders' senders with the known addresses ($EMAIL, [agent] me)")
    func me() throws {
        let f = try CrawlFixture()
        try Self.makeMaildir(f)
        _ = try f.crawl()
        let derived = try PriorityPass(store: f.store, knownAddresses: ["Ada.Work@example.org"]).evidence()
        #expect(derived.me == ["ada@example.org", "ada.work@example.org"])
        let configured = try PriorityPass(store: f.store, configuredAddresses: ["bob@example.org"], knownAddresses: ["ada@example.org"]).evidence()
        #expect(configured.me == ["bob@example.org"])
        #expect(configured.correspondents == ["ada@example.org"], "Bob wrote to Ada")
        var settings = Settings()
        settings.agent.me = Identity(name: "Ada", emails: ["ada@home.example"], source: "config")
        let fromSettings = PriorityPass(store: f.store, settings: settings, environment: ["EMAIL": "ada@env.example", "HOME": f.tree.path("home").string])
        #expect(Set(fromSettings.knownAddresses) == ["ada@home.example", "ada@env.example"])
        #expect(PriorityPass.isSentFolder(Array(".Sent".utf8)) && PriorityPass.isSentFolder(Array("Sent Items".utf8))
                && PriorityPass.isSentFolder(Array(".INBOX.Sent".utf8)) && !PriorityPass.isSentFolder(Array("Sentinel".utf8)))
    }
}
