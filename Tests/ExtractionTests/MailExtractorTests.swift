import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Foundation
import Testing
import TestSupport

@Suite("MailExtractor", .blocking)
struct MailExtractorTests {
    static let corpus = ["complex.mbox", "headers.mbox", "simple.mbox", "testEmailWithPNGAtt.eml", "testRFC822",
                         "testRFC822-multipart", "testRFC822_base64", "testRFC822_eml", "testRFC822_i18nheaders",
                         "testRFC822_multipart_attachments.eml", "testRFC822_quoted", "testThunderbirdEml.eml"]

    static func seconds(_ a: AttributeSet) -> Int? {
        a.date(.contentCreationDate).map { Int($0.timeIntervalSince1970) }
    }

    @Test("every mail file of the corpus is typed as a message or an mbox and read by the mail extractor", .realCorpus,
          arguments: corpus)
    func types(_ file: String) throws {
        let r = try extractReal("email/\(file)")
        let expected: ContentType = file.hasSuffix(".mbox") ? "public.mbox" : "public.email-message"
        #expect(r.attributes.contentType == expected)
        #expect(r.extractor == "mail")
        #expect(r.problems.isEmpty)
    }

    @Test("sender, recipient, subject, date and body of a plain message without a name extension", .realCorpus)
    func plain() throws {
        let a = try extractReal("email/testRFC822").attributes
        #expect(a.strings(.authors) == ["Julien Nioche (JIRA) <jira@apache.org>"])
        #expect(a.strings(.authorNames) == ["Julien Nioche (JIRA)"])
        #expect(a.strings(.authorEmailAddresses) == ["jira@apache.org"])
        #expect(a.strings(.recipients) == ["dev@tika.apache.org"])
        #expect(a.strings(.recipientEmailAddresses) == ["dev@tika.apache.org"])
        #expect(a.strings(.recipientNames).isEmpty)
        #expect(a.string(.subject) == "[jira] Commented: (TIKA-461) RFC822 messages not parsed")
        #expect(a.title == "[jira] Commented: (TIKA-461) RFC822 messages not parsed")
        #expect(Self.seconds(a) == 1_283_765_134)   // Mon, 6 Sep 2010 05:25:34 -0400
        #expect(a.textContent?.contains("I'll have a look at mime4j and try to use it in Tika") == true)
        #expect(a.textContent?.contains("X-JIRA-FingerPrint") == false)   // headers are not body text
        #expect(a[.attachmentNames] == nil)
    }

    @Test("a base64 body in ISO-8859-1", .realCorpus)
    func base64() throws {
        let a = try extractReal("email/testRFC822_base64").attributes
        #expect(a.textContent == "Here is some text, with international characters, voilà!")
        #expect(a.strings(.authors) == ["Nowhere <nowhere@nowhere.com>"])
        #expect(a.strings(.recipients) == ["Nobody <nobody@somewhere.com>"])
        #expect(a.strings(.recipientNames) == ["Nobody"])
        #expect(a.title == "This tests a base64 encoded body")
        #expect(a[.contentCreationDate] == a[.fsCreationDate])   // no Date header: the file's own date stays
    }

    @Test("a quoted-printable UTF-8 body with soft line breaks", .realCorpus)
    func quotedPrintable() throws {
        let a = try extractReal("email/testRFC822_quoted").attributes
        #expect(a.textContent == "Düsseldorf has non-ascii. Lines can be split like this. Spaces at the end of a line must be encoded.")
        #expect(a.strings(.authors) == ["Another Person <another.person@another-example.com>"])
        #expect(a.strings(.recipientNames) == ["A. Person"])
        #expect(a.title == "Sample with Quoted Printable Text")
        #expect(Self.seconds(a) == 1_290_801_473)
    }

    @Test("RFC 2047 encoded words in two charsets in From and Subject", .realCorpus)
    func encodedWords() throws {
        let a = try extractReal("email/testRFC822_i18nheaders").attributes
        #expect(a.strings(.authorNames) == ["Keld Jørn Simonsen"])
        #expect(a.strings(.authorEmailAddresses) == ["keld@dkuug.dk"])
        #expect(a.string(.subject) == "If you can read this you understand the example.")
        #expect(a.textContent == "Examples taken from RFC 2047.")
        let mac = try extractReal("email/testRFC822_eml").attributes
        #expect(mac.strings(.authors) == ["Philipp Steinkrüger <philipp.steinkrueger@uni-koeln.de>"])
        #expect(mac.strings(.recipientEmailAddresses) == ["philipp.steinkrueger@googlemail.com"])
        #expect(mac.title == "Testemail")
        #expect(Self.seconds(mac) == 1_463_387_432)
    }

    @Test("multipart/alternative: the plain text is read, and the HTML where it says more; attachments give names", .realCorpus)
    func alternative() throws {
        let a = try extractReal("email/testRFC822_multipart_attachments.eml").attributes
        #expect(a.strings(.attachmentNames) == ["Test TxtA.txt", "Test TxtB.txt"])
        let text = try #require(a.textContent)
        #expect(text.contains("This is test email for EML1"))   // base64 text/plain
        #expect(text.contains("This is the html body of the main msg."))   // its HTML alternative says more (issue 28)
        #expect(!text.contains("Test TXTA File"))               // an attachment's content
        #expect(a.strings(.authors) == ["Bugs Bunny <Bugs.Bunny@acme.com>"])
        #expect(a.title == "EML 1")

        let b = try extractReal("email/testRFC822-multipart").attributes
        #expect(b.strings(.attachmentNames) == ["logo.gif"])
        #expect(b.textContent?.contains("Text specific to body 1.") == true)
        #expect(b.textContent?.contains("Text specific to body 2.") == true)   // only the HTML alternative has it
        #expect(b.strings(.authors) == ["DigitalPebble <julien@digitalpebble.com>"])
        #expect(b.strings(.recipientEmailAddresses) == ["lists.digitalpebble@gmail.com"])
        #expect(Self.seconds(b) == 1_285_594_156)
    }

    @Test("a Thunderbird message and one still starting with its mbox From line", .realCorpus)
    func thunderbird() throws {
        let a = try extractReal("email/testThunderbirdEml.eml").attributes
        #expect(a.strings(.authors) == ["Vladimir L. <vladimir_l@example.com>"])
        #expect(a.strings(.recipientEmailAddresses) == ["vladimir_l@something.com"])
        #expect(a.title == "JUnit test message")
        #expect(a.textContent == "Dear Vladimir .....")
        #expect(Self.seconds(a) == 1_353_528_692)

        let png = try extractReal("email/testEmailWithPNGAtt.eml").attributes
        #expect(png.strings(.authors) == ["Tika Test <XXXX@apache.org>"])
        #expect(png.title == "Test Attachment Email")
        #expect(png.strings(.attachmentNames) == ["testPNG.png"])
        #expect(png.textContent == "This email has a PNG attachment included in it")
        #expect(Self.seconds(png) == 1_469_032_502)
    }

    @Test("an mbox: one child per message, the file keeps subjects, senders and text", .realCorpus)
    func mailbox() throws {
        let r = try extractReal("email/complex.mbox")
        #expect(r.attributes.integer(.messageCount) == 3)
        #expect(r.children.map(\.key) == ["message/1", "message/2", "message/3"])
        let subject = "Re: question about when shuffle/sort start working"
        let second = try #require(r.children.dropFirst().first).attributes
        #expect(second.strings(.authors) == ["Jianmin Woo <jianmin_woo@yahoo.com>"])
        #expect(second.title == subject)
        #expect(second.string(.name) == subject)
        #expect(second.contentType == "public.email-message")
        #expect(second.kind == "Mail message")
        #expect(second.textContent?.contains("Thanks a lot for your explanation, Jothi.") == true)
        #expect(second.strings(.recipientEmailAddresses) == ["core-user@hadoop.apache.org"])
        #expect(Self.seconds(second) == 1_243_834_249)   // Sun, 31 May 2009 22:30:49 -0700
        #expect(r.children.first?.attributes.strings(.authorNames) == ["Jothi Padmanabhan"])
        let own = try #require(r.attributes.textContent)
        #expect(own.contains(subject))
        #expect(own.contains("Jianmin Woo <jianmin_woo@yahoo.com>"))
        #expect(own.contains("Thanks a lot for your explanation, Jothi."))   // the second message's body (issue 28)
        #expect(r.attributes.title == nil)

        let simple = try extractReal("email/simple.mbox")
        #expect(simple.attributes.integer(.messageCount) == 2)
        #expect(simple.children.map { $0.attributes.textContent } == ["Test content 1", "Test content 2"])
        #expect(simple.children.first?.attributes.string(.name) == "(no subject)")
        #expect(simple.children.first?.attributes.title == nil)
        // No Date header: the date of the mbox "From " line, as UTC.
        #expect(simple.children.map { Self.seconds($0.attributes) } == [1_243_850_400, 1_275_390_000])

        let headers = try extractReal("email/headers.mbox")
        #expect(headers.attributes.integer(.messageCount) == 1)
        let only = try #require(headers.children.first).attributes
        #expect(only.title == "subject")
        #expect(only.strings(.authorEmailAddresses) == ["author@domain.com"])
        #expect(only.strings(.authors) == ["author@domain.com"])
        #expect(only.textContent == "Test content")
        #expect(Self.seconds(only) == 1_244_606_325)
    }

    @Test("dates of mbox From lines")
    func fromLineDates() {
        func seconds(_ line: String) -> Int? { MailExtractor.fromLineDate(line).map { Int($0.timeIntervalSince1970) } }
        #expect(seconds("From a@b Mon Jun 01 10:00:00 2009") == 1_243_850_400)
        #expect(seconds("From a@b Sat Jan  3 01:05:34 1996") == 820_631_134)
        #expect(seconds("From a@b Sat Jan  3 01:05:34 1996 +0100") == 820_627_534)
        #expect(seconds("From a@b Thu Feb 29 23:59:59 2024") == 1_709_251_199)
        #expect(seconds("From a@b") == nil)
        #expect(seconds("From a@b Mon Foo 01 10:00:00 2009") == nil)
    }

    @Test("a truncated copy of each corpus file gives partial attributes or a problem, never a crash", .realCorpus,
          arguments: corpus)
    func truncated(_ file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("email/\(file)").string)))
        let tree = try TemporaryTree()
        for size in [bytes.count / 2, bytes.count / 5, 40] {
            let r = try extract(tree.create(file, bytes: Array(bytes.prefix(size))))
            let a = r.attributes
            let partial = a[.authors] != nil || a[.subject] != nil || a[.messageCount] != nil || a.textContent != nil
            #expect(partial || !r.problems.isEmpty, "\(file) cut at \(size): \(a.keys)")
        }
        // Cut inside a header name: GMime alone would give up on the whole message.
        if file == "testRFC822_quoted" {
            let r = try extract(tree.create(file, bytes: Array(bytes.prefix(95))))
            #expect(r.attributes.strings(.recipientEmailAddresses).isEmpty)
            #expect(r.problems.map(\.description) == ["mail: truncated: the file ends inside the message headers"])
            let r2 = try extract(tree.create(file, bytes: Array(bytes.prefix(160))))   // ends "Subject: Sample wit"
            #expect(r2.attributes.string(.subject) == "Sample wit")
        }
        let half = try extract(tree.create(file, bytes: Array(bytes.prefix(bytes.count / 2)))).attributes
        if file == "complex.mbox" {
            #expect(half.integer(.messageCount) == 2)   // the second message is cut in its body
        } else if file == "testRFC822_multipart_attachments.eml" {
            #expect(half.strings(.authors) == ["Bugs Bunny <Bugs.Bunny@acme.com>"])
            #expect(half.textContent?.contains("This is test email for EML1") == true)
        }
    }

    // MARK: Generated messages

    static func crlf(_ lines: [String]) -> [UInt8] { Array(lines.joined(separator: "\r\n").utf8) }

    @Test("a message saved with its mbox From line keeps body lines starting with From")
    func fromLines() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("saved.eml", contents: "From x@example.org Mon Jun 01 10:00:00 2009\nSubject: Saved\n\nbody\nFrom here on\nmore\n")
        let a = try extract(p).attributes
        #expect(a.title == "Saved")
        #expect(a.textContent == "body From here on more")
    }

    @Test("To and Cc, with a group, give all recipients")
    func recipients() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("team.eml", bytes: Self.crlf([
            "From: Ann Example <ann@example.org>, bob@example.org",
            "To: Team: Carol <carol@example.org>, dave@example.org;",
            "Cc: \"Eve, Jr.\" <eve@example.org>",
            "Subject: Plans",
            "Date: Tue, 02 Jan 2024 10:00:00 +0000",
            "",
            "Body.",
        ]))
        let a = try extract(p).attributes
        #expect(a.strings(.authors) == ["Ann Example <ann@example.org>", "bob@example.org"])
        #expect(a.strings(.authorNames) == ["Ann Example"])
        #expect(a.strings(.authorEmailAddresses) == ["ann@example.org", "bob@example.org"])
        #expect(a.strings(.recipientEmailAddresses) == ["carol@example.org", "dave@example.org", "eve@example.org"])
        #expect(a.strings(.recipientNames) == ["Carol", "Eve, Jr."])
        #expect(a.strings(.recipients) == ["Carol <carol@example.org>", "dave@example.org", "Eve, Jr. <eve@example.org>"])
        #expect(Self.seconds(a) == 1_704_189_600)
    }

    @Test("an HTML-only body is read without its tags, scripts or styles")
    func htmlOnly() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("news.eml", bytes: Self.crlf([
            "From: news@example.org",
            "Subject: Newsletter",
            "MIME-Version: 1.0",
            "Content-Type: text/html; charset=windows-1252",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            "<html><head><style>p{color:red}</style></head><body><p>Caf=E9 <b>ouvert</b></p>",
            "<script>var x = 1;</script><p>Second paragraph</p></body></html>",
        ]))
        let a = try extract(p).attributes
        #expect(a.textContent == "Café ouvert\nSecond paragraph")
    }

    @Test("an unknown charset falls back on UTF-8 or Latin-1; a known one is converted")
    func charsets() throws {
        let tree = try TemporaryTree()
        let unknown = try tree.create("unknown.eml", bytes: Self.crlf([
            "From: a@example.org",
            "Subject: Odd",
            "Content-Type: text/plain; charset=x-no-such-charset",
            "Content-Transfer-Encoding: 8bit",
            "",
            "",
        ]) + [0x63, 0x61, 0x66, 0xE9, 0x20, 0x63, 0x72, 0xE8, 0x6D, 0x65])   // "café crème" in Latin-1
        let a = try extract(unknown)
        #expect(a.attributes.textContent == "café crème")
        #expect(a.problems.isEmpty)

        let cyrillic = try tree.create("ru.eml", bytes: Self.crlf([
            "From: =?koi8-r?B?8NLJ18XU?= <b@example.org>",
            "Subject: =?windows-1251?Q?=CF=F0=E8=E2=E5=F2?=",
            "Content-Type: text/plain; charset=windows-1251",
            "Content-Transfer-Encoding: base64",
            "",
            Data([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2, 0x2C, 0x20, 0xEC, 0xE8, 0xF0]).base64EncodedString(),   // "Привет, мир"
        ]))
        let b = try extract(cyrillic).attributes
        #expect(b.textContent == "Привет, мир")
        #expect(b.title == "Привет")
        #expect(b.strings(.authorNames) == ["Привет"])

        // Raw Latin-1 bytes in headers (no encoded words) still become UTF-8.
        let raw = try tree.create("raw.eml", bytes: Array("From: Jos".utf8) + [0xE9] + Array(" <j@example.org>\nSubject: Caf".utf8)
            + [0xE9] + Array("\n\nbody\n".utf8))
        let c = try extract(raw).attributes
        #expect(c.strings(.authorNames) == ["José"])
        #expect(c.title == "Café")
    }

    @Test("10,000 levels of nested multiparts are capped, not followed")
    func deepNesting() throws {
        var lines = ["From: deep@example.org", "Subject: Deep", "MIME-Version: 1.0"]
        let depth = 10_000
        for i in 0..<depth {
            lines += ["Content-Type: multipart/mixed; boundary=\"b\(i)\"", "", "--b\(i)"]
        }
        lines += ["Content-Type: text/plain", "", "innermost words", ""]
        for i in (0..<depth).reversed() { lines += ["--b\(i)--", ""] }
        let tree = try TemporaryTree()
        let r = try extract(tree.create("deep.eml", bytes: Self.crlf(lines)))
        #expect(r.attributes.title == "Deep")
        #expect(r.attributes.strings(.authors) == ["deep@example.org"])
        #expect(r.attributes.textContent?.contains("innermost") != true)
        #expect(r.problems.contains { "\($0)".contains("levels of nesting") })
    }

    @Test("a message with 20,000 parts is capped")
    func manyParts() throws {
        var lines = ["From: many@example.org", "Subject: Many", "MIME-Version: 1.0",
                     "Content-Type: multipart/mixed; boundary=\"x\"", ""]
        for i in 0..<20_000 {
            lines += ["--x", "Content-Type: application/octet-stream", "Content-Disposition: attachment; filename=\"f\(i).bin\"", "", "AAAA"]
        }
        lines += ["--x--", ""]
        let tree = try TemporaryTree()
        let r = try extract(tree.create("many.eml", bytes: Self.crlf(lines)))
        #expect(r.attributes.title == "Many")
        let names = r.attributes.strings(.attachmentNames)
        #expect(names.count <= MailMessage.maxParts)
        #expect(names.first == "f0.bin")
        #expect(r.problems.contains { "\($0)".contains("MIME parts") })
    }

    @Test("200,000 empty parts (a gigabyte of GMime objects) are cut before parsing, in a message and in an mbox")
    func partFlood() throws {
        let flood = String(repeating: "--x\n\n", count: 200_000)
        let tree = try TemporaryTree()
        let eml = try extract(tree.create("flood.eml", contents:
            "From: flood@example.org\nSubject: Flood\nContent-Type: multipart/mixed; boundary=x\n\n\(flood)--x--\n"))
        #expect(eml.attributes.title == "Flood")
        #expect(eml.problems.contains { "\($0)".contains("header lines and MIME boundaries") })

        var mbox = "From a@example.org Mon Jun 01 10:00:00 2009\nFrom: a@example.org\nSubject: First\n\nfirst body\n\n"
        mbox += "From b@example.org Mon Jun 01 10:00:00 2009\nFrom: b@example.org\nSubject: Flood\n"
        mbox += "Content-Type: multipart/mixed; boundary=x\n\n\(flood)--x--\n\n"
        mbox += "From c@example.org Mon Jun 01 10:00:00 2009\nFrom: c@example.org\nSubject: Last\n\nlast body\n"
        let r = try extract(tree.create("flood.mbox", contents: mbox))
        #expect(r.attributes.integer(.messageCount) == 3)
        #expect(r.children.map { $0.attributes.title } == ["First", "Flood", "Last"])
        #expect(r.children.last?.attributes.textContent == "last body")
        #expect(r.problems.contains { "\($0)".contains("1 message(s) with too many") })
    }

    @Test("an mbox larger than the text cap is read through the file, each child's text capped")
    func largeMailbox() throws {
        var text = ""
        let body = String(repeating: "lorem ipsum dolor sit amet ", count: 40)
        for i in 1...300 {
            text += "From sender@example.org Mon Jun 01 10:00:00 2009\n"
            text += "From: Sender \(i) <s\(i)@example.org>\nSubject: Message number \(i)\n\n\(body)\nend of \(i)\n\n"
        }
        let tree = try TemporaryTree()
        let p = try tree.create("big.mbox", contents: text)
        let r = try extract(p, textCap: 4096)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.integer(.messageCount) == 300)
        #expect(r.children.count == 300)
        #expect(r.children.last?.key == "message/300")
        #expect(r.children.last?.attributes.title == "Message number 300")
        #expect(r.children.last?.attributes.textContent?.hasSuffix("end of 300") == true)
        #expect(r.attributes[.textTruncated] == .bool(true))   // the subjects alone pass 4 KiB
        #expect((r.attributes.textContent?.utf8.count ?? 0) <= 4096)

        // The same, cut inside the last message's headers: it is still a message.
        let cut = text.utf8.count - body.utf8.count - 20
        let r2 = try extract(tree.create("cut.mbox", bytes: Array(text.utf8.prefix(cut))), textCap: 4096)
        #expect(r2.attributes.integer(.messageCount) == 300)
        #expect(r2.children.last?.attributes.strings(.authorNames) == ["Sender 300"])
        #expect((r.attributes.textContent?.utf8.count ?? 0) <= 4096)
    }

    @Test("binary garbage named .eml or .mbox is a problem, not a crash")
    func garbage() throws {
        let tree = try TemporaryTree()
        var bytes: [UInt8] = []
        var x: UInt32 = 12345
        for _ in 0..<4096 {
            x = x &* 1_103_515_245 &+ 12345
            bytes.append(UInt8(truncatingIfNeeded: x >> 16))
        }
        let eml = try extract(tree.create("noise.eml", bytes: bytes))
        #expect(eml.attributes[.authors] == nil)
        let mbox = try extract(tree.create("noise.mbox", bytes: Array("Just some text\nno From line\n".utf8)))
        #expect(mbox.extractor == "mail")
        #expect(mbox.problems.contains { "\($0)".contains("From ") })
    }

    // MARK: Issue 28: text that was lost

    @Test("an mbox's own item carries its messages' subjects and text, up to the text cap")
    func mailboxText() throws {
        let tree = try TemporaryTree()
        var mbox = ""
        for (i, word) in ["aardvark", "bandicoot", "capybara"].enumerated() {
            mbox += "From s\(i)@example.org Mon Jun 01 10:00:0\(i) 2009\nFrom: Sender \(i) <s\(i)@example.org>\n"
            mbox += "Subject: Note \(i + 1)\n\nThe \(word) of message \(i + 1) is here.\n\n"
        }
        let r = try extract(tree.create("three.mbox", contents: mbox))
        #expect(r.problems.isEmpty)
        #expect(r.children.count == 3)
        let own = try #require(r.attributes.textContent)
        #expect(own.contains("Note 1") && own.contains("Note 3"))
        #expect(own.contains("The capybara of message 3 is here."))   // the third message's body finds the mbox
        #expect(r.children.last?.attributes.textContent == "The capybara of message 3 is here.")
        // The cap bounds the mbox's own text; every child still has its own.
        let capped = try extract(tree.create("three-capped.mbox", contents: mbox), textCap: 60)
        #expect((capped.attributes.textContent?.utf8.count ?? 0) <= 60)
        #expect(capped.attributes[.textTruncated] == .bool(true))
        #expect(capped.attributes.textContent?.contains("capybara") == false)
        #expect(capped.children.count == 3)
    }

    @Test("multipart/alternative: the HTML part is read too when it says more; an attached message's plain and HTML")
    func alternativeHTML() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("alt.eml", bytes: Self.crlf([
            "From: ada@example.org",
            "Subject: Offer",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=outer",
            "",
            "--outer",
            "Content-Type: multipart/alternative; boundary=alt",
            "",
            "--alt",
            "Content-Type: text/plain; charset=utf-8",
            "",
            "See the offer below.",
            "--alt",
            "Content-Type: text/html; charset=utf-8",
            "",
            "<html><body><p>See the offer below.</p><table><tr><td>Harpsichord tuning, 40 euros</td></tr></table></body></html>",
            "--alt--",
            "--outer",
            "Content-Type: message/rfc822",
            "Content-Disposition: attachment; filename=\"forwarded.eml\"",
            "",
            "From: bob@example.org",
            "Subject: Inner note",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=inner",
            "",
            "--inner",
            "Content-Type: text/plain; charset=utf-8",
            "",
            "Plain words of the inner message.",
            "--inner",
            "Content-Type: multipart/related; boundary=rel",
            "",
            "--rel",
            "Content-Type: text/html; charset=utf-8",
            "",
            "<p>Plain words of the inner message, and a <b>theorbo</b> only the HTML names.</p>",
            "--rel--",
            "--inner--",
            "",
            "--outer--",
        ]))
        let a = try extract(p).attributes
        let text = try #require(a.textContent)
        #expect(text.contains("See the offer below."))
        #expect(text.contains("Harpsichord tuning, 40 euros"))    // the HTML alternative's own words
        #expect(text.contains("Plain words of the inner message."))
        #expect(text.contains("theorbo"))                         // the attached message's HTML
        #expect(!text.contains("<p>") && !text.contains("<b>"))
        #expect(a.strings(.attachmentNames) == ["forwarded.eml"])

        // An HTML alternative that says nothing more than its plain part is not read twice.
        let same = try tree.create("same.eml", bytes: Self.crlf([
            "From: ada@example.org", "Subject: Same", "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=alt", "",
            "--alt", "Content-Type: text/plain; charset=utf-8", "", "Hello there, Bob.",
            "--alt", "Content-Type: text/html; charset=utf-8", "", "<p>Hello <i>there</i>, Bob.</p>",
            "--alt--",
        ]))
        #expect(try extract(same).attributes.textContent == "Hello there, Bob.")
    }
}
