import MemberwiseInit
/// One thumbnail to make, as the parent asks a worker for it (a `thumbnail` frame, with the
/// regular file's descriptor attached): the file's name (its type is detected from its bytes
/// and name, as for extraction), its size, the square the thumbnail must fit in, and the text
/// chunks the PNG must carry (the spec's `Thumb::URI`, `Thumb::MTime`, ...; the worker adds
/// `Thumb::Mimetype`).
@MemberwiseInit
package struct ThumbnailRequest: Sendable {
    package var name: [UInt8]
    package var fileSize: Int64
    package var pixels: Int
    package var texts: [(String, String)]

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.bytes(name)
        w.i64(fileSize)
        w.u64(UInt64(pixels))
        w.u64(UInt64(texts.count))
        for (k, v) in texts { w.bytes(Array(k.utf8)); w.bytes(Array(v.utf8)) }
        return w.out
    }

    package init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard let name = r.bytes(), let size = r.i64(), let pixels = r.u64(), pixels >= 1, pixels <= 1024,
              let count = r.u64(), count <= 16 else { return nil }
        var texts: [(String, String)] = []
        for _ in 0..<count {
            guard let k = r.bytes(), let v = r.bytes() else { return nil }
            texts.append((String(decoding: k, as: UTF8.self), String(decoding: v, as: UTF8.self)))
        }
        guard r.atEnd else { return nil }
        self.init(name: name, fileSize: size, pixels: Int(pixels), texts: texts)
    }
}

/// A worker's answer to a `ThumbnailRequest`: the PNG, or why there is none.
package enum ThumbnailAnswer: Equatable, Sendable {
    /// The thumbnail, a PNG with the spec's text chunks.
    case png([UInt8])
    /// The file's type has no thumbnailer; its MIME type.
    case unsupported(mimeType: String)
    /// The thumbnailer failed on this file: why.
    case failed(String)

    package func encoded() -> [UInt8] {
        switch self {
        case .png(let b): [0] + b
        case .unsupported(let m): [1] + Array(m.utf8)
        case .failed(let r): [2] + Array(r.utf8)
        }
    }

    package init?(decoding bytes: [UInt8]) {
        guard let kind = bytes.first else { return nil }
        let rest = Array(bytes.dropFirst())
        switch kind {
        case 0: self = .png(rest)
        case 1: self = .unsupported(mimeType: String(decoding: rest, as: UTF8.self))
        case 2: self = .failed(String(decoding: rest, as: UTF8.self))
        default: return nil
        }
    }
}
