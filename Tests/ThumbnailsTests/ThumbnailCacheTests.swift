import Crawling
import Foundation
import Isolation
import SystemCalls
import SystemPackage
import Testing
import TestSupport
@testable import Thumbnails

/// Issue 27, part 4: the freedesktop thumbnail cache, read and written as the spec says and
/// as GLib reads it.
@Suite("Thumbnail cache", .blocking)
struct ThumbnailCacheTests {
    /// A tree with a `cache` folder (the XDG cache home) and a `files` folder.
    struct Place {
        let tree: TemporaryTree
        var cacheHome: String { tree.root.string + "/cache" }
        var cache: ThumbnailCache { ThumbnailCache.user(environment: ["XDG_CACHE_HOME": cacheHome]) }
        init() throws { tree = try TemporaryTree(prefix: "fsindex-thumbs") }
    }

    /// Sets a file's modification time (seconds since 1970).
    static func touch(_ path: FilePath, _ seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = path.withPlatformString { utimensat(AT_FDCWD, $0, &times, 0) }
    }

    static func modified(_ path: FilePath) throws -> Int64 { try FileFacts.read(path).modificationTime.seconds }

    @Test("MD5: RFC 1321's vectors and the spec's own example name")
    func md5() {
        #expect(MD5.hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5.hex(Array(String(repeating: "1234567890", count: 8).utf8)) == "57edf4a22be3c955ac49da2e2107b67a")
        #expect(FileURI.thumbnailName(of: "file:///home/jens/photos/me.png") == "c6ee772d9e49320e97ec29a7eb5b1697.png")
    }

    static let hasGio = FileManager.default.isExecutableFile(atPath: SpecReaders.gio)

    @Test("the cache name of a URI with a space, UTF-8 and a byte that is not UTF-8")
    func naming() throws {
        let path = FilePath(bytes: Array("/home/ada/a b/été".utf8) + [0xE9] + Array("%#?.png".utf8))
        let uri = FileURI.of(path)
        #expect(uri == "file:///home/ada/a%20b/%C3%A9t%C3%A9%E9%25%23%3F.png")
        // The MD5 of those ASCII bytes (as `printf %s URI | md5sum` gives it).
        #expect(FileURI.thumbnailName(of: uri) == MD5.hex(Array(uri.utf8)) + ".png")
        let md5sum = try SpecReaders.runTool("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())", uri])
        #expect(FileURI.thumbnailName(of: uri) == md5sum.1.trimmingCharacters(in: .newlines) + ".png")
        #expect(ThumbnailCache(root: "/c/thumbnails").path(forURI: uri, size: .large).string
                == "/c/thumbnails/large/" + FileURI.thumbnailName(of: uri))
    }

    @Test("a URI with a space and a byte that is not UTF-8 is spelled as GLib spells it",
          .enabled(if: hasGio, "needs GLib's gio (libglib2.0-bin)"))
    func uriLikeGLib() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let name: [UInt8] = Array("a b+c&d=é~".utf8) + [0xE9, 0x25] + Array("#x.png".utf8)
        let file = try place.tree.createBytes(name: name, contents: ImageFixture.png(width: 4, height: 4))
        let uri = FileURI.of(file)
        #expect(uri == "file://" + place.tree.root.string + "/a%20b+c&d=%C3%A9~%E9%25%23x.png")
        // GLib's g_filename_to_uri, through gio: the same text, so the same MD5 name.
        let info = try SpecReaders.gioInfo(file.bytes, attributes: "standard::name", cacheHome: place.cacheHome)
        #expect(info.contains("uri: \(uri)\n"), "gio says: \(info)")
    }

    @Test("a thumbnail counts only while its Thumb::MTime is the file's: a touched file's is stale")
    func mtimeValidity() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let file = try place.tree.create("photo one.png", bytes: ImageFixture.png(width: 8, height: 8))
        Self.touch(file, 1_700_000_000)
        let uri = FileURI.of(file)
        let size = try FileFacts.read(file).size
        let png = PNGFile.placeholder(text: ThumbnailCache.texts(uri: uri, modified: 1_700_000_000, fileSize: size, mimeType: "image/png"))
        let stored = try place.cache.store(png, uri: uri, size: .normal)
        #expect(stored.string == place.cacheHome + "/thumbnails/normal/" + FileURI.thumbnailName(of: uri))
        #expect(place.cache.existing(forFile: file) == stored)
        // Modes: the file 0600, the folders 0700 (the spec's privacy rule).
        var st = stat()
        stat(stored.string, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        stat(place.cacheHome + "/thumbnails/normal", &st)
        #expect(st.st_mode & 0o777 == 0o700)
        stat(place.cacheHome + "/thumbnails", &st)
        #expect(st.st_mode & 0o777 == 0o700)

        Self.touch(file, 1_700_000_001)
        #expect(place.cache.existing(forFile: file) == nil)
        // Another file's thumbnail under this name (a wrong URI) does not count either.
        let other = PNGFile.placeholder(text: ThumbnailCache.texts(uri: uri + "x", modified: 1_700_000_001, fileSize: size, mimeType: nil))
        _ = try place.cache.store(other, uri: uri, size: .normal)
        #expect(place.cache.existing(forFile: file) == nil)
        // A bigger size is found when the normal one is stale.
        let large = PNGFile.placeholder(text: ThumbnailCache.texts(uri: uri, modified: 1_700_000_001, fileSize: size, mimeType: nil))
        let largePath = try place.cache.store(large, uri: uri, size: .large)
        #expect(place.cache.existing(forFile: file) == largePath)
        #expect(place.cache.existing(forFile: file, atLeast: .large) == largePath)
        // ... but a smaller one never answers for a bigger size.
        #expect(place.cache.existing(forFile: file, atLeast: .xLarge) == nil)
    }

    @Test("a failure entry says don't retry until the file changes")
    func failureEntries() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let file = try place.tree.create("broken.png", bytes: Array("\u{89}PNG\r\n\u{1A}\nbroken".utf8))
        Self.touch(file, 1_600_000_000)
        let worker = ExtractionWorker(executable: try WorkerExecutable.locate())
        defer { worker.stop() }
        #expect(throws: ThumbnailError.self) { try place.cache.ensure(forFile: file, worker: worker) }
        let entry = place.cache.failurePath(forURI: FileURI.of(file))
        #expect(entry.string.hasPrefix(place.cacheHome + "/thumbnails/fail/fsindex-0.27/"))
        #expect(place.cache.failure(forFile: file, modified: 1_600_000_000) == entry)
        do {
            _ = try place.cache.ensure(forFile: file, worker: worker)
            Issue.record("a second attempt was made")
        } catch {
            #expect(error == .failedBefore(path: file.string, entry: entry.string))
        }
        // The entry is a PNG another reader accepts, with the file's URI and time.
        let info = try SpecReaders.readPNG(entry)
        #expect(info.text["Thumb::URI"] == FileURI.of(file))
        #expect(info.text["Thumb::MTime"] == "1600000000")
        // Touched: tried again (and failing again, recorded again for the new time).
        Self.touch(file, 1_600_000_005)
        #expect(place.cache.failure(forFile: file, modified: 1_600_000_005) == nil)
        do {
            _ = try place.cache.ensure(forFile: file, worker: worker)
        } catch {
            guard case .failed = error else { Issue.record("not tried again: \(error)"); return }
        }
        #expect(place.cache.failure(forFile: file, modified: 1_600_000_005) == entry)
    }

    @Test("a type without a thumbnailer is refused by name, and not recorded as a failure")
    func unsupported() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let file = try place.tree.create("notes.txt", contents: "plain words\n")
        let worker = ExtractionWorker(executable: try WorkerExecutable.locate())
        defer { worker.stop() }
        do {
            _ = try place.cache.ensure(forFile: file, worker: worker)
            Issue.record("a text file got a thumbnail")
        } catch {
            #expect(error == .unsupportedType(path: file.string, mimeType: "text/plain"))
        }
        #expect(place.cache.failure(forFile: file, modified: try Self.modified(file)) == nil)
        #expect(throws: ThumbnailError.self) {
            try place.cache.ensure(forFile: place.tree.path("missing.png"), worker: worker)
        }
    }

    /// Makes the thumbnail of `file` in the worker and checks it with an outside reader
    /// (Python's), and with GLib's when `glib` is set.
    func checkMade(_ place: Place, _ file: FilePath, size: ThumbnailSize, expectedWidth: Int, mime: String, glib: Bool = false) throws {
        let worker = ExtractionWorker(executable: try WorkerExecutable.locate())
        defer { worker.stop() }
        let made = try place.cache.ensure(forFile: file, size: size, worker: worker)
        let uri = FileURI.of(file)
        #expect(made == place.cache.path(forURI: uri, size: size))
        let facts = try FileFacts.read(file)
        let info = try SpecReaders.readPNG(made)
        #expect(info.text["Thumb::URI"] == uri)
        #expect(info.text["Thumb::MTime"] == String(facts.modificationTime.seconds))
        #expect(info.text["Thumb::Size"] == String(facts.size))
        #expect(info.text["Thumb::Mimetype"] == mime)
        #expect(max(info.width, info.height) <= size.pixels)
        #expect(info.width == expectedWidth, "\(info.width)×\(info.height)")
        // Found again without the worker.
        #expect(place.cache.existing(forFile: file, atLeast: size) == made)
        // A thumbnail is its own: never a thumbnail of a thumbnail (the spec).
        #expect(try place.cache.ensure(forFile: made, worker: worker) == made)
        // GLib finds it and calls it valid (2.74 looks in large/, then normal/).
        guard glib else { return }
        let gio = try SpecReaders.gioInfo(file.bytes, attributes: "thumbnail::path,thumbnail::is-valid", cacheHome: place.cacheHome)
        #expect(gio.contains("thumbnail::path: \(made.string)\n"), "gio says: \(gio)")
        #expect(gio.contains("thumbnail::is-valid: TRUE"), "gio says: \(gio)")
        // Touched: GLib calls it stale, as we do.
        Self.touch(file, Int(facts.modificationTime.seconds) + 10)
        #expect(place.cache.existing(forFile: file, atLeast: size) == nil)
        let stale = try SpecReaders.gioInfo(file.bytes, attributes: "thumbnail::is-valid", cacheHome: place.cacheHome)
        #expect(stale.contains("thumbnail::is-valid: FALSE"), "gio says: \(stale)")
    }

    @Test("a PNG's thumbnail is made in the worker, 128 pixels")
    func pngThumbnail() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let name: [UInt8] = Array("my photo ".utf8) + [0xFF] + Array(".png".utf8)
        let file = try place.tree.createBytes(name: name, contents: ImageFixture.png(width: 400, height: 300))
        try checkMade(place, file, size: .normal, expectedWidth: 128, mime: "image/png")
    }

    @Test("a JPEG's large thumbnail is 256 pixels; a small image keeps its size")
    func jpegThumbnail() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let file = try place.tree.create("scan.jpg", bytes: ImageFixture.jpeg(width: 640, height: 480))
        try checkMade(place, file, size: .large, expectedWidth: 256, mime: "image/jpeg")
        let small = try place.tree.create("icon.jpg", bytes: ImageFixture.jpeg(width: 40, height: 24))
        try checkMade(place, small, size: .normal, expectedWidth: 40, mime: "image/jpeg")
    }

    @Test("GLib's gio finds FSIndex's thumbnails of a PNG and a PDF, valid, and stale once the file is touched",
          .enabled(if: hasGio, "needs GLib's gio (libglib2.0-bin)"))
    func glibAccepts() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let image = try place.tree.createBytes(name: Array("my photo ".utf8) + [0xFF] + Array(".png".utf8),
                                               contents: ImageFixture.png(width: 400, height: 300))
        try checkMade(place, image, size: .normal, expectedWidth: 128, mime: "image/png", glib: true)
        let pdf = try place.tree.create("report.pdf", bytes: GeneratedFixture.pdf(
            title: "Report", author: "Ada", subject: "", keywords: "", created: "D:20260101000000Z", lines: ["Thumbnails"]))
        try checkMade(place, pdf, size: .large, expectedWidth: 198, mime: "application/pdf", glib: true)
    }

    @Test("a GIF's loader is a module gdk-pixbuf loads inside the sandbox")
    func gifThumbnail() throws {
        let place = try Place()
        defer { place.tree.remove() }
        // The classic 1×1 GIF89a.
        let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x21, 0xF9, 4, 1, 0, 0, 0, 0,
                                                    0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B]
        let file = try place.tree.create("dot.gif", bytes: gif)
        try checkMade(place, file, size: .normal, expectedWidth: 1, mime: "image/gif")
    }

    @Test("a PDF's thumbnail is its first page, rendered by poppler")
    func pdfThumbnail() throws {
        let place = try Place()
        defer { place.tree.remove() }
        let pdf = GeneratedFixture.pdf(title: "Report", author: "Ada", subject: "", keywords: "", created: "D:20260101000000Z",
                                       lines: ["Quarterly report", "Thumbnails for the desktop"])
        let file = try place.tree.create("report.pdf", bytes: pdf)
        // A US Letter page, 612 × 792 points: 128 pixels high, 99 wide.
        try checkMade(place, file, size: .normal, expectedWidth: 99, mime: "application/pdf")
    }

    @Test("the worker's PNG is checked before it is written: a forged one is refused")
    func forgedAnswerRefused() throws {
        let png = PNGFile.placeholder(text: [("Thumb::URI", "file:///a"), ("Thumb::MTime", "5")])
        let read = try #require(PNGFile(png))
        #expect(read.describes(uri: "file:///a", modified: 5, fileSize: nil, maximum: 128))
        #expect(!read.describes(uri: "file:///b", modified: 5, fileSize: nil, maximum: 128))
        #expect(!read.describes(uri: "file:///a", modified: 6, fileSize: nil, maximum: 128))
        var broken = png
        broken[40] ^= 1   // a CRC no longer matches
        #expect(PNGFile(broken) == nil)
    }
}
