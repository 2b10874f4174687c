import Foundation
import SystemPackage
import TestSupport
import Testing

/// Mail's `isPriority` as users see it (issue 27, part 7): `fsindex index` decides it, `fsindex
/// show` explains it, `fsfind priority:yes`, `isPriority == 1` and `--sort priority` use it,
/// `fsfind --live` prints `! PATH` when it changes, and fsindex-mcp notifies subscribers.
@Suite("Priority on the command line", .blocking)
struct PriorityCLITests {
    static let mailConfig = "[mail]\naddresses = [\"ada@example.org\"]\n"

    /// A message dated `date` (RFC 5322), as a Maildir file holds it.
    static func message(from: String, to: String, subject: String, body: String, extra: String = "", date: Date = Date()) -> String {
        "Return-Path: <\(from)>\nFrom: \(from)\nTo: \(to)\nSubject: \(subject)\nDate: \(rfc5322(date))\n\(extra)\n\(body)\n"
    }

    static func rfc5322(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return f.string(from: d)
    }

    /// The local day `days` after today, as ISO 8601 (the rule reckons days in local time).
    static func isoDay(in days: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    /// Sent mail to Bob; Bob's direct mail; a list mail from Bob; a stranger's deadline in two
    /// days; a stranger's mail without one.
    static func makeMail(_ tree: TemporaryTree) throws {
        let now = Date().addingTimeInterval(-3600)
        try tree.create("root/Mail/Sent/cur/1001.a:2,S", contents: message(from: "ada@example.org", to: "bob@example.org", subject: "Loom", body: "Plans.", date: now))
        try tree.create("root/Mail/INBOX/cur/2001.direct:2,", contents: message(from: "Bob <bob@example.org>", to: "ada@example.org", subject: "Re: Loom", body: "Got them.", date: now))
        try tree.create("root/Mail/INBOX/cur/2002.list:2,", contents: message(
            from: "bob@example.org", to: "ada@example.org", subject: "[looms] digest", body: "Loom meeting on \(isoDay(in: 2)).",
            extra: "List-Unsubscribe: <mailto:leave@looms.example.org>\n", date: now))
        try tree.create("root/Mail/INBOX/cur/2003.deadline:2,", contents: message(
            from: "dave@elsewhere.example", to: "ada@example.org", subject: "Loom contract", body: "Please sign by \(isoDay(in: 2)).", date: now))
        try tree.create("root/Mail/INBOX/cur/2004.stranger:2,", contents: message(
            from: "erin@elsewhere.example", to: "ada@example.org", subject: "Loom question", body: "Do you sell looms?", date: now))
    }

    @Test("fsindex index decides it; show prints isPriority and the reasons; priority:yes, isPriority == 1 and --sort priority find it")
    func indexShowFind() async throws {
        try await offPool {
            let f = try CLIFixture()
            try Self.makeMail(f.tree)
            let config = try f.tree.create("config.toml", contents: Self.mailConfig)
            let index = try run("fsindex", ["index", "--config", config.string, f.root], env: ["FSINDEX_INDEX_DIR": f.index])
            #expect(index.status == 0, "\(index.stderr)")
            let inbox = f.root + "/Mail/INBOX/cur/"
            let priority: Set = [inbox + "2001.direct:2,", inbox + "2003.deadline:2,"]
            #expect(Set(try f.fsfind("priority:yes").lines) == priority)
            #expect(Set(try f.fsfind("isPriority == 1").lines) == priority)
            #expect(Set(try f.fsfind("priority:no").lines) == [f.root + "/Mail/Sent/cur/1001.a:2,S", inbox + "2002.list:2,", inbox + "2004.stranger:2,"])
            let sorted = try f.fsfind("--sort", "priority", "loom")
            #expect(sorted.lines.count == 5 && Set(sorted.lines.prefix(2)) == priority, "\(sorted.out)")

            let show = try f.fsindex("show", inbox + "2003.deadline:2,")
            #expect(show.lines.contains { $0.hasPrefix("isPriority") && $0.hasSuffix("true") }, "\(show.out)")
            let reasons = try #require(show.lines.first { $0.hasPrefix("priorityReasons") }, "\(show.out)")
            #expect(reasons.contains("direct: addressed to you directly") && reasons.contains("deadline: mentions a date in the next 7 days: \(Self.isoDay(in: 2))"), "\(reasons)")
            let list = try f.fsindex("show", inbox + "2002.list:2,").out
            #expect(list.contains("bulk: bulk or list mail (List-Unsubscribe)") && list.contains("false"), "\(list)")
        }
    }

    @Test("fsfind --live prints ! PATH when a message's priority changes: new sent mail makes its recipient a correspondent; a new direct mail from a correspondent comes as + then !")
    func daemonLive() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + Self.mailConfig)
            try Self.makeMail(d.tree)
            try d.start()
            let inbox = d.root + "/Mail/INBOX/cur/"
            try d.waitFor("the first decisions") { try d.find("priority:yes") == [inbox + "2001.direct:2,", inbox + "2003.deadline:2,"] }
            let (p, reader) = try LineReader.live("loom", env: d.env)
            defer {
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
                p.waitUntilExit()
            }
            var current: Set<String> = []
            while current.count < 5, let line = reader.next(timeout: 10) { current.insert(line) }
            #expect(current.count == 5)
            // Ada writes to Erin: Erin's message flips.
            let sent = d.root + "/Mail/Sent/cur/1002.b:2,S"
            try d.tree.create("root/Mail/Sent/cur/1002.b:2,S", contents: Self.message(from: "ada@example.org", to: "erin@elsewhere.example", subject: "Re: Loom question", body: "Yes."))
            #expect(reader.next(timeout: 30) == "+ " + sent)
            #expect(reader.next(timeout: 30) == "! " + inbox + "2004.stranger:2,", "daemon log:\n\(d.log)")
            // A new direct message from Bob: written, then decided.
            try d.tree.create("root/Mail/INBOX/cur/2005.new:2,", contents: Self.message(from: "bob@example.org", to: "ada@example.org", subject: "Loom again", body: "More."))
            #expect(reader.next(timeout: 30) == "+ " + inbox + "2005.new:2,")
            #expect(reader.next(timeout: 30) == "! " + inbox + "2005.new:2,", "daemon log:\n\(d.log)")
            #expect(reader.next(timeout: 3) == nil)
            #expect(Set(try d.find("priority:yes")) == [inbox + "2001.direct:2,", inbox + "2003.deadline:2,", inbox + "2004.stranger:2,", inbox + "2005.new:2,"])
        }
    }

    @Test("fsindex-mcp: a subscription to a message hears when its priority changes, though its file did not")
    func mcpNotification() async throws {
        try await offPool {
            let x = try MCPServerTests.Fixture()
            let erin = x.root + "/mail/from-erin.eml"
            try x.f.tree.create("root/mail/from-erin.eml", contents: Self.message(from: "erin@elsewhere.example", to: "ada@example.org", subject: "Question", body: "Hello there."))
            let daemon = try DaemonFixture(tree: x.f.tree)
            try x.f.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + Self.mailConfig)
            try daemon.start(["--root", x.root])
            defer { daemon.stop() }
            let uri = "file://" + erin
            try daemon.waitFor("Erin's message to be indexed and decided", seconds: 60) { (try? daemon.find("priority:no", "erin")) == [erin] }
            let t = try x.session([
                Step.subscribe(uri),
                Step.write(x.root + "/mail/to-erin.eml", Self.message(from: "ada@example.org", to: "erin@elsewhere.example", subject: "Re: Question", body: "Hi.")),
                Step.waitUpdate(uri, timeout: 60),
            ])
            #expect(t[0]["ok"] as? Bool == true, "\(t[0])")
            #expect(t[2]["updated"] as? Bool == true, "\(t[2]); daemon log:\n\(daemon.log)")
            #expect(try daemon.find("priority:yes").contains(erin))
        }
    }
}
