import Attributes
import ExtractionModel
import SystemCalls
import SystemPackage

extension ExtractionContext {
    /// The thumbnail of the regular file open at `descriptor` (closed when this returns), named
    /// `name` and `fileSize` bytes long, fitting in `pixels`, carrying `texts` (the spec's
    /// `Thumb::URI`, `Thumb::MTime`, ... without the MIME type, which is detected here).
    /// See `Thumbnailer`.
    package func thumbnail(descriptor: Int32, name: [UInt8], fileSize: Int64, pixels: Int,
                          texts: [(String, String)]) -> ThumbnailOutcome {
        defer { SystemCall.close(descriptor) }
        let detection: TypeDetection
        switch sniffedType(descriptor: descriptor, name: name, fileSize: fileSize) {
        case .success(let found): detection = found
        case .failure(let reason): return .failed(reason.message)
        }
        willRun?("thumbnail")
        return Thumbnailer.make(descriptor: descriptor, detection: detection, pixels: pixels, fileSize: fileSize, texts: texts)
    }

    /// The type of the regular file open at `descriptor`, from its first bytes and `name`, as
    /// extraction would type it. Thumbnails and OCR get a descriptor, not a crawled file, and
    /// both start here.
    func sniffedType(descriptor: Int32, name: [UInt8], fileSize: Int64) -> Result<TypeDetection, UnreadableFile> {
        var head = [UInt8](repeating: 0, count: Self.sniffBytes)
        let n: Int
        switch head.withUnsafeMutableBytes({ SystemCall.pread(descriptor, into: $0, at: 0) }) {
        case .success(let got): n = got
        case .failure(let e): return .failure(UnreadableFile(errno: e))
        }
        head.removeLast(head.count - n)
        return .success(typing.type(name: name, bytes: head, fileSize: fileSize, isEmpty: n == 0).detection)
    }
}

/// A file whose first bytes could not be read, and the error.
struct UnreadableFile: Error {
    var errno: Errno
    var message: String { "cannot read the file: \(errno.description.lowercased())" }
}
