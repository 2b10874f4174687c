import FoundationEssentials
import SystemCalls
import Synchronization
import Glibc

/// The freedesktop.org shared MIME database: canonical types, aliases, sub-class-of links,
/// file-name globs and the English description of each type.
///
/// It is read once per process from the files `update-mime-database` compiles into
/// `$XDG_DATA_DIRS/mime/` (default `/usr/local/share:/usr/share`), as GLib's xdgmime does:
/// `globs2`, `aliases` and `subclasses` are plain text lines, read whole (about 1,100 globs); a
/// type's comment is read on first use from its own small generated file (`mime/text/x-csrc.xml`)
/// and kept. A key design decision: no XML parser is linked for this, because the parent
/// process (fsindex, fsindexd) types files by name and must link no parser of any kind; the
/// generated files are the database's machine-written form, so a line scan reads them exactly.
/// libmagic, not this database, sniffs content.
///
/// For example:
/// ```swift
/// let db = MIMEDatabase.shared
/// db.canonical("text/x-c")                    // "text/x-csrc"
/// db.globType(forName: Array("a.docx".utf8))  // "application/vnd.openxmlformats-officedocument..."
/// db.isSubtype("text/markdown", of: "text/plain")  // true
/// ```
///
/// Cost: about 2 ms to load, once (measured in `TypeDetectorTests`; the 2.4 MB XML package file
/// took 45 ms through libxml2). When no database is
/// installed, `shared` is empty, `diagnostic` says so, and `TypeDetector` falls back on
/// `WellKnownType` alone.
package struct MIMEDatabase: Sendable {
    /// Alias → canonical type.
    package private(set) var aliases: [String: String] = [:]
    /// Type → its direct parents (`<sub-class-of>`).
    package private(set) var parents: [String: [String]] = [:]
    /// Type → untranslated `<comment>` ("PDF document"), filled on first use.
    private let comments = CommentCache()
    /// The `mime` folders read, most important first.
    private var mimeDirectories: [String] = []
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
    /// Literal names matched ignoring case (`AUTHORS`, `CMakeLists.txt`; globs2 writes them
    /// lower-cased), by their lower-cased form.
    private var foldedLiteralGlobs: [String: String] = [:]
    /// The files read, for `fsindex` diagnostics.
    package private(set) var sources: [String] = []
    /// Why the database is empty or partial, if it is.
    package private(set) var diagnostic: String?

    /// The database of this process, loaded on first use.
    package static let shared = MIMEDatabase(searchPath: nil)

    package var isEmpty: Bool { extensionGlobs.isEmpty && literalGlobs.isEmpty && foldedLiteralGlobs.isEmpty }

    /// The compiled content rules (`mime/magic`) beside the globs read, most important first;
    /// the worker's `SharedMIMEMagic` reads them.
    package var magicPaths: [String] { mimeDirectories.map { $0 + "/magic" } }

    /// Loads the compiled database of every `mime` folder below the given data directories
    /// (colon-separated, as in `XDG_DATA_DIRS`; the first wins). Nil means the environment's
    /// value or its default.
    package init(searchPath: String?) {
        let dirs = searchPath ?? Self.environmentSearchPath()
        var seen = Set<String>()
        for dir in dirs.split(separator: ":") where !dir.isEmpty {
            let mime = String(dir) + "/mime"
            guard seen.insert(mime).inserted, let globs = Self.lines(of: mime + "/globs2") else { continue }
            mimeDirectories.append(mime)
            sources.append(mime + "/globs2")
            for line in globs {
                // weight:type:pattern[:flags[:...]]
                let f = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                guard f.count >= 3, let weight = Int(f[0]), f[2] != "__NOGLOBS__" else { continue }
                let flags = f.count > 3 ? f[3].split(separator: ":").first.map { $0.split(separator: ",") } ?? [] : []
                addGlob(String(f[2]), type: f[1].lowercased(), weight: weight, caseSensitive: flags.contains("cs"))
            }
            for line in Self.lines(of: mime + "/aliases") ?? [] {
                let f = line.split(separator: " ")
                if f.count == 2, aliases[f[0].lowercased()] == nil { aliases[f[0].lowercased()] = f[1].lowercased() }
            }
            for line in Self.lines(of: mime + "/subclasses") ?? [] {
                let f = line.split(separator: " ")
                guard f.count == 2 else { continue }
                let (type, parent) = (f[0].lowercased(), f[1].lowercased())
                if !(parents[type]?.contains(parent) ?? false) { parents[type, default: []].append(parent) }
            }
        }
        if sources.isEmpty {
            diagnostic = "no shared MIME database found in \(dirs) (mime/globs2); "
                + "file types come from the built-in table only; install the shared-mime-info package"
        }
    }

    // MARK: Queries

    /// The canonical name of a type (resolving an alias), lower-cased.
    package func canonical(_ mimeType: String) -> String {
        let m = mimeType.lowercased()
        return aliases[m] ?? m
    }

    /// The type's ancestors through `<sub-class-of>`, nearest first, each once. Implicit parents
    /// from the spec are added: every `text/*` is a `text/plain`, every type an
    /// `application/octet-stream` (last), and `*+xml` types are `application/xml`.
    package func ancestors(of mimeType: String) -> [String] {
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
    package func isSubtype(_ type: String, of ancestor: String) -> Bool {
        let a = canonical(ancestor)
        return canonical(type) == a || ancestors(of: type).contains(a)
    }

    /// The untranslated description of a type, such as "Markdown document".
    package func comment(for mimeType: String) -> String? {
        let type = canonical(mimeType)
        if let known = comments.lookup(type) { return known }
        var found: String?
        // `type` names a file below the folder: keep it to one safe `media/subtype` component pair.
        if type.split(separator: "/").count == 2, !type.contains(".."), !type.hasPrefix("/") {
            for dir in mimeDirectories {
                if let c = Self.untranslatedComment(in: dir + "/" + type + ".xml") { found = c; break }
            }
        }
        comments.store(found, for: type)
        return found
    }

    /// The type a file name implies through a literal or `*.ext` glob (the longest extension
    /// wins: `a.tar.gz` is a compressed tar, not just gzip), or nil.
    package func globType(forName name: [UInt8]) -> String? {
        guard let text = String(validating: name, as: UTF8.self) else {
            // A non-UTF-8 name can still have an ASCII extension.
            return globType(forName: Array(name.suffix(while: { $0 < 0x80 && $0 != 0 })))
        }
        if let t = literalGlobs[text] ?? foldedLiteralGlobs[text.lowercased()] { return t }
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

    /// The lines of a small text file that are not blank or comments, or nil if it cannot be read.
    static func lines(of path: String) -> [Substring]? {
        guard let text = readFile(path, limit: 16 << 20) else { return nil }
        return text.split(separator: "\n").filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The first `<comment>` without `xml:lang` in a type file that update-mime-database wrote
    /// (one element per line, the five XML entities escaped).
    static func untranslatedComment(in path: String) -> String? {
        guard let text = readFile(path, limit: 1 << 20) else { return nil }
        for line in text.split(separator: "\n") {
            let t = line.drop { $0 == " " || $0 == "\t" }
            guard t.hasPrefix("<comment>") else { continue }
            let body = t.dropFirst("<comment>".count)
            guard let end = body.firstIndex(of: "<") else { continue }
            return unescapeXML(String(body[..<end]))
        }
        return nil
    }

    static func unescapeXML(_ s: String) -> String {
        guard s.contains("&") else { return s }
        let entities = ["lt": "<", "gt": ">", "quot": "\"", "apos": "'", "amp": "&"]
        var out = ""
        var rest = Substring(s)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(6).firstIndex(of: ";"), let ch = entities[String(after[..<semi])] {
                out += ch
                rest = after[after.index(after: semi)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }

    private static func readFile(_ path: String, limit: Int) -> String? {
        guard case .success(let bytes) = SystemCall.readFile(path, limit: limit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
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
        } else if !pattern.contains(where: wild) {
            if caseSensitive {
                if literalGlobs[pattern] == nil { literalGlobs[pattern] = type }
            } else if foldedLiteralGlobs[pattern.lowercased()] == nil {
                foldedLiteralGlobs[pattern.lowercased()] = type
            }
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

/// Comments read so far (a type with none is remembered as nil too), shared by every thread.
final class CommentCache: Sendable {
    private let known = Mutex<[String: String?]>([:])

    /// `.some(nil)` when the type is known to have no comment.
    func lookup(_ type: String) -> String?? { known.withLock { $0[type] } }
    func store(_ comment: String?, for type: String) { known.withLock { $0[type] = .some(comment) } }
}
