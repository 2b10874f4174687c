import Crawling
import Isolation
import SystemCalls
import SystemPackage

extension ThumbnailCache {
    /// The path of a valid thumbnail of the regular file at `path` (absolute) of at least
    /// `size`: one already in the cache (made by any program), else one made now by `worker`
    /// (images and PDFs' first pages; see `Thumbnailer` in the worker) and written to the cache.
    ///
    /// A file inside the cache is its own thumbnail (the spec: never make thumbnails of
    /// thumbnails). A file that could not be thumbnailed gets a failure entry
    /// (`fail/fsindex-<version>/`), and is not tried again until it changes: that attempt
    /// throws `.failedBefore`. A type without a thumbnailer throws `.unsupportedType` and is
    /// not recorded (asking again costs one type detection).
    ///
    /// For example:
    /// ```swift
    /// let worker = ExtractionWorker(executable: try WorkerExecutable.locate())
    /// let png = try ThumbnailCache.user().ensure(forFile: "/home/ada/scan.pdf", worker: worker)
    /// ```
    ///
    /// Cost: a lookup when the thumbnail exists; else a worker start (about 30 ms, unless the
    /// worker already runs) and the rendering.
    package func ensure(forFile path: FilePath, size: ThumbnailSize = .normal, worker: ExtractionWorker) throws(ThumbnailError) -> FilePath {
        let shown = path.string
        if path.starts(with: root), path != root { return path }
        let facts: FileFacts
        do { facts = try FileFacts.read(path) } catch { throw .unreadable(path: shown, error) }
        guard facts.type == .regular else { throw .notAFile(path: shown) }
        let modified = facts.modificationTime.seconds
        if let found = existing(forFile: path, modified: modified, fileSize: facts.size, atLeast: size) { return found }
        if let entry = failure(forFile: path, modified: modified, fileSize: facts.size) {
            throw .failedBefore(path: shown, entry: entry.string)
        }
        let uri = FileURI.of(path)
        let request = ThumbnailRequest(name: path.lastComponent?.bytes ?? path.bytes, fileSize: facts.size, pixels: size.pixels,
                                       texts: Self.texts(uri: uri, modified: modified, fileSize: facts.size, mimeType: nil))
        let reason: String
        switch worker.thumbnail(facts, request) {
        case .png(let bytes):
            if let png = PNGFile(bytes), png.describes(uri: uri, modified: modified, fileSize: facts.size, maximum: size.pixels) {
                return try store(bytes, uri: uri, size: size)
            }
            reason = "the worker's PNG was malformed or not the one asked for"
        case .unsupported(let mime):
            throw .unsupportedType(path: shown, mimeType: mime)
        case .failed(let why):
            reason = why
        }
        try recordFailure(uri: uri, modified: modified, fileSize: facts.size)
        throw .failed(path: shown, reason: reason)
    }
}
