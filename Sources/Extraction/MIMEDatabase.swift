import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// The freedesktop.org shared MIME database: canonical types, aliases, sub-class-of links,
/// file-name globs and the English description of each type.
///
/// It is read once per process from `$XDG_DATA_DIRS/mime/packages/*.xml` (default
/// `/usr/local/share:/usr/share`), where `freedesktop.org.xml` (about 2.4 MB, 850 types) is the
/// big one. A key design decision: the XML is read with libxml2's streaming `xmlTextReader`,
/// skipping the `<magic>` and translated `<comment>` subtrees, and nothing but the five things
/// FSIndex needs is kept; libmagic, not this database, sniffs content.
///
/// For example:
/// ```swift
/// let db = MIMEDatabase.shared
/// db.canonical("text/x-c")                    // "text/x-csrc"
/// db.globType(forName: Array("a.docx".utf8))  // "application/vnd.openxmlformats-officedocument..."
/// db.isSubtype("text/markdown", of: "text/plain")  // true
/// ```
///
/// Cost: about 45 ms to load, once (measured in `TypeDetectorTests`). When no database is
/// installed, `shared` is empty, `diagnostic` says so, and `TypeDetector` falls back on
/// `WellKnownType` alone.
public struct MIMEDatabase: Sendable {
    /// Alias → canonical type.
    public private(set) var aliases: [String: String] = [:]
    /// Type → its direct parents (`<sub-class-of>`).
    public private(set) var parents: [String: [String]] = [:]
    /// Type → untranslated `<comment>` ("PDF document").
    public private(set) var comments: [String: String] = [:]
    /// Lower-cased extension (`"tar.gz"`, `"docx"`) → the types of highest weight, for `*.ext`
    /// globs. Ties are common (`*.opus` is both `audio/ogg` and `audio/x-opus+ogg`).
    private var extensionGlobs: [String: GlobMatch] = [:]
    /// Case-sensitive `*.ext` globs (`*.C` is C++).
    private var exactExtensionGlobs: [String: GlobMatch] = [:]

    struct GlobMatch: Sendable {
        var weight: Int
        var types: [String]

        mutating func add(_ type: String, weight w: Int) {
            if w > weight { self = GlobMatch(weight: w, types: [type]) }
            else if w == weight, !types.contains(type) { types.append(type) }
        }
    }
    /// Literal file names (`Makefile`, `README`) → type.
    private var literalGlobs: [String: String] = [:]
    /// The files read, for `fsindex` diagnostics.
    public private(set) var sources: [String] = []
    /// Why the database is empty or partial, if it is.
    public private(set) var diagnostic: String?

    /// The database of this process, loaded on first use.
    public static let shared = MIMEDatabase(searchPath: nil)

    public var isEmpty: Bool { comments.isEmpty && extensionGlobs.isEmpty }

    /// Loads every `mime/packages/*.xml` below the given data directories (colon-separated, as in
    /// `XDG_DATA_DIRS`). Nil means the environment's value or its default.
    public init(searchPath: String?) {
        _ = LibXML.ready
        let dirs = searchPath ?? Self.environmentSearchPath()
        var seen = Set<String>()
        for dir in dirs.split(separator: ":") where !dir.isEmpty {
            let packages = String(dir) + "/mime/packages"
            for file in Self.xmlFiles(in: packages) where !seen.contains(file) {
                seen.insert(file)
                if load(file: packages + "/" + file) { sources.append(packages + "/" + file) }
            }
        }
        if sources.isEmpty {
            diagnostic = "no shared MIME database found in \(dirs) (mime/packages/*.xml); "
                + "file types come from the built-in table only; install the shared-mime-info package"
        }
    }

    // MARK: Queries

    /// The canonical name of a type (resolving an alias), lower-cased.
    public func canonical(_ mimeType: String) -> String {
        let m = mimeType.lowercased()
        return aliases[m] ?? m
    }

    /// The type's ancestors through `<sub-class-of>`, nearest first, each once. Implicit parents
    /// from the spec are added: every `text/*` is a `text/plain`, every type an
    /// `application/octet-stream` (last), and `*+xml` types are `application/xml`.
    public func ancestors(of mimeType: String) -> [String] {
        var out: [String] = []
        var queue = [canonical(mimeType)]
        var seen = Set(queue)
        while !queue.isEmpty {
            let t = queue.removeFirst()
            var next = parents[t] ?? []
            if t.hasPrefix("text/") && t != "text/plain" { next.append("text/plain") }
            if t.hasSuffix("+xml") { next.append("application/xml") }
            for p in next.map(canonical) where !seen.contains(p) && p != "application/octet-stream" {
                seen.insert(p)
                out.append(p)
                queue.append(p)
            }
        }
        return out
    }

    /// Whether `type` is `ancestor` or descends from it.
    public func isSubtype(_ type: String, of ancestor: String) -> Bool {
        let a = canonical(ancestor)
        return canonical(type) == a || ancestors(of: type).contains(a)
    }

    /// The untranslated description of a type, such as "Markdown document".
    public func comment(for mimeType: String) -> String? { comments[canonical(mimeType)] }

    /// The type a file name implies through a literal or `*.ext` glob (the longest extension
    /// wins: `a.tar.gz` is a compressed tar, not just gzip), or nil.
    public func globType(forName name: [UInt8]) -> String? {
        guard let text = String(validating: name, as: UTF8.self) else {
            // A non-UTF-8 name can still have an ASCII extension.
            return globType(forName: Array(name.suffix(while: { $0 < 0x80 && $0 != 0 })))
        }
        if let t = literalGlobs[text] { return t }
        var index = text.startIndex
        var candidates: [Substring] = []
        while let dot = text[index...].firstIndex(of: ".") {
            let ext = text[text.index(after: dot)...]
            if !ext.isEmpty && dot != text.startIndex { candidates.append(ext) }
            index = text.index(after: dot)
        }
        for ext in candidates {   // longest first
            if let hit = exactExtensionGlobs[String(ext)] ?? extensionGlobs[ext.lowercased()] { return mostSpecific(hit.types) }
        }
        return nil
    }

    /// Of types that tie, the one that is a sub-class of the others (else the first).
    private func mostSpecific(_ types: [String]) -> String? {
        guard types.count > 1 else { return types.first }
        return types.first { t in types.allSatisfy { $0 == t || isSubtype(t, of: $0) } } ?? types.first
    }

    // MARK: Loading

    static func environmentSearchPath() -> String {
        if let p = getenv("XDG_DATA_DIRS"), let s = String(validatingCString: p), !s.isEmpty { return s }
        return "/usr/local/share:/usr/share"
    }

    private static func xmlFiles(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasSuffix(".xml") && !name.hasPrefix(".") { out.append(name) }
        }
        // freedesktop.org.xml first, so that its comments win over add-on packages'.
        return out.sorted { ($0 == "freedesktop.org.xml" ? 0 : 1, $0) < ($1 == "freedesktop.org.xml" ? 0 : 1, $1) }
    }

    /// Streams one package file; returns whether it could be read at all.
    private mutating func load(file: String) -> Bool {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                            | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue)
        guard let reader = xmlReaderForFile(file, nil, options) else { return false }
        defer { xmlFreeTextReader(reader) }
        var current: String?
        var readAny = false
        var status = xmlTextReaderRead(reader)
        while status == 1 {
            readAny = true
            guard xmlTextReaderNodeType(reader) == 1 /* element */,
                  let local = LibXML.string(xmlTextReaderConstLocalName(reader))
            else {
                status = xmlTextReaderRead(reader)
                continue
            }
            switch local {
            case "mime-type":
                current = attribute(reader, "type")?.lowercased()
            case "alias":
                if let current, let alias = attribute(reader, "type")?.lowercased() { aliases[alias] = current }
            case "sub-class-of":
                if let current, let parent = attribute(reader, "type")?.lowercased() { parents[current, default: []].append(parent) }
            case "glob":
                if let current, let pattern = attribute(reader, "pattern") {
                    let weight = attribute(reader, "weight").flatMap { Int($0) } ?? 50
                    let caseSensitive = attribute(reader, "case-sensitive") == "true"
                    addGlob(pattern, type: current, weight: weight, caseSensitive: caseSensitive)
                }
            case "comment":
                if let current, xmlTextReaderHasAttributes(reader) == 0, comments[current] == nil,
                   let text = LibXML.take(xmlTextReaderReadString(reader)) {
                    comments[current] = text
                }
                status = xmlTextReaderNext(reader)
                continue
            case "magic", "treemagic", "acronym", "expanded-acronym", "root-XML":
                status = xmlTextReaderNext(reader)   // skip the subtree
                continue
            default:
                break
            }
            status = xmlTextReaderRead(reader)
        }
        return readAny && status == 0
    }

    private func attribute(_ reader: xmlTextReaderPtr, _ name: String) -> String? {
        LibXML.take(xmlTextReaderGetAttribute(reader, name))
    }

    private mutating func addGlob(_ pattern: String, type: String, weight: Int, caseSensitive: Bool) {
        let wild: (Character) -> Bool = { $0 == "*" || $0 == "?" || $0 == "[" }
        if pattern.hasPrefix("*."), !pattern.dropFirst(2).contains(where: wild) {
            let ext = String(pattern.dropFirst(2))
            if caseSensitive {
                exactExtensionGlobs[ext, default: GlobMatch(weight: weight, types: [])].add(type, weight: weight)
            } else {
                extensionGlobs[ext.lowercased(), default: GlobMatch(weight: weight, types: [])].add(type, weight: weight)
            }
        } else if !pattern.contains(where: wild), literalGlobs[pattern] == nil {
            literalGlobs[pattern] = type
        }
    }
}

extension Array where Element == UInt8 {
    /// The longest suffix whose bytes all satisfy `predicate`.
    func suffix(while predicate: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        var start = endIndex
        while start > startIndex, predicate(self[start - 1]) { start -= 1 }
        return self[start...]
    }
}
