/// A Uniform Type Identifier, such as `public.jpeg` or `com.adobe.pdf`, as Spotlight uses them.
///
/// Types form a conformance tree: `public.jpeg` conforms to `public.image`, which conforms to
/// `public.data` and `public.item`. An item stores its whole chain in `contentTypeTree`, so that a
/// query for `public.image` finds every image. Types FSIndex does not know by name come from the
/// shared MIME database as `org.freedesktop.mime.<type>.<subtype>` (see `init(mimeType:)`).
package struct ContentType: StringName {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The identifier for a MIME type that has no well-known UTI.
    package static func dynamic(mimeType: String) -> ContentType {
        ContentType(rawValue: "org.freedesktop.mime." + mimeType.lowercased().replacingSlash())
    }

    /// The type a MIME type names where a query asks for a type (`kind:application/gzip`,
    /// `kMDItemContentTypeTree == "application/gzip"`): its well-known UTI, else its dynamic one
    /// (`org.freedesktop.mime.…`); an `x-` subtype the table lacks is tried without its prefix
    /// (`application/x-gzip`). Matched against the type tree, so a type's sub-classes are found
    /// too: a `.tgz` (`application/x-compressed-tar`, a sub-class of `application/gzip` in
    /// shared-mime-info) holds the gzip UTI in its tree (issue 28). Items store UTIs only, as
    /// Spotlight does, so without this a MIME type in a type query found nothing.
    package static func forQuery(mimeType: String) -> ContentType {
        let m = mimeType.lowercased()
        if let known = WellKnownType.byMIMEType[m] { return known.identifier }
        if let slash = m.firstIndex(of: "/"), m[m.index(after: slash)...].hasPrefix("x-"),
           let known = WellKnownType.byMIMEType[String(m[...slash]) + m[m.index(slash, offsetBy: 3)...]] {
            return known.identifier
        }
        return .dynamic(mimeType: m)
    }

    /// The type a query's type value names: a UTI as written, a MIME type (`a/b`) through
    /// `forQuery(mimeType:)`.
    package static func forQuery(_ value: String) -> ContentType {
        value.contains("/") ? forQuery(mimeType: value) : ContentType(rawValue: value)
    }

    /// The well-known description of this type, if there is one.
    package var wellKnown: WellKnownType? { WellKnownType.byIdentifier[self] }

    /// The type's direct parents among the well-known types.
    package var parents: [ContentType] { wellKnown?.parents ?? [] }

    /// This type followed by all its ancestors, nearest first, each once, ending with
    /// `public.data` and `public.item` for data types.
    package var tree: [ContentType] {
        var out: [ContentType] = []
        var queue: [ContentType] = [self]
        while !queue.isEmpty {
            let t = queue.removeFirst()
            if out.contains(t) { continue }
            out.append(t)
            queue.append(contentsOf: t.parents)
        }
        return out
    }

    package func conforms(to other: ContentType) -> Bool { tree.contains(other) }
}

extension String {
    fileprivate func replacingSlash() -> String {
        String(map { $0 == "/" ? "." : $0 })
    }
}

extension ContentType {
    package static let item: Self = "public.item"
    package static let data: Self = "public.data"
    package static let content: Self = "public.content"
    package static let folder: Self = "public.folder"
    package static let directory: Self = "public.directory"
    package static let symlink: Self = "public.symlink"
    package static let text: Self = "public.text"
    package static let plainText: Self = "public.plain-text"
    package static let html: Self = "public.html"
    package static let xhtml: Self = "public.xhtml"
    package static let xml: Self = "public.xml"
    package static let sourceCode: Self = "public.source-code"
    package static let image: Self = "public.image"
    package static let jpeg: Self = "public.jpeg"
    package static let png: Self = "public.png"
    package static let audio: Self = "public.audio"
    package static let movie: Self = "public.movie"
    package static let archive: Self = "public.archive"
    package static let pdf: Self = "com.adobe.pdf"
    package static let troff: Self = "public.troff"
    /// A manual page (`man(7)` or `mdoc(7)` source). Apple declares no UTI for it, so it is
    /// named after its MIME type, as types without a well-known UTI are.
    package static let manualPage: Self = "org.freedesktop.mime.application.x-troff-man"
    package static let emptyFile: Self = "public.empty"
    package static let fifo: Self = "public.fifo"
    package static let socket: Self = "public.socket"
    package static let device: Self = "public.device"
    package static let executable: Self = "public.executable"
}
