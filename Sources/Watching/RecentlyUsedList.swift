import FoundationEssentials
import Crawling
import SystemCalls
import SystemPackage
import Glibc

/// The desktop's list of recently used files, freedesktop's `recently-used.xbel`, read in plain
/// Swift.
///
/// GTK (`GtkRecentManager`, through GLib's `GBookmarkFile`) and KDE write it whenever a person
/// opens a file, in this shape:
/// ```xml
/// <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
///       xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">
///   <bookmark href="file:///home/ada/caf%C3%A9%20notes.txt" added="2026-11-20T09:00:00.123456Z"
///             modified="2026-11-24T10:00:00.654321Z" visited="2026-11-24T10:00:00.654321Z">
///     <info><metadata owner="http://freedesktop.org">
///       <mime:mime-type type="text/plain"/>
///       <bookmark:applications>
///         <bookmark:application name="gedit" exec="&apos;gedit %u&apos;" modified="2026-11-24T10:00:00Z" count="3"/>
///       </bookmark:applications>
///     </metadata></info>
///   </bookmark>
/// </xbel>
/// ```
///
/// A key design decision: this is not a general XML parser, and it links none. fsindexd is a
/// parent process and links no file parser (libxml2 is the extraction worker's); the list is
/// small and regular, so a bounded reader of elements and attributes suffices. It still checks
/// that the document is well formed (tags balanced, attributes quoted, entities known), and a
/// file that is not is refused whole: a list half-written by a crashed application must not be
/// read as "these files were never visited again".
///
/// Cost: one pass over at most `maximumSize` bytes.
package struct RecentlyUsedList: Sendable, Hashable {
    /// One `<bookmark>` whose `href` is a local file.
    package struct Bookmark: Sendable, Hashable {
        /// The file's absolute path, percent-decoded to its exact bytes.
        package var path: [UInt8]
        package var added: Date?
        package var modified: Date?
        package var visited: Date?
        package var applications: [Application]

        /// The latest of its dates and its applications' dates: when it was last used.
        package var lastVisit: Date? {
            ([added, modified, visited] + applications.map(\.modified)).compactMap { $0 }.max()
        }
    }

    /// One `<bookmark:application>`: a program that opened the file, and how many times.
    package struct Application: Sendable, Hashable {
        package var name: String
        package var count: Int64
        package var modified: Date?
    }

    package var bookmarks: [Bookmark]
    /// `<bookmark>`s left out: not `file://` (`recent:///`, `sftp://`, another host), or a path
    /// that cannot be a file's.
    package var skipped: Int

    /// The largest list read. GTK keeps the list to its `gtk-recent-files-max-age` and a few
    /// hundred entries, a few hundred KiB; anything near this is not a list to trust.
    package static let maximumSize = 16 << 20
    /// The deepest nesting accepted (the real list is 6 deep).
    static let maximumDepth = 64

    /// freedesktop's namespace of `<bookmark:applications>`.
    static let bookmarkNamespace = "http://www.freedesktop.org/standards/desktop-bookmarks"

    /// Where the list is: `$XDG_DATA_HOME/recently-used.xbel`, else `~/.local/share/recently-used.xbel`.
    package static func defaultLocation(environment: [String: String]) -> FilePath? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return FilePath(data).appending("recently-used.xbel")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return FilePath(home).appending(".local/share/recently-used.xbel")
    }
}

/// Why a recently-used list was not read; nothing of it is applied.
package enum RecentlyUsedListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no list (no application ever wrote one): not a problem.
    case missing(path: String)
    case tooLarge(path: String, limit: Int)
    case unreadable(path: String, reason: String)
    /// Not well-formed XML, or not an XBEL list: `offset` is the byte where reading stopped.
    case malformed(offset: Int, reason: String)

    package var description: String {
        switch self {
        case let .missing(path):
            "there is no list of recently used files at \(path) yet"
        case let .tooLarge(path, limit):
            "\(path) is larger than \(limit >> 20) MiB, far more than a list of recently used files holds; it is not read (delete it and the desktop starts a new one)"
        case let .unreadable(path, reason):
            "cannot read \(path): \(reason)"
        case let .malformed(offset, reason):
            "the list of recently used files is not valid XBEL (at byte \(offset): \(reason)); nothing of it was applied; it is read again when an application next writes it"
        }
    }
}

extension RecentlyUsedList {
    /// Reads the list from its bytes.
    ///
    /// For example:
    /// ```swift
    /// let list = try RecentlyUsedList(xbel: Array(text.utf8))
    /// list.bookmarks[0].path   // Array("/home/ada/café notes.txt".utf8)
    /// ```
    package init(xbel bytes: [UInt8]) throws(RecentlyUsedListError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(path: "the list", limit: Self.maximumSize) }
        var reader = XBELScanner(bytes: bytes)
        let (bookmarks, skipped) = try reader.read()
        self.bookmarks = bookmarks
        self.skipped = skipped
    }

    /// Reads the list at `path`, refusing one over `maximumSize` without reading it all.
    package init(contentsOf path: FilePath) throws(RecentlyUsedListError) {
        let fd: FileDescriptor
        // Non-blocking, and only a regular file: a FIFO put in its place must not hold the
        // daemon's single writer in `read` for ever.
        do { fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking]) } catch {
            if let e = error as? Errno, e == .noSuchFileOrDirectory { throw .missing(path: path.string) }
            throw .unreadable(path: path.string, reason: "\(error)")
        }
        defer { try? fd.close() }
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path: path.string, reason: "not a regular file")
        }
        if st.st_size > Self.maximumSize { throw .tooLarge(path: path.string, limit: Self.maximumSize) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) } } catch {
                throw .unreadable(path: path.string, reason: "\(error)")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
            if bytes.count > Self.maximumSize { throw .tooLarge(path: path.string, limit: Self.maximumSize) }
        }
        try self.init(xbel: bytes)
    }
}

extension RecentlyUsedList {
    /// The list with each path's folder resolved (`realpath(3)`), as the index names files:
    /// applications list the path a file was opened by (`/home/ada/…` where `/home` is a link
    /// to `/data/home`), while roots, and so identifiers, are resolved. The file itself is not
    /// resolved (a link is an item of its own), and a folder that no longer exists is left as
    /// written. Costs one `realpath` per bookmark.
    func resolvingFolders() -> RecentlyUsedList {
        var out = self
        for i in out.bookmarks.indices {
            let path = out.bookmarks[i].path
            guard let slash = path.lastIndex(of: UInt8(ascii: "/")), slash > 0 else { continue }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let resolved = FilePath(bytes: Array(path[..<slash])).withPlatformString { realpath($0, &buf) }
            guard resolved != nil else { continue }
            var folder = FilePath(platformString: buf).bytes
            if folder != [UInt8(ascii: "/")] { folder.append(UInt8(ascii: "/")) }
            out.bookmarks[i].path = folder + path[(slash + 1)...]
        }
        return out
    }
}
