import Attributes
import ExtractionModel
import SystemCalls
import SystemPackage

extension ExtractionContext {
    /// The thumbnail of the regular file open at `descriptor` (closed when this returns), named
    /// `name` and `fileSize` bytes long, fitting in `pixels`, carrying `texts` (the spec's
    /// `Thumb::URI`, `Thumb::MTime`, ... without the MIME type, which is detected here).
    /// See `Thumbnailer`.
    public func thumbnail(descriptor: Int32, name: [UInt8], fileSize: Int64, pixels: Int,
                          texts: [(String, String)]) -> ThumbnailOutcome {
        defer { SystemCall.close(descriptor) }
        var head = [UInt8](repeating: 0, count: Self.sniffBytes)
        let n: Int
        switch head.withUnsafeMutableBytes({ SystemCall.pread(descriptor, into: $0, at: 0) }) {
        case .success(let got): n = got
        case .failure(let e): return .failed("cannot read the file: \(e.description.lowercased())")
        }
        head.removeLast(head.count - n)
        let typed = typing.type(name: name, bytes: head, fileSize: fileSize, isEmpty: n == 0)
        willRun?("thumbnail")
        return Thumbnailer.make(descriptor: descriptor, detection: typed.detection, pixels: pixels, fileSize: fileSize, texts: texts)
    }
}
