import Attributes
import Foundation

extension ItemPredicate {
    /// The people attributes an identity is looked for in.
    package enum PersonRole: Sendable, Hashable {
        /// Senders and authors: `authors`, `authorNames`, `authorEmailAddresses` (`from:`, `author:`).
        case author
        /// Recipients: `recipients`, `recipientNames`, `recipientEmailAddresses` (`to:`).
        case recipient

        var keys: (display: AttributeKey, names: AttributeKey, emails: AttributeKey) {
            switch self {
            case .author: (.authors, .authorNames, .authorEmailAddresses)
            case .recipient: (.recipients, .recipientNames, .recipientEmailAddresses)
            }
        }
    }

    /// Items whose authors (or recipients) are this person: a whole value equal to the name or
    /// to one of the addresses, ignoring case, never a word inside a longer value.
    ///
    /// Mail stores each sender as `Name <addr>` in `authors`, the names in `authorNames` and the
    /// addresses in `authorEmailAddresses`; documents store plain names in `authors`. So "Ada
    /// Lovelace" with "ada@example.org" matches an author "Ada Lovelace", "ada lovelace
    /// <x@y.org>", "Someone <ADA@example.org>" or the address itself, and not "Ada
    /// Lovelace-Byron", "Adam Lovelace", "ada@example.org.uk" nor a text that mentions her.
    ///
    /// Cost: each name or address first narrows the rows through the full-text index (the
    /// people attributes are its `other` column), so only items that hold its words have their
    /// attributes read; a name with no letter or digit is matched by reading every item.
    package static func involving(_ identity: Identity, as role: PersonRole) -> ItemPredicate {
        let keys = role.keys
        func equal(_ key: AttributeKey, _ pattern: String) -> ItemPredicate {
            .compare(AttributeComparison(key, .equal, .text(TextPattern(pattern, [.caseInsensitive]))))
        }
        /// The exact test, behind the index lookup of the same words.
        func narrowed(_ text: String, _ exact: [ItemPredicate]) -> ItemPredicate {
            guard let term = SearchPattern.Term(text), let words = SearchPattern(groups: [[term]], column: .other) else {
                return .or(exact)
            }
            return .and([.text(words), .or(exact)])
        }
        var facets: [ItemPredicate] = []
        if let name = identity.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
            let literal = TextPattern.literal(name)
            facets.append(narrowed(name, [equal(keys.names, literal), equal(keys.display, literal),
                                          equal(keys.display, literal + " <*>")]))
        }
        for email in identity.emails.map({ $0.trimmingCharacters(in: .whitespaces) }) where !email.isEmpty {
            let literal = TextPattern.literal(email)
            facets.append(narrowed(email, [equal(keys.emails, literal), equal(keys.display, literal),
                                           equal(keys.display, "*<" + literal + ">")]))
        }
        return facets.isEmpty ? .none : .or(facets)
    }
}
