import Glibc

/// What a crawl leaves out: hidden files (names starting with a dot) unless asked for, names or
/// paths matching glob patterns, and directories holding a `.noindex` marker file.
///
/// A pattern without a slash matches a name (`*.tmp`, `node_modules`); a pattern with a slash
/// matches the whole path, and `*` there also spans slashes (`/home/*/secret*`). Matching is on
/// bytes with `fnmatch(3)`, so it works for names that are not UTF-8.
package struct ExclusionRules: Sendable, Hashable {
    package var includeHidden: Bool
    package var namePatterns: [String]
    package var pathPatterns: [String]
    package var markerFile: String

    package init(includeHidden: Bool = false, patterns: [String] = [], markerFile: String = ".noindex") {
        self.includeHidden = includeHidden
        self.namePatterns = patterns.filter { !$0.contains("/") }
        self.pathPatterns = patterns.filter { $0.contains("/") }
        self.markerFile = markerFile
    }

    /// Whether the entry with this name and path is left out. The root itself is never hidden.
    package func excludes(name: UnsafePointer<CChar>, path: UnsafePointer<CChar>) -> Bool {
        if !includeHidden && name[0] == 0x2E /* . */ { return true }
        for p in namePatterns where fnmatch(p, name, 0) == 0 { return true }
        for p in pathPatterns where fnmatch(p, path, 0) == 0 { return true }
        return false
    }
}
