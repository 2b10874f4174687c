import Attributes
import Crawling
import ExtractionModel
import FoundationEssentials
import MemberwiseInit
import SystemCalls
import SystemPackage

/// The protocol between a parent and its `fsindex-worker`: requests on a Unix socket (the
/// worker's standard input), answers on a pipe (its standard output).
///
/// Every message is a frame: a 4-byte little-endian length, one byte of kind, the payload. The
/// parent sends one `file` frame per file, with the regular file it opened attached (SCM_RIGHTS:
/// the worker may not open files by name); the worker answers with any number of `stage` frames
/// (the extractor about to run, so a crash is blamed on it), then `text` (the raw UTF-8 text,
/// by far the largest part) and `result` (the rest of the `ExtractionResult`, in the binary
/// form of `ResultCoding`).
///
/// A key design decision: the worker trusts the parent, the parent does not trust the worker.
/// Every frame the parent reads is checked against the output limit before it is buffered, and
/// anything malformed ends the worker as a failure of that file.
package enum FrameKind: UInt8 {
    case file = 0x46      // F: parent → worker, `WorkRequest`
    case stage = 0x53     // S: worker → parent, an extractor's name
    case text = 0x54      // T: worker → parent, textContent bytes
    case result = 0x52    // R: worker → parent, `ResultCoding`'s binary `ExtractionResult` without
                          // textContent (or the answer to a probe)
    case probe = 0x50     // P: parent → worker, run the sandbox self-test
    case retiring = 0x51  // Q: worker → parent, before a result: its CPU budget is nearly spent,
                          // so it ends after this file and the parent starts another
    case thumbnail = 0x49 // I: parent → worker, `ThumbnailRequest` (with the file's descriptor);
                          // answered by a `result` frame of `ThumbnailAnswer`
    case recognize = 0x4F // O: parent → worker, `RecognitionRequest` (with the file's descriptor);
                          // answered by a `result` frame of `RecognitionAnswer` (OCR, issue 28)
}

package enum Frame {
    package static let headerSize = 5

    package static func encode(_ kind: FrameKind, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + headerSize)
        let n = UInt32(payload.count)
        out += [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24), kind.rawValue]
        out += payload
        return out
    }

    /// The payload length and kind of a 5-byte header.
    package static func header(_ b: ArraySlice<UInt8>) -> (length: Int, kind: UInt8) {
        let i = b.startIndex
        let n = Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
        return (n, b[i + 4])
    }
}

/// One file to extract: its facts as the crawl saw them, the text cap, and why the parent could
/// not open it, if it could not (else a regular file's descriptor comes with the frame).
@MemberwiseInit
package struct WorkRequest: Equatable {
    package var facts: FileFacts
    package var textCap: Int
    package var openFailure: ExtractionError? = nil

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u64(UInt64(textCap))
        w.bytes(facts.path.bytes)
        w.bytes(Array(facts.type.rawValue.utf8))
        w.i64(facts.size)
        w.u64(UInt64(facts.permissions))
        w.u64(UInt64(facts.uid))
        w.u64(UInt64(facts.gid))
        w.u64(facts.device)
        w.u64(facts.inode)
        w.u64(UInt64(facts.linkCount))
        w.i64(facts.accessNanos)
        w.i64(facts.modificationNanos)
        w.i64(facts.changeNanos)
        w.u64(facts.birthNanos == nil ? 0 : 1)
        w.i64(facts.birthNanos ?? 0)
        w.i64(facts.allocatedSize)
        switch openFailure {
        case nil: w.u64(0); w.u64(0)
        case .changedDuringRead?: w.u64(1); w.u64(0)
        case .unreadable(let e, _)?: w.u64(2); w.u64(UInt64(UInt32(bitPattern: e)))
        case let other?: w.u64(3); w.bytes(Array(other.description.utf8))
        }
        // The times again, as seconds and nanoseconds, when a count of nanoseconds above does
        // not hold one (before 1677 or after 2262); left out otherwise, so a request is as before.
        let times = [facts.accessTime, facts.modificationTime, facts.changeTime, facts.birthTime ?? FileTime(seconds: 0, nanoseconds: 0)]
        if times.contains(where: { FileTime(nanosecondsSince1970: $0.nanosecondsSince1970) != $0 }) {
            for t in times { w.i64(t.seconds); w.u64(UInt64(t.nanoseconds)) }
        }
        return w.out
    }

    package init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        // A path with a NUL byte names no file: `FilePath` would cut it short there, and the
        // worker would read another file than the one meant (found by fsindex-fuzz worker-request).
        guard let cap = r.u64(), let path = r.bytes(), !path.isEmpty, !path.contains(0), let typeBytes = r.bytes(),
              let type = FileType(rawValue: String(decoding: typeBytes, as: UTF8.self)),
              let size = r.i64(), let perm = r.u64(), let uid = r.u64(), let gid = r.u64(), let dev = r.u64(),
              let ino = r.u64(), let links = r.u64(), let at = r.i64(), let mt = r.i64(), let ct = r.i64(),
              let hasBirth = r.u64(), let birth = r.i64(), let alloc = r.i64(), let failure = r.u64()
        else { return nil }
        switch failure {
        case 0: guard r.u64() == 0 else { return nil }
        case 1: guard r.u64() == 0 else { return nil }; openFailure = .changedDuringRead
        case 2: guard let e = r.u64(), e > 0, e < 4096 else { return nil }; openFailure = CrawledFile.unreadable(Int32(e))
        case 3: guard let m = r.bytes() else { return nil }; openFailure = .library(String(decoding: m, as: UTF8.self))
        default: return nil
        }
        var times = [at, mt, ct, birth].map(FileTime.init(nanosecondsSince1970:))
        if !r.atEnd {
            for i in times.indices {
                guard let s = r.i64(), let n = r.u64(), n < 1_000_000_000 else { return nil }
                times[i] = FileTime(seconds: s, nanoseconds: UInt32(n))
            }
        }
        guard r.atEnd else { return nil }
        textCap = Int(clamping: cap)
        facts = FileFacts(path: FilePath(bytes: path), type: type, size: size, permissions: UInt32(truncatingIfNeeded: perm),
                          uid: UInt32(truncatingIfNeeded: uid), gid: UInt32(truncatingIfNeeded: gid), device: dev, inode: ino,
                          linkCount: UInt32(truncatingIfNeeded: links), accessTime: times[0], modificationTime: times[1],
                          changeTime: times[2], birthTime: hasBirth == 1 ? times[3] : nil, allocatedSize: alloc)
    }
}

struct ByteWriter {
    var out: [UInt8] = []
    mutating func u64(_ v: UInt64) { for i in 0..<8 { out.append(UInt8((v >> (8 * UInt64(i))) & 0xFF)) } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func bytes(_ b: [UInt8]) { u64(UInt64(b.count)); out += b }
}

struct ByteReader {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }
    var atEnd: Bool { i == b.count }
    mutating func u64() -> UInt64? {
        guard b.count - i >= 8 else { return nil }
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[i + k]) << (8 * UInt64(k)) }
        i += 8
        return v
    }
    mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
    mutating func bytes() -> [UInt8]? {
        guard let n = u64(), n <= UInt64(b.count - i) else { return nil }
        defer { i += Int(n) }
        return Array(b[i..<i + Int(n)])
    }
}
