import Foundation
import SystemPackage
import TestSupport
import Testing

/// The messages of an mbox are items of their own: a search finds the message, and they live
/// and die with their file.
@Suite("Mailboxes, as users see them", .blocking)
struct MailboxCLITests {
    /// Three messages: Jianmin writes the second, the third quotes him.
    static let mailbox = """
        From alice@example.org Mon Jun 01 10:00:00 2009
        From: Alice Example <alice@example.org>
        To: dev@example.org
        Subject: Build times
        Date: Mon, 01 Jun 2009 10:00:00 +0000

        The nightly build takes four hours now.

        From jianmin@example.org Mon Jun 01 11:00:00 2009
        From: Jianmin Woo <jianmin@example.org>
        To: dev@example.org
        Subject: Re: Build times
        Date: Mon, 01 Jun 2009 11:00:00 +0000

        Caching the dependencies should halve it.

        From bob@example.org Mon Jun 01 12:00:00 2009
        From: Bob Example <bob@example.org>
        To: dev@example.org
        Subject: Re: Build times
        Date: Mon, 01 Jun 2009 12:00:00 +0000

        Jianmin wrote:
        > Caching the dependencies should halve it.
        Agreed.

        """

    @Test("a word from one message finds that message; renaming and deleting the mbox carries its messages")
    func messagesAreItems() throws {
        let f = try CLIFixture()
        let box = f.root + "/hadoop.mbox"
        try Self.mailbox.write(toFile: box, atomically: false, encoding: .utf8)
        #expect(try f.fsindex("index", f.root).status == 0)
        // Plain output names the file once; JSON names the message.
        #expect(try f.fsfind("Jianmin").lines == [box])
        // (Jianmin wrote message 2; the others quote him, and the file lists its senders.)
        let hits = try f.fsfind("--json", "--attr", "title", "--attr", "authors", "Jianmin").lines
        let own = hits.filter { $0.contains("\"item\":\"message/2\"") }
        #expect(own.count == 1, "\(hits)")
        #expect(own.first?.contains("Jianmin Woo") == true)
        #expect(hits.allSatisfy { $0.contains("\"path\":\"\(box)\"") })

        let renamed = f.root + "/renamed.mbox"
        try FileManager.default.moveItem(atPath: box, toPath: renamed)
        #expect(try f.fsindex("index", f.root).status == 0)
        #expect(try f.fsfind("Jianmin").lines == [renamed])

        try FileManager.default.removeItem(atPath: renamed)
        #expect(try f.fsindex("index", f.root).status == 0)
        #expect(try f.fsfind("Jianmin").status == 1)
        let status = try #require(try JSONSerialization.jsonObject(with: try f.fsindex("status", "--json").stdout) as? [String: Any])
        #expect(status["items"] as? Int == 1)   // the folder alone: no orphaned messages
    }
}
