import Attributes
import Crawling

/// A file's type as FSIndex records it: MIME type, UTI, the UTI's conformance tree, and the kind
/// word Spotlight shows.
package struct TypeDetection: Sendable, Hashable {
    package var mimeType: String
    package var contentType: ContentType
    /// `contentType` and all its ancestors, nearest first; for regular files it always ends with
    /// `public.content` (where the type is content), `public.data`, `public.item`.
    package var contentTypeTree: [ContentType]
    package var kind: String
}

/// Decides a file's type from what libmagic saw in its bytes and what its name says.
///
/// A key design decision: libmagic is trusted for what it is sure of, and the name's glob is
/// taken when libmagic's answer is generic or is an ancestor of the glob's type. So a `.docx`
/// that some magic versions call `application/zip` is a Word document, a `.md` that libmagic calls
/// `text/plain` is Markdown, an `.svg` libmagic calls `text/xml` is SVG, a `.cpp` libmagic calls
/// `text/x-c` is C++; but a `.odt` whose bytes are plain text stays plain text (the glob type is
/// not textual), and a PNG named `.txt` stays a PNG.
///
/// For example:
/// ```swift
/// let d = TypeDetector().detect(name: Array("notes.md".utf8), magic: ("text/plain", "utf-8"), isEmpty: false)
/// d.contentType        // net.daringfireball.markdown
/// d.contentTypeTree    // [markdown, public.plain-text, public.text, public.content, public.data, public.item]
/// ```
///
/// MIME types map to UTIs through `WellKnownType.byMIMEType`. A type without a well-known UTI
/// becomes `ContentType.dynamic(mimeType:)`; its tree is then made of the UTIs of its MIME
/// ancestors (`<sub-class-of>`, then the `text/*`-style wildcard), and its kind is the MIME
/// database's comment. An empty file takes its name's type, else `public.empty`.
package struct TypeDetector: Sendable {
    /// Bumped in `ExtractionVersions.typeDetection` when detection changes, so that items are re-typed.
    package static var version: Int { ExtractionVersions.typeDetection }

    package let database: MIMEDatabase

    /// The well-known table keyed by canonical MIME type (the table may list an alias).
    private let knownByMIMEType: [String: WellKnownType]

    package init(database: MIMEDatabase = .shared) {
        self.database = database
        var known = WellKnownType.byMIMEType
        for (mime, type) in WellKnownType.byMIMEType where known[database.canonical(mime)] == nil {
            known[database.canonical(mime)] = type
        }
        knownByMIMEType = known
    }

    /// The type of a regular file.
    /// - Parameters:
    ///   - name: the file name's raw bytes (last path component).
    ///   - magic: libmagic's MIME type and charset for the first bytes, or nil when unknown
    ///     (unreadable file).
    ///   - isEmpty: whether the file has no bytes.
    package func detect(name: [UInt8], magic: (mimeType: String, charset: String?)?, isEmpty: Bool) -> TypeDetection {
        describe(mimeType: chooseMIMEType(name: name, magic: magic?.mimeType, isEmpty: isEmpty), original: magic?.mimeType)
    }

    /// The MIME type to record, from libmagic's answer and the name (see the type's overview).
    package func chooseMIMEType(name: [UInt8], magic: String?, isEmpty: Bool) -> String {
        let glob = globType(forName: name)
        if isEmpty { return glob ?? "application/x-zerosize" }
        guard let magic else { return glob ?? "application/octet-stream" }
        let found = database.canonical(magic)
        guard let glob, glob != found else { return found }
        if found == "application/octet-stream" { return glob }
        if found == "text/plain" || found == "inode/x-empty" { return isTextual(glob) ? glob : found }
        if database.isSubtype(glob, of: found) { return glob }
        return found
    }

    /// The canonical type a file name implies, from the MIME database's globs, else from the
    /// well-known extension table.
    package func globType(forName name: [UInt8]) -> String? {
        if let t = database.globType(forName: name) { return database.canonical(t) }
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex,
              let ext = String(validating: name[(dot + 1)...], as: UTF8.self)?.lowercased(), !ext.isEmpty,
              let known = WellKnownType.byExtension[ext], let mime = known.mimeTypes.first
        else { return nil }
        return database.canonical(mime)
    }

    /// Whether a type is text, by the MIME database or the well-known table.
    package func isTextual(_ mimeType: String) -> Bool {
        if mimeType.hasPrefix("text/") || database.isSubtype(mimeType, of: "text/plain") { return true }
        return describe(mimeType: mimeType, original: nil).contentTypeTree.contains(.text)
    }

    /// UTI, tree and kind for a MIME type.
    package func describe(mimeType: String, original: String? = nil) -> TypeDetection {
        let mime = database.canonical(mimeType)
        let sameType = original.map { database.canonical($0) == mime } ?? false
        if let known = wellKnown(mime) ?? (sameType ? original.flatMap(wellKnown) : nil) {
            return TypeDetection(mimeType: mime, contentType: known.identifier,
                                 contentTypeTree: Self.normalized(known.identifier.tree, regular: true), kind: known.kind)
        }
        var tree: [ContentType] = [.dynamic(mimeType: mime)]
        var wildcardKind: String?
        for ancestor in database.ancestors(of: mime) {
            if let known = wellKnown(ancestor) { tree += known.identifier.tree }
        }
        if tree.count == 1, let slash = mime.firstIndex(of: "/"),
           let wildcard = WellKnownType.byMIMEType[mime[..<slash] + "/*"] {
            tree += wildcard.identifier.tree
            wildcardKind = wildcard.kind
        }
        let kind = database.comment(for: mime).map(Self.capitalizedFirst) ?? wildcardKind ?? "Document"
        return TypeDetection(mimeType: mime, contentType: tree[0], contentTypeTree: Self.normalized(tree, regular: true), kind: kind)
    }

    /// The type of a directory, symlink, FIFO, socket or device, from its file type alone.
    package static func nonRegular(_ type: FileType) -> TypeDetection {
        let (id, mime): (ContentType, String) = switch type {
        case .directory: (.folder, "inode/directory")
        case .symlink: (.symlink, "inode/symlink")
        case .fifo: (.fifo, "inode/fifo")
        case .socket: (.socket, "inode/socket")
        case .characterDevice: (.device, "inode/chardevice")
        case .blockDevice: (.device, "inode/blockdevice")
        case .regular, .unknown: (.item, "application/octet-stream")
        }
        return TypeDetection(mimeType: mime, contentType: id, contentTypeTree: normalized(id.tree, regular: false),
                             kind: id.wellKnown?.kind ?? "Item")
    }

    private func wellKnown(_ mime: String) -> WellKnownType? {
        knownByMIMEType[mime]
    }

    /// Each type once, the roots last: `public.content` (if present), `public.data` and
    /// `public.item` (always, for regular files).
    static func normalized(_ tree: [ContentType], regular: Bool) -> [ContentType] {
        let roots: Set<ContentType> = [.content, .data, .item]
        var out: [ContentType] = []
        for t in tree where !roots.contains(t) && !out.contains(t) { out.append(t) }
        if tree.contains(.content) { out.append(.content) }
        if regular || tree.contains(.data) { out.append(.data) }
        out.append(.item)
        return out
    }

    static func capitalizedFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }
}
