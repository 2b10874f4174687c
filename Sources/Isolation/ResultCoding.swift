import Attributes
import ExtractionModel
import FoundationEssentials

/// The result as it crosses the pipe: the text as raw UTF-8 in a `text` frame, everything else
/// in a compact binary `result` frame.
///
/// A key design decision: the frame is a flat, length-prefixed encoding read by a strict,
/// bounds-checked decoder, because the parent does not trust the worker: a truncated frame, a
/// count larger than the bytes left, a tag it does not know, a string that is not UTF-8, an
/// attribute named twice, a non-finite number or bytes after the end fail that file (the
/// worker is stopped), and nothing the worker writes can make the parent crash or allocate more
/// than the frame's size. Decoding JSON was about 5 % of a whole crawl's CPU (issue 14's
/// profile), most of it parsing the ISO 8601 dates every item carries.
///
/// The values decoded are those the JSON frame gave, to the bit: dates pass through their ISO
/// 8601 text with milliseconds, as they did in JSON (the arithmetic is the parser's, checked by
/// `ResultCodingTests` against `JSONDecoder` on random dates), and a value whose case is not its
/// attribute's type (which no extractor sets today) is decoded through `AttributeSet`'s JSON
/// coding itself, so that even then nothing changes.
///
/// Layout (integers are LEB128 varints, signed ones zig-zagged; strings a varint byte count
/// then UTF-8; doubles 8 bytes, little-endian IEEE 754):
/// ```
/// result    := 0x01 attributes problems extractor? version children trace
/// attributes:= count (key tag value)*    tag 0 string, 1 strings, 2 integer, 3 double,
///                                            4 date (seconds since 2001 as a double), 5 bool (0 or 1)
/// problems  := count (tag fields)*       0 unreadable(errno, message), 1 changedDuringRead,
///                                        2 malformed(extractor, reason), 3 library(message), 4 worker(extractor, reason)
/// extractor?:= 0 | 1 string
/// children  := count (key attributes)*
/// trace     := count (name seconds count key*)*
/// ```
///
/// For example:
/// ```swift
/// let (text, frame) = try ResultCoding.encode(result)        // in the worker
/// let same = try ResultCoding.decode(text: text, frame: frame) // in the parent
/// ```
package enum ResultCoding {
    /// The first byte of every result frame.
    static let formatVersion: UInt8 = 1

    /// What went wrong in a result frame, for the worker failure that is recorded.
    package enum DecodingError: Error, CustomStringConvertible, Equatable {
        case malformed(String, at: Int)

        package var description: String {
            switch self {
            case let .malformed(what, at): "malformed result frame: \(what) at byte \(at)"
            }
        }
    }

    /// Why a result cannot be sent (a non-finite number, which JSON could not carry either).
    package struct EncodingError: Error, CustomStringConvertible {
        package var description: String
    }

    package static func encode(_ r: ExtractionResult) throws(EncodingError) -> (text: [UInt8], frame: [UInt8]) {
        let text = r.attributes.textContent.map { Array($0.utf8) } ?? []
        var w = ResultWriter()
        w.out.reserveCapacity(512)
        w.byte(formatVersion)
        try w.attributes(r.attributes, skipping: .textContent)
        w.count(r.problems.count)
        for p in r.problems { w.problem(p) }
        if let e = r.extractor { w.byte(1); w.string(e) } else { w.byte(0) }
        w.signed(Int64(r.extractorVersion))
        w.count(r.children.count)
        for c in r.children {
            w.string(c.key)
            try w.attributes(c.attributes, skipping: nil)
        }
        w.count(r.trace.count)
        for run in r.trace {
            w.string(run.name)
            try w.double(run.seconds)
            w.count(run.keys.count)
            for k in run.keys { w.string(k.rawValue) }
        }
        return (text, w.out)
    }

    package static func decode(text: [UInt8]?, frame: [UInt8]) throws(DecodingError) -> ExtractionResult {
        try frame.withUnsafeBufferPointer { buffer throws(DecodingError) in
            var r = ResultReader(buffer)
            guard try r.byte() == formatVersion else { throw r.fail("unknown format version") }
            var attributes = try r.attributes()
            let problemCount = try r.count()
            var problems: [ExtractionError] = []
            problems.reserveCapacity(problemCount)
            for _ in 0..<problemCount { problems.append(try r.problem()) }
            let extractor: String? = switch try r.byte() {
            case 0: nil
            case 1: try r.string()
            default: throw r.fail("bad extractor flag")
            }
            guard let version = Int(exactly: try r.signed()) else { throw r.fail("extractor version out of range") }
            let childCount = try r.count()
            var children: [ChildItem] = []
            children.reserveCapacity(childCount)
            for _ in 0..<childCount {
                let key = try r.string()
                children.append(ChildItem(key: key, attributes: try r.attributes()))
            }
            let runCount = try r.count()
            var trace: [ExtractorRun] = []
            trace.reserveCapacity(runCount)
            for _ in 0..<runCount {
                let name = try r.string()
                let seconds = try r.double()
                let keyCount = try r.count()
                var keys: [AttributeKey] = []
                keys.reserveCapacity(keyCount)
                for _ in 0..<keyCount { keys.append(AttributeKey(try r.string())) }
                trace.append(ExtractorRun(name: name, seconds: seconds, keys: keys))
            }
            guard r.atEnd else { throw r.fail("bytes after the result") }
            if let text, !text.isEmpty { attributes.textContent = String(decoding: text, as: UTF8.self) }
            return ExtractionResult(attributes: attributes, problems: problems, extractor: extractor,
                                    extractorVersion: version, children: children, trace: trace)
        }
    }

    // MARK: What JSON made of a value

    /// The value the JSON frame would have delivered for `value` of `key`: the value itself
    /// when its case is the key's type (a date rounded to the millisecond, as its text was),
    /// else whatever `AttributeSet`'s JSON coding makes of it.
    static func asJSONWouldDecode(_ key: AttributeKey, _ value: AttributeValue) -> AttributeValue? {
        switch (key.valueType, value) {
        case (.string?, .string), (.strings?, .strings), (.integer?, .integer), (.bool?, .bool), (.double?, .double),
             (nil, .string), (nil, .strings), (nil, .integer):
            return value
        case (.date?, .date(let d)):
            if let exact = millisecondDate(d) { return .date(exact) }
            return viaJSON(key, value)
        default:
            return viaJSON(key, value)
        }
    }

    /// `parseISO8601(iso8601(d))` without the text, for the years 1600 to 9999 where
    /// `iso8601` uses integer arithmetic. The parser adds the time of day with its
    /// milliseconds (`Double(secondsOfDay) + ms / 1000`) to the day's start in seconds since
    /// 2001, and so does this, in the same order: adding the milliseconds to the whole seconds
    /// instead differed in the last bit for one date in 30 (those of the days around 2001,
    /// where a Double's bits are finest). Nil outside those years.
    static func millisecondDate(_ d: Date) -> Date? {
        let ms = (d.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite, ms >= -11_676_096_000_000, ms < 253_402_300_800_000 else { return nil }
        let total = Int64(ms)
        let seconds = total >= 0 ? total / 1000 : (total - 999) / 1000
        let fraction = total - seconds * 1000
        let sinceReference = seconds - 978_307_200   // 2001-01-01 is a day boundary
        let ofDay = ((sinceReference % 86_400) + 86_400) % 86_400
        return Date(timeIntervalSinceReferenceDate: Double(sinceReference - ofDay) + (Double(ofDay) + Double(fraction) / 1000))
    }

    /// One attribute through `AttributeSet`'s own JSON coding (rare: see `asJSONWouldDecode`).
    static func viaJSON(_ key: AttributeKey, _ value: AttributeValue) -> AttributeValue? {
        guard let json = try? JSONEncoder().encode(AttributeSet([key: value])),
              let back = try? JSONDecoder().decode(AttributeSet.self, from: json) else { return nil }
        return back[key]
    }
}

/// Appends the pieces of a result frame.
struct ResultWriter {
    var out: [UInt8] = []

    mutating func byte(_ b: UInt8) { out.append(b) }

    mutating func unsigned(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    mutating func signed(_ v: Int64) { unsigned(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }
    mutating func count(_ n: Int) { unsigned(UInt64(n)) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            count(u.count)
            out.append(contentsOf: u)
        }
    }

    mutating func double(_ d: Double) throws(ResultCoding.EncodingError) {
        guard d.isFinite else { throw ResultCoding.EncodingError(description: "a number that is not finite (\(d))") }
        let bits = d.bitPattern
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
    }

    mutating func attributes(_ set: AttributeSet, skipping skipped: AttributeKey?) throws(ResultCoding.EncodingError) {
        count(set.values.count - (skipped.map { set.values[$0] == nil ? 0 : 1 } ?? 0))
        for (key, value) in set.values where key != skipped {
            string(key.rawValue)
            switch value {
            case .string(let s): byte(0); string(s)
            case .strings(let a): byte(1); count(a.count); for s in a { string(s) }
            case .integer(let i): byte(2); signed(i)
            case .double(let d): byte(3); try double(d)
            case .date(let d): byte(4); try double(d.timeIntervalSinceReferenceDate)
            case .bool(let b): byte(5); byte(b ? 1 : 0)
            }
        }
    }

    mutating func problem(_ p: ExtractionError) {
        switch p {
        case let .unreadable(errno, message): byte(0); signed(Int64(errno)); string(message)
        case .changedDuringRead: byte(1)
        case let .malformed(extractor, reason): byte(2); string(extractor); string(reason)
        case let .library(message): byte(3); string(message)
        case let .worker(extractor, reason): byte(4); string(extractor); string(reason)
        }
    }
}

/// Reads a result frame; every read is bounds-checked and throws on bytes that do not fit.
struct ResultReader {
    let b: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    var atEnd: Bool { i == b.count }

    func fail(_ what: String) -> ResultCoding.DecodingError { .malformed(what, at: i) }

    mutating func byte() throws(ResultCoding.DecodingError) -> UInt8 {
        guard i < b.count else { throw fail("frame ends early") }
        defer { i += 1 }
        return b[i]
    }

    mutating func unsigned() throws(ResultCoding.DecodingError) -> UInt64 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let c = try byte()
            guard shift < 64, shift < 63 || c <= 1 else { throw fail("number too long") }
            v |= UInt64(c & 0x7F) << shift
            if c & 0x80 == 0 { return v }
            shift += 7
        }
    }

    mutating func signed() throws(ResultCoding.DecodingError) -> Int64 {
        let u = try unsigned()
        return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }

    /// A count of things that each take at least one byte, so never more than the bytes left.
    mutating func count() throws(ResultCoding.DecodingError) -> Int {
        let n = try unsigned()
        guard n <= UInt64(b.count - i) else { throw fail("count \(n) larger than the frame") }
        return Int(n)
    }

    mutating func string() throws(ResultCoding.DecodingError) -> String {
        let n = try count()
        defer { i += n }
        guard let s = String(validating: UnsafeBufferPointer(rebasing: b[i..<(i + n)]), as: UTF8.self) else {
            throw fail("a string that is not UTF-8")
        }
        return s
    }

    mutating func double() throws(ResultCoding.DecodingError) -> Double {
        guard b.count - i >= 8 else { throw fail("frame ends early") }
        var bits: UInt64 = 0
        for k in 0..<8 { bits |= UInt64(b[i + k]) << (8 * UInt64(k)) }
        i += 8
        let d = Double(bitPattern: bits)
        guard d.isFinite else { throw fail("a number that is not finite") }
        return d
    }

    mutating func attributes() throws(ResultCoding.DecodingError) -> AttributeSet {
        let n = try count()
        var values: [AttributeKey: AttributeValue] = [:]
        values.reserveCapacity(n)
        for _ in 0..<n {
            let key = AttributeKey(try string())
            let value: AttributeValue
            switch try byte() {
            case 0: value = .string(try string())
            case 1:
                let m = try count()
                var a: [String] = []
                a.reserveCapacity(m)
                for _ in 0..<m { a.append(try string()) }
                value = .strings(a)
            case 2: value = .integer(try signed())
            case 3: value = .double(try double())
            case 4: value = .date(Date(timeIntervalSinceReferenceDate: try double()))
            case 5:
                switch try byte() {
                case 0: value = .bool(false)
                case 1: value = .bool(true)
                default: throw fail("a boolean that is neither 0 nor 1")
                }
            default: throw fail("unknown value tag")
            }
            guard values[key] == nil else { throw fail("attribute \(key.rawValue) twice") }
            guard let decoded = ResultCoding.asJSONWouldDecode(key, value) else { throw fail("attribute \(key.rawValue) has no JSON form") }
            values[key] = decoded
        }
        return AttributeSet(values)
    }

    mutating func problem() throws(ResultCoding.DecodingError) -> ExtractionError {
        switch try byte() {
        case 0:
            guard let errno = Int32(exactly: try signed()) else { throw fail("errno out of range") }
            return .unreadable(errno: errno, message: try string())
        case 1: return .changedDuringRead
        case 2:
            let extractor = try string()
            return .malformed(extractor: extractor, reason: try string())
        case 3: return .library(try string())
        case 4:
            let extractor = try string()
            return .worker(extractor: extractor, reason: try string())
        default: throw fail("unknown problem tag")
        }
    }
}
