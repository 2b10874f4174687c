import Attributes
import ExtractionModel
import FoundationEssentials
import Isolation
import WorkerRuntime
import Glibc

/// The worker protocol targets, one per direction of the pipe.
///
/// The worker trusts its parent, but its decoder must still never crash on a short or garbled
/// request; the parent trusts nothing the worker says, since the worker parses hostile files and
/// may be the one that was subverted. Each side is fed the bytes both as one message (the
/// decoders alone, so the fuzzer need not learn the framing first) and as a stream of frames,
/// and what decodes must survive an encode-decode round trip unchanged.
enum WorkerProtocolHarness {
    /// A temporary file the worker's `FrameReader` reads each input from, as it reads its pipe.
    static let stream: Int32 = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/fsindex-fuzz-frames-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { fatalError("fsindex-fuzz: cannot make a temporary file in \(base): \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }()

    /// The worker's side: a request payload, then the input as the worker's standard input.
    static func request(_ bytes: [UInt8]) {
        checkRequest(bytes)
        guard ftruncate(stream, 0) == 0, lseek(stream, 0, SEEK_SET) == 0,
              bytes.withUnsafeBytes({ write(stream, $0.baseAddress, $0.count) }) == bytes.count,
              lseek(stream, 0, SEEK_SET) == 0 else {
            fatalError("fsindex-fuzz: cannot write the frames file: \(String(cString: strerror(errno)))")
        }
        var consumed: [UInt8] = []
        for (kind, payload) in WorkerRuntimeFuzzing.frames(readingFrom: stream) {
            let n = UInt32(payload.count)
            consumed += [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24), kind] + payload
            if kind == FrameKind.file.rawValue { checkRequest(payload) }
        }
        guard bytes.starts(with: consumed) else {
            fatalError("worker-request: the frames read (\(consumed.count) bytes) are not the start of the input")
        }
    }

    static func checkRequest(_ payload: [UInt8]) {
        guard let request = WorkRequest(decoding: payload) else { return }
        guard WorkRequest(decoding: request.encoded()) == request else {
            fatalError("worker-request: a request does not survive encoding and decoding again")
        }
    }

    /// The parent's side: a result frame's payload (`ResultCoding`'s binary form), then the
    /// input as a stream of frames from a worker
    /// (stage, text, result), split with `Frame.header` as `ExtractionWorker` splits them.
    static func result(_ bytes: [UInt8]) {
        checkResult(text: nil, frame: bytes)
        var rest = bytes[...]
        var text: [UInt8]?
        while rest.count >= Frame.headerSize {
            let (length, kind) = Frame.header(rest.prefix(Frame.headerSize))
            guard length >= 0, length <= rest.count - Frame.headerSize else { break }
            let body = Array(rest.dropFirst(Frame.headerSize).prefix(length))
            rest = rest.dropFirst(Frame.headerSize + length)
            switch FrameKind(rawValue: kind) {
            case .stage: _ = String(decoding: body, as: UTF8.self)
            case .text: text = body
            case .result: checkResult(text: text, frame: body)
            default: break
            }
        }
    }

    static func checkResult(text: [UInt8]?, frame: [UInt8]) {
        guard let first = try? ResultCoding.decode(text: text, frame: frame) else { return }
        _ = first.attributes.textContent
        // The first decode may normalise (an empty text is no text); from then on the round trip is exact.
        guard let (t1, j1) = try? ResultCoding.encode(first), let second = try? ResultCoding.decode(text: t1, frame: j1) else {
            fatalError("worker-result: a decoded result cannot be encoded and decoded again")
        }
        guard let (t2, j2) = try? ResultCoding.encode(second), let third = try? ResultCoding.decode(text: t2, frame: j2) else {
            fatalError("worker-result: a result decoded twice cannot be encoded and decoded again")
        }
        if third != second {
            let keys = Set(second.attributes.keys + third.attributes.keys).filter { key in
                // Past year 9999 a Double holds a date to about a millisecond only, so there the
                // round trip is checked to 2 ms (the text is stable; the instant may move one ulp).
                if case .date(let a)? = second.attributes[key], case .date(let b)? = third.attributes[key],
                   abs(a.timeIntervalSince1970) >= 253_402_300_800, abs(a.timeIntervalSince(b)) <= 0.002 { return false }
                return second.attributes[key] != third.attributes[key]
            }
            if keys.isEmpty, second.problems == third.problems, second.children == third.children, second.trace == third.trace,
               second.extractor == third.extractor, second.extractorVersion == third.extractorVersion { return }
            func show(_ v: AttributeValue?) -> String {
                guard let v else { return "nil" }
                if case .date(let d) = v { return "\(AttributeValue.iso8601(d)) (\(d.timeIntervalSince1970))" }
                return "\(v)"
            }
            let changed = keys.sorted().map { "\($0.rawValue): \(show(second.attributes[$0])) -> \(show(third.attributes[$0]))" }
            fatalError("worker-result: a result changes on a second encode-decode round trip: \(changed)"
                       + (second.problems != third.problems ? " problems" : "") + (second.children != third.children ? " children" : "")
                       + (second.trace != third.trace ? " trace" : ""))
        }
    }
}
