import Attributes
import Configuration
import Foundation
import Indexing
@testable import Querying
import TestSupport
import Testing

/// `from:me`, `author:me` and `to:me`: exact matches of the identity's name and addresses over
/// the people attributes, never words inside longer names or the text.
@Suite("Query language: me")
struct IdentityQueryTests {
    static let ada = Identity(name: "Ada Lovelace", emails: ["ada@example.org"], source: "config")

    static func item(_ name: String, _ attributes: [AttributeKey: AttributeValue]) -> SearchableItem {
        var a = AttributeSet()
        a[.name] = .string(name)
        for (k, v) in attributes { a[k] = v }
        return SearchableItem(uniqueIdentifier: ItemIdentifier("/m/" + name), domainIdentifier: "/m", attributes: a, expirationDate: nil)
    }

    /// Stored as the mail extractor stores messages (`Name <addr>`, names, addresses) and as
    /// documents store authors (plain names).
    static let items: [SearchableItem] = [
        item("mine.eml", [.authors: .strings(["Ada Lovelace <ada@example.org>"]), .authorNames: .strings(["Ada Lovelace"]),
                          .authorEmailAddresses: .strings(["ada@example.org"]), .recipients: .strings(["bob@example.org"]),
                          .recipientEmailAddresses: .strings(["bob@example.org"])]),
        item("byline.pdf", [.authors: .strings(["Charles Babbage", "ada lovelace"])]),
        item("address-only.eml", [.authors: .strings(["ADA@example.org"]), .authorEmailAddresses: .strings(["ADA@example.org"])]),
        item("other-name.eml", [.authors: .strings(["The Countess <ada@example.org>"])]),
        item("byron.eml", [.authors: .strings(["Ada Lovelace-Byron <ab@example.org>"]), .authorNames: .strings(["Ada Lovelace-Byron"]),
                           .authorEmailAddresses: .strings(["ab@example.org"])]),
        item("adam.pdf", [.authors: .strings(["Adam Lovelace"])]),
        item("uk.eml", [.authors: .strings(["x <ada@example.org.uk>"]), .authorEmailAddresses: .strings(["ada@example.org.uk"]),
                        .authorNames: .strings(["x"])]),
        item("to-me.eml", [.authors: .strings(["Bob <bob@example.org>"]), .authorNames: .strings(["Bob"]),
                           .authorEmailAddresses: .strings(["bob@example.org"]),
                           .recipients: .strings(["Ada Lovelace <ada@example.org>", "Carol <carol@example.org>"]),
                           .recipientNames: .strings(["Ada Lovelace", "Carol"]),
                           .recipientEmailAddresses: .strings(["ada@example.org", "carol@example.org"]),
                           .textContent: .string("Dear Ada Lovelace, from Bob")]),
        item("to-byron.eml", [.authors: .strings(["Bob <bob@example.org>"]), .recipients: .strings(["Ada Lovelace-Byron <ab@example.org>"]),
                              .recipientNames: .strings(["Ada Lovelace-Byron"]), .recipientEmailAddresses: .strings(["ab@example.org"])]),
        item("mention.txt", [.textContent: .string("Ada Lovelace wrote to ada@example.org about the engine"), .title: .string("Ada Lovelace")]),
    ]

    let tree: TemporaryTree
    let engine: QueryEngine

    init() throws {
        tree = try TemporaryTree(prefix: "fsindex-me")
        let store = try IndexStore(location: IndexLocation(directory: tree.path("index")))
        try store.indexSearchableItems(Self.items)
        engine = QueryEngine(store: store)
    }

    func names(_ query: String, _ identity: Identity? = ada) throws -> Set<String> {
        let parsed = try ShortQueryParser.parse(query, identity: identity)
        return Set(try engine.run(QuerySpec(predicate: parsed.predicate)).map { String($0.identifier.description.split(separator: "/").last!) })
    }

    @Test("from:me and author:me: the name or an address as a whole value, any case; not longer names, other addresses or the text")
    func authors() throws {
        let mine: Set = ["mine.eml", "byline.pdf", "address-only.eml", "other-name.eml"]
        for q in ["from:me", "author:me", "by:me", "authors:me", "FROM:ME", "from:Me"] {
            #expect(try names(q) == mine, "\(q)")
        }
        #expect(try names("-from:me") == ["byron.eml", "adam.pdf", "uk.eml", "to-me.eml", "to-byron.eml", "mention.txt"])
        #expect(try names("from:me OR to:me") == mine.union(["to-me.eml"]))
        #expect(try names("from:me engine") == [])
        #expect(try names("from:bob to:me") == ["to-me.eml"])
    }

    @Test("to:me: the recipients, with the same exactness")
    func recipients() throws {
        #expect(try names("to:me") == ["to-me.eml"])
        #expect(try names("to:me", Identity(name: nil, emails: ["bob@example.org"])) == ["mine.eml"])
    }

    @Test("an identity with only a name, or only addresses, matches by what it has")
    func partialIdentity() throws {
        #expect(try names("from:me", Identity(name: "ada lovelace", emails: [])) == ["mine.eml", "byline.pdf"])
        #expect(try names("from:me", Identity(name: nil, emails: ["Ada@Example.org"])) == ["mine.eml", "address-only.eml", "other-name.eml"])
        #expect(try names("from:me", Identity(name: "Ada Lovelace-Byron", emails: [])) == ["byron.eml"])
        // Wildcards and LIKE's specials in a name are literal.
        #expect(try names("from:me", Identity(name: "Ada*", emails: ["%@example.org"])) == [])
    }

    @Test("a quoted \"me\", or me in another field, is the word itself")
    func quotedMe() throws {
        #expect(try names("from:\"me\"", nil) == [])
        #expect(try names("title:me", nil) == [])
        #expect(try names("from:mel", nil) == [])
    }

    @Test("without an identity, me is an error that says how to set one, with a caret under me")
    func unknown() throws {
        for (query, position) in [("from:me", 5), ("budget to:me", 10), ("(author:ME)", 8)] {
            do {
                _ = try ShortQueryParser.parse(query)
                Issue.record("\(query) should fail")
            } catch {
                guard case .syntax(let e) = error else { Issue.record("\(query): \(error)"); continue }
                #expect(e.position == position, "\(query)")
                #expect(e.message == ShortQueryParser.unknownMe)
                #expect(error.description.contains("[agent] me = { name ="), "\(error)")
            }
        }
        // An empty identity is no identity.
        #expect(throws: QueryError.self) { try ShortQueryParser.parse("from:me", identity: Identity(name: " ", emails: [])) }
    }

    @Test("QueryRequest carries the identity to the parser")
    func request() throws {
        #expect(throws: QueryError.self) { try QueryRequest(text: "from:me").makeSpec() }
        let spec = try QueryRequest(text: "from:me", identity: Self.ada).makeSpec()
        #expect(spec.predicate == ItemPredicate.involving(Self.ada, as: .author).simplified)
        #expect(Set(try engine.run(spec).map { String($0.identifier.description.split(separator: "/").last!) }).contains("mine.eml"))
    }
}
