/// A Uniform Type Identifier, such as `public.jpeg` or `com.adobe.pdf`, as Spotlight uses them.
///
/// Types form a conformance tree: `public.jpeg` conforms to `public.image`, which conforms to
/// `public.data` and `public.item`. An item stores its whole chain in `contentTypeTree`, so that a
/// query for `public.image` finds every image. Types FSIndex does not know by name come from the
/// shared MIME database as `org.freedesktop.mime.<type>.<subtype>` (see `init(mimeType:)`).
public struct ContentType: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// The identifier for a MIME type that has no well-known UTI.
    public static func dynamic(mimeType: String) -> ContentType {
        ContentType(rawValue: "org.freedesktop.mime." + mimeType.lowercased().replacingSlash())
    }

    /// The type a MIME type names where a query asks for a type (`kind:application/gzip`,
    /// `kMDItemContentTypeTree == "application/gzip"`): its well-known UTI, else its dynamic one
    /// (`org.freedesktop.mime.…`); an `x-` subtype the table lacks is tried without its prefix
    /// (`application/x-gzip`). Matched against the type tree, so a type's sub-classes are found
    /// too: a `.tgz` (`application/x-compressed-tar`, a sub-class of `application/gzip` in
    /// shared-mime-info) holds the gzip UTI in its tree (issue 28). Items store UTIs only, as
    /// Spotlight does, so without this a MIME type in a type query found nothing.
    public static func forQuery(mimeType: String) -> ContentType {
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
    public static func forQuery(_ value: String) -> ContentType {
        value.contains("/") ? forQuery(mimeType: value) : ContentType(rawValue: value)
    }

    /// The well-known description of this type, if there is one.
    public var wellKnown: WellKnownType? { WellKnownType.byIdentifier[self] }

    /// The type's direct parents among the well-known types.
    public var parents: [ContentType] { wellKnown?.parents ?? [] }

    /// This type followed by all its ancestors, nearest first, each once, ending with
    /// `public.data` and `public.item` for data types.
    public var tree: [ContentType] {
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

    public func conforms(to other: ContentType) -> Bool { tree.contains(other) }
}

extension String {
    fileprivate func replacingSlash() -> String {
        String(map { $0 == "/" ? "." : $0 })
    }
}

extension ContentType {
    public static let item: Self = "public.item"
    public static let data: Self = "public.data"
    public static let content: Self = "public.content"
    public static let folder: Self = "public.folder"
    public static let directory: Self = "public.directory"
    public static let symlink: Self = "public.symlink"
    public static let text: Self = "public.text"
    public static let plainText: Self = "public.plain-text"
    public static let html: Self = "public.html"
    public static let xhtml: Self = "public.xhtml"
    public static let xml: Self = "public.xml"
    package static let sourceCode: Self = "public.source-code"
    public static let image: Self = "public.image"
    public static let jpeg: Self = "public.jpeg"
    public static let png: Self = "public.png"
    public static let audio: Self = "public.audio"
    public static let movie: Self = "public.movie"
    public static let archive: Self = "public.archive"
    public static let pdf: Self = "com.adobe.pdf"
    public static let troff: Self = "public.troff"
    /// A manual page (`man(7)` or `mdoc(7)` source). Apple declares no UTI for it, so it is
    /// named after its MIME type, as types without a well-known UTI are.
    public static let manualPage: Self = "org.freedesktop.mime.application.x-troff-man"
    package static let emptyFile: Self = "public.empty"
    public static let fifo: Self = "public.fifo"
    public static let socket: Self = "public.socket"
    public static let device: Self = "public.device"
    public static let executable: Self = "public.executable"
}
