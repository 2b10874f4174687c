import Attributes
import Foundation

/// A searchable item with the attributes the index and query tests look at: a name from the last
/// path component, a title, text, a type with its whole tree and its kind word.
package func makeItem(_ path: String, domain: String, title: String? = nil, text: String? = nil,
                     type: ContentType = .plainText, expires: Date? = nil) -> SearchableItem {
    var a = AttributeSet()
    a[.name] = .string(String(path.split(separator: "/").last ?? ""))
    a.title = title
    a.textContent = text
    a.contentType = type
    a.contentTypeTree = type.tree
    a.kind = type.wellKnown?.kind
    return SearchableItem(uniqueIdentifier: ItemIdentifier(path), domainIdentifier: domain, attributes: a, expirationDate: expires)
}
