import MemberwiseInit
/// Who "me" is in a query (`from:me`, `author:me`, `to:me`): a name and e-mail addresses.
///
/// A value of the vocabulary, so that the query layer can match it without reading any
/// settings: Configuration finds it (`Identity.resolve`, from `[agent] me`, git's config files
/// or the passwd entry), and Querying matches it (`ItemPredicate.involving`).
@MemberwiseInit
package struct Identity: Sendable, Hashable, Codable {
    /// The person's name as it appears in a `From:` header or an author field.
    package var name: String? = nil
    /// The person's addresses, matched without regard to case.
    package var emails: [String] = []
    /// Where the identity came from, for messages and `describe`: `config`, `git`, `passwd`
    /// or `passwd and git`.
    package var source: String = "config"

    /// Whether it says nothing (no name, no address): such an identity matches nothing.
    package var isEmpty: Bool {
        (name ?? "").allSatisfy(\.isWhitespace) && emails.allSatisfy { $0.allSatisfy(\.isWhitespace) }
    }
}
