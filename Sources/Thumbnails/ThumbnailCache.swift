import Crawling
import SystemCalls
import SystemPackage
import Glibc

/// The freedesktop thumbnail cache (the Thumbnail Managing Standard, 0.9.0): shared by every
/// program of the user, so that a thumbnail Files made is found here and one made here is
/// shown by Files.
///
/// The layout: `$XDG_CACHE_HOME/thumbnails/` (else `~/.cache/thumbnails/`), with a folder per
/// size (`normal`, `large`, `x-large`, `xx-large`) and `fail/<program>-<version>/` for files a
/// program could not thumbnail. A thumbnail's name is the MD5 of its file's URI (`FileURI`)
/// with `.png`; it is valid only while its `Thumb::MTime` text equals the file's modification
/// time in whole seconds and its `Thumb::URI` the file's URI (and, when present, `Thumb::Size`
/// the file's size, as GLib checks).
///
/// For example:
/// ```swift
/// let cache = ThumbnailCache.user()
/// if let png = cache.existing(forFile: "/home/ada/photo.jpg", modified: facts.modificationTime.seconds) { … }
/// ```
///
/// Writes are atomic (a temporary file renamed into place), the files mode 0600 and the
/// folders 0700, as the spec asks: a thumbnail shows what a private file holds.
///
/// Cost: `existing` reads each candidate PNG whole (a normal thumbnail is 5–40 KB) and checks
/// its chunks' CRCs: tens of microseconds when one is there, one failed `open` per size when not.
package struct ThumbnailCache: Sendable, Hashable {
    /// The `thumbnails` folder.
    package var root: FilePath

    /// Failure entries of this program go in `fail/<failureFolder>/`: the spec's
    /// `appname-version`. A new version retries what an older one could not do.
    package static let failureFolder = "fsindex-0.27"
    /// The `Software` text of the PNGs FSIndex writes.
    package static let software = "FSIndex 0.27"

    package init(root: FilePath) { self.root = root }

    /// The user's cache: `$XDG_CACHE_HOME/thumbnails` when that is an absolute path, else
    /// `$HOME/.cache/thumbnails`.
    package static func user(environment: [String: String] = Self.environment()) -> ThumbnailCache {
        ThumbnailCache(root: FilePath(cacheHome(environment: environment) + "/thumbnails"))
    }

    /// `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache` (the Base Directory spec).
    package static func cacheHome(environment: [String: String]) -> String {
        if let c = environment["XDG_CACHE_HOME"], c.hasPrefix("/") { return c }
        return (environment["HOME"] ?? "/") + "/.cache"
    }

    /// The process's environment, as text.
    package static func environment() -> [String: String] {
        var out: [String: String] = [:]
        for key in ["XDG_CACHE_HOME", "HOME"] {
            if let v = getenv(key) { out[key] = String(cString: v) }
        }
        return out
    }

    /// Where the thumbnail of `uri` at `size` is or would be.
    package func path(forURI uri: String, size: ThumbnailSize) -> FilePath {
        root.appending(size.folder).appending(FileURI.thumbnailName(of: uri))
    }

    /// Where this program's failure entry of `uri` is or would be.
    package func failurePath(forURI uri: String) -> FilePath {
        root.appending("fail").appending(Self.failureFolder).appending(FileURI.thumbnailName(of: uri))
    }

    /// The path of a valid thumbnail of the file at `path` (absolute), which was last modified at
    /// `modified` (seconds since 1970) and is `fileSize` bytes long (nil: not checked), of
    /// `atLeast` or bigger, the smallest first. Nil when there is none, or only stale ones.
    package func existing(forFile path: FilePath, modified: Int64, fileSize: Int64? = nil,
                         atLeast: ThumbnailSize = .normal) -> FilePath? {
        let uri = FileURI.of(path)
        let all = ThumbnailSize.allCases
        for size in all[all.firstIndex(of: atLeast)!...] {
            let candidate = self.path(forURI: uri, size: size)
            if Self.isValid(candidate, uri: uri, modified: modified, fileSize: fileSize, maximum: size.pixels) { return candidate }
        }
        return nil
    }

    /// `existing(forFile:modified:)` with the file's own facts, read now (following no symlink).
    package func existing(forFile path: FilePath, atLeast: ThumbnailSize = .normal) -> FilePath? {
        guard let facts = try? FileFacts.read(path), facts.type == .regular else { return nil }
        return existing(forFile: path, modified: facts.modificationTime.seconds, fileSize: facts.size, atLeast: atLeast)
    }

    /// This program's failure entry for the file, when it is still valid (the file has not
    /// changed since the attempt): the file is then not tried again.
    package func failure(forFile path: FilePath, modified: Int64, fileSize: Int64? = nil) -> FilePath? {
        let uri = FileURI.of(path)
        let entry = failurePath(forURI: uri)
        return Self.isValid(entry, uri: uri, modified: modified, fileSize: fileSize, maximum: nil) ? entry : nil
    }

    /// Whether the PNG at `thumbnail` describes `uri` as modified at `modified` (and, if it
    /// says, of `fileSize` bytes), and fits in `maximum` pixels.
    static func isValid(_ thumbnail: FilePath, uri: String, modified: Int64, fileSize: Int64?, maximum: Int?) -> Bool {
        // Text chunks come before the image data in the PNGs of every writer we know; the
        // whole file is read only to check CRCs, and thumbnails are small.
        guard case .success(let bytes) = SystemCall.readFile(thumbnail, limit: 16 << 20),
              let png = PNGFile(bytes) else { return false }
        return png.describes(uri: uri, modified: modified, fileSize: fileSize, maximum: maximum)
    }

    /// Writes `png` (already checked by `PNGFile.describes`) as the thumbnail of `uri` at
    /// `size`, atomically, and returns its path.
    package func store(_ png: [UInt8], uri: String, size: ThumbnailSize) throws(ThumbnailError) -> FilePath {
        let target = path(forURI: uri, size: size)
        try write(png, to: target)
        return target
    }

    /// Records that the file could not be thumbnailed in this version: a 1×1 PNG with its URI
    /// and modification time in `fail/fsindex-<version>/`, as the spec describes.
    @discardableResult
    package func recordFailure(uri: String, modified: Int64, fileSize: Int64) throws(ThumbnailError) -> FilePath {
        let entry = failurePath(forURI: uri)
        try write(PNGFile.placeholder(text: Self.texts(uri: uri, modified: modified, fileSize: fileSize, mimeType: nil)), to: entry)
        return entry
    }

    /// The spec's text chunks for a thumbnail of the file.
    package static func texts(uri: String, modified: Int64, fileSize: Int64, mimeType: String?) -> [(String, String)] {
        var out = [("Thumb::URI", uri), ("Thumb::MTime", String(modified)), ("Thumb::Size", String(fileSize))]
        if let mimeType { out.append(("Thumb::Mimetype", mimeType)) }
        out.append(("Software", software))
        return out
    }

    /// Writes `bytes` to a temporary file beside `target` (mode 0600), then renames it into
    /// place: a reader sees the old file or the new one, never half of one.
    func write(_ bytes: [UInt8], to target: FilePath) throws(ThumbnailError) {
        let folder = target.removingLastComponent()
        try Self.makeFolders(folder)
        let temporary = folder.appending(".fsindex-\(getpid())-" + (target.lastComponent?.string ?? "thumbnail"))
        let opened = SystemCall.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode: 0o600)
        guard case .success(let fd) = opened else {
            if case .failure(let e) = opened { throw .cacheUnwritable(path: folder.string, e) }
            return
        }
        var done = 0
        var failure: Errno?
        while done < bytes.count {
            switch bytes.withUnsafeBytes({ SystemCall.write(fd, UnsafeRawBufferPointer(rebasing: $0[done...])) }) {
            case .success(let n): done += n
            case .failure(let e): failure = e
            }
            if failure != nil { break }
        }
        SystemCall.close(fd)
        if failure == nil {
            let renamed = temporary.withPlatformString { from in target.withPlatformString { Glibc.rename(from, $0) } }
            if renamed != 0 { failure = Errno(rawValue: errno) }
        }
        if let failure {
            _ = SystemCall.unlink(temporary.bytes)
            throw .cacheUnwritable(path: target.string, failure)
        }
    }

    /// Creates `folder` and its missing parents with mode 0700 (existing ones keep theirs).
    static func makeFolders(_ folder: FilePath) throws(ThumbnailError) {
        var missing: [FilePath] = []
        var f = folder
        while !f.isEmpty, f != FilePath("/") {
            if case .success = SystemCall.lstat(f.bytes) { break }
            missing.append(f)
            f = f.removingLastComponent()
        }
        for m in missing.reversed() {
            switch SystemCall.mkdir(m.bytes, 0o700) {
            case .success, .failure(.fileExists): continue
            case .failure(let e): throw .cacheUnwritable(path: m.string, e)
            }
        }
    }
}

extension PNGFile {
    /// Whether this PNG is a thumbnail of `uri` as modified at `modified` (seconds; the spec's
    /// `Thumb::MTime`), of `fileSize` bytes if it says (`Thumb::Size`), no bigger than `maximum`.
    package func describes(uri: String, modified: Int64, fileSize: Int64?, maximum: Int?) -> Bool {
        guard text["Thumb::URI"] == uri, text["Thumb::MTime"].flatMap({ Int64($0) }) == modified else { return false }
        if let fileSize, let said = text["Thumb::Size"], Int64(said) != fileSize { return false }
        if let maximum, width > maximum || height > maximum { return false }
        return true
    }
}
