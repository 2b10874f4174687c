import Attributes
import Donating
import Foundation
import Testing

@Suite("Donations: reading apps' items")
struct DonationReaderTests {
    func read(_ text: String, domain: String = "notes") throws(DonationError) -> [SearchableItem] {
        try DonationReader.read(Array(text.utf8), domain: domain)
    }

    @Test("items with typed attributes, DOMAIN:ID identifiers, expiration, blank lines skipped")
    func items() throws {
        let items = try read("""
            {"uniqueIdentifier": "n1", "attributes": {"title": "Budget", "textContent": "words", "keywords": ["a", "b"], "pageCount": 3, "contentCreationDate": "2026-11-01T09:00:00Z"}}

            {"uniqueIdentifier": "n2", "attributes": {"contentURL": "https://x.example/2", "authors": "Ada"}, "expirationDate": 1900000000}
            """)
        #expect(items.count == 2)
        #expect(items[0].uniqueIdentifier.bytes == Array("notes:n1".utf8) && items[0].uniqueIdentifier.isDonated)
        #expect(items[0].uniqueIdentifier.donatedParts?.id == "n1")
        #expect(items[0].attributes.title == "Budget" && items[0].attributes.strings(.keywords) == ["a", "b"])
        #expect(items[0].attributes.integer(.pageCount) == 3)
        #expect(items[0].attributes.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_793_523_600))
        #expect(items[0].attributes.string(.name) == "Budget")
        #expect(items[1].attributes.strings(.authors) == ["Ada"])
        #expect(items[1].expirationDate == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(items[1].attributes.string(.name) == "n2")
    }

    @Test("every bad item is an error naming its line, and the batch is refused whole")
    func errors() {
        let cases: [(String, String)] = [
            ("{\"uniqueIdentifier\": \"a\"}\n{not json", "line 2: is not valid JSON"),
            ("[1]", "line 1: is not a JSON object"),
            ("{\"attributes\": {}}", "line 1: uniqueIdentifier is missing"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"colour\": \"red\"}}", "\"colour\" is not an attribute"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"pageCount\": \"three\"}}", "pageCount must be a whole number"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"pageCount\": 2.5}}", "pageCount must be a whole number"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"contentCreationDate\": \"yesterday\"}}", "must be a date"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"path\": \"/etc/passwd\"}}", "is the index's own"),
            ("{\"uniqueIdentifier\": \"a\", \"extra\": 1}", "\"extra\" is not a field"),
            ("{\"uniqueIdentifier\": \"a\"}\n{\"uniqueIdentifier\": \"a\"}", "line 2: uniqueIdentifier \"a\" appears twice"),
            ("{\"uniqueIdentifier\": \"a\", \"attributes\": {\"textContent\": \"\(String(repeating: "x", count: 262_145))\"}}", "256 KiB"),
        ]
        for (text, expected) in cases {
            do {
                _ = try read(text)
                Issue.record("accepted: \(text.prefix(80))")
            } catch {
                #expect(error.description.contains(expected), "\(error.description)")
                #expect(error.description.contains("nothing of this batch was written"))
            }
        }
        let many = "{\"uniqueIdentifier\": \"a\", \"attributes\": {" + (0..<65).map { "\"title\($0)\": 1" }.joined(separator: ",") + "}}"
        #expect(throws: DonationError.self) { try read(many) }
        #expect(throws: DonationError.badDomain("no/slash")) { try read("", domain: "no/slash") }
        #expect(throws: DonationError.self) { try read("", domain: "") }
    }

    @Test("socket items are numbered as items")
    func objects() {
        do {
            _ = try DonationReader.read(objects: [Array("{\"uniqueIdentifier\": \"a\"}".utf8), Array("{}".utf8)], domain: "notes")
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("item 2: uniqueIdentifier is missing"))
        }
    }
}
