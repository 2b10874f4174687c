import MemberwiseInit
/// One file to read with OCR, as the parent asks a worker for it (a `recognize` frame, with the
/// regular file's descriptor attached, issue 28): the file's name and size (its type is detected
/// from its bytes and name, as for extraction), the tessdata folder, the languages ("eng+deu")
/// and how many PDF pages to read at most.
@MemberwiseInit
package struct RecognitionRequest: Sendable, Hashable {
    package var name: [UInt8]
    package var fileSize: Int64
    package var dataPath: String
    package var languages: String
    package var pageLimit: Int

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.bytes(name)
        w.i64(fileSize)
        w.bytes(Array(dataPath.utf8))
        w.bytes(Array(languages.utf8))
        w.u64(UInt64(pageLimit))
        return w.out
    }

    package init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard let name = r.bytes(), let size = r.i64(), let path = r.bytes(), let languages = r.bytes(),
              let pages = r.u64(), pages >= 1, pages <= 10_000, r.atEnd else { return nil }
        self.init(name: name, fileSize: size, dataPath: String(decoding: path, as: UTF8.self),
                  languages: String(decoding: languages, as: UTF8.self), pageLimit: Int(pages))
    }
}

/// A worker's answer to a `RecognitionRequest`.
package enum RecognitionAnswer: Equatable, Sendable {
    /// The text read (possibly empty), the recognizer's mean word confidence (0 to 100), the
    /// pages read.
    case text(String, confidence: Int, pages: Int)
    /// Not read on purpose (a photo without text, a picture too small): why.
    case skipped(String)
    /// The file or the recognizer failed: why.
    case failed(String)

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case let .text(text, confidence, pages):
            w.u64(0); w.bytes(Array(text.utf8)); w.u64(UInt64(max(0, confidence))); w.u64(UInt64(max(0, pages)))
        case .skipped(let why): w.u64(1); w.bytes(Array(why.utf8))
        case .failed(let why): w.u64(2); w.bytes(Array(why.utf8))
        }
        return w.out
    }

    package init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard let kind = r.u64() else { return nil }
        switch kind {
        case 0:
            guard let text = r.bytes(), let confidence = r.u64(), confidence <= 100, let pages = r.u64(), pages <= 10_000 else { return nil }
            self = .text(String(decoding: text, as: UTF8.self), confidence: Int(confidence), pages: Int(pages))
        case 1:
            guard let why = r.bytes() else { return nil }
            self = .skipped(String(decoding: why, as: UTF8.self))
        case 2:
            guard let why = r.bytes() else { return nil }
            self = .failed(String(decoding: why, as: UTF8.self))
        default: return nil
        }
        guard r.atEnd else { return nil }
    }
}
