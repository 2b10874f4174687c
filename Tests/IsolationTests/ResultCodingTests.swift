import Attributes
import ExtractionModel
import Foundation
@testable import Isolation
import Testing

/// The binary result frame (issue 23): every value round-trips, the values decoded are those the
/// JSON frame gave, and a malformed frame is an error, never a crash.
@Suite("ResultCoding")
struct ResultCodingTests {
    /// A result with every kind of value, problem, a child and a trace.
    static let full: ExtractionResult = {
        var a = AttributeSet()
        a.title = "Rapport annuel — été"
        a[.authors] = .strings(["Ada", "", "Bob \u{0}"])
        a[.fileSize] = .integer(Int64.min)
        a[.pixelWidth] = .integer(Int64.max)
        a[.latitude] = .double(-0.0)
        a[.duration] = .double(1e-300)
        a[.pageWidth] = .double(612.25)
        a[.contentModificationDate] = .date(Date(timeIntervalSince1970: 1_770_000_000.123))
        a[.contentCreationDate] = .date(Date(timeIntervalSince1970: -11_000_000_000))   // before 1600
        a[.encrypted] = .bool(true)
        a[.textTruncated] = .bool(false)
        a["customName"] = .string("x")
        a.textContent = "the text"
        var child = AttributeSet()
        child[.subject] = .string("Hello")
        child[.recordingDate] = .date(Date(timeIntervalSince1970: 0.0005))
        return ExtractionResult(
            attributes: a,
            problems: [.unreadable(errno: 13, message: "Permission denied"), .changedDuringRead,
                       .malformed(extractor: "pdf", reason: "no trailer"), .library("libmagic"),
                       .worker(extractor: "rtf", reason: "crashed (SIGSEGV)")],
            extractor: "mail", extractorVersion: -7,
            children: [ChildItem(key: "message/1", attributes: child), ChildItem(key: "message/2", attributes: AttributeSet())],
            trace: [ExtractorRun(name: "type", seconds: 0.000125, keys: [.contentType, .kind]), ExtractorRun(name: "x", seconds: 0, keys: [])])
    }()

    /// What the JSON frame made of a result: encoded and decoded by its `Codable` form.
    func throughJSON(_ r: ExtractionResult) throws -> ExtractionResult {
        var rest = r
        let text = rest.attributes.textContent
        rest.attributes[.textContent] = nil
        var back = try JSONDecoder().decode(ExtractionResult.self, from: try JSONEncoder().encode(rest))
        if let text, !text.isEmpty { back.attributes.textContent = text }
        return back
    }

    func roundTrip(_ r: ExtractionResult) throws -> ExtractionResult {
        let (text, frame) = try ResultCoding.encode(r)
        return try ResultCoding.decode(text: text, frame: frame)
    }

    @Test("every value type, problem, child and trace decodes as the JSON frame decoded it")
    func everyValue() throws {
        let back = try roundTrip(Self.full)
        #expect(back == (try throughJSON(Self.full)))
        #expect(back.attributes[.authors] == .strings(["Ada", "", "Bob \u{0}"]))
        #expect(back.attributes[.fileSize] == .integer(Int64.min))
        #expect(back.attributes[.latitude].map { if case .double(let d) = $0 { d.sign == .minus } else { false } } == true)
        #expect(back.attributes.textContent == "the text")
        #expect(back.problems == Self.full.problems)
        #expect(back.children.map(\.key) == ["message/1", "message/2"])
        #expect(back.extractor == "mail" && back.extractorVersion == -7)
        #expect(back.trace == Self.full.trace)
        var none = Self.full
        none.extractor = nil
        none.attributes[.textContent] = nil
        #expect(try roundTrip(none) == (try throughJSON(none)))
    }

    @Test("dates come out as the JSON frame's millisecond text made them, across the years")
    func datesAsJSON() throws {
        var rng = SystemRandomNumberGenerator()
        var attributes = AttributeSet()
        var expected = AttributeSet()
        for i in 0..<8000 {
            let seconds: Double = switch i % 4 {
            case 0: Double.random(in: -62_135_596_800..<253_402_300_799.9, using: &rng)   // 0001 to 9999
            case 1: Double.random(in: 0..<2_000_000_000, using: &rng)
            case 2: Double.random(in: 977_000_000..<979_600_000, using: &rng)   // around 2001, where a Double is finest
            default: Double(Int64.random(in: 0..<2_000_000_000_000, using: &rng)) / 1000   // exact milliseconds
            }
            let key = AttributeKey(i % 2 == 0 ? "contentCreationDate" : "fsContentChangeDate")
            attributes = AttributeSet([key: .date(Date(timeIntervalSince1970: seconds))])
            let result = ExtractionResult(attributes: attributes, problems: [], extractorVersion: 1)
            expected = try throughJSON(result).attributes
            let got = try roundTrip(result).attributes
            #expect(got == expected, "\(seconds)")
            if got != expected { break }
        }
    }

    @Test("a value that is not of its attribute's type, or of an unknown attribute, decodes as JSON decoded it")
    func mistypedValues() throws {
        let odd: [(AttributeKey, AttributeValue)] = [
            (.fileSize, .double(3.0)), (.fileSize, .double(3.5)), (.pageWidth, .integer(12)), (.title, .integer(5)),
            (.title, .date(Date(timeIntervalSince1970: 1))), (.contentCreationDate, .string("2026-01-31T09:30:00.250Z")),
            (.contentCreationDate, .string("yesterday")), (.authors, .string("Ada")), (.encrypted, .integer(1)),
            ("unknownKey", .double(2.0)), ("unknownKey", .double(2.5)), ("unknownKey", .bool(true)),
            ("unknownKey", .date(Date(timeIntervalSince1970: 1_770_000_000.5))), ("unknownKey", .integer(-4)),
            ("unknownKey", .strings(["a"])), ("unknownKey", .string("true")),
        ]
        for (key, value) in odd {
            let r = ExtractionResult(attributes: AttributeSet([key: value]), problems: [], extractorVersion: 1)
            #expect(try roundTrip(r) == (try throughJSON(r)), "\(key.rawValue): \(value)")
        }
    }

    @Test("a number that is not finite is refused when encoding, as JSON refused it")
    func nonFinite() {
        for d in [Double.nan, .infinity, -.infinity] {
            let r = ExtractionResult(attributes: AttributeSet([.duration: .double(d)]), problems: [], extractorVersion: 1)
            #expect(throws: ResultCoding.EncodingError.self) { try ResultCoding.encode(r) }
        }
    }

    @Test("every cut of a valid frame, and every changed byte, is an error or a result, never a crash")
    func truncatedAndGarbled() throws {
        let (_, frame) = try ResultCoding.encode(Self.full)
        for n in 0..<frame.count {
            #expect(throws: ResultCoding.DecodingError.self) { try ResultCoding.decode(text: nil, frame: Array(frame[0..<n])) }
        }
        #expect(throws: ResultCoding.DecodingError.self) { try ResultCoding.decode(text: nil, frame: frame + [0]) }
        for i in frame.indices {
            for b: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
                var garbled = frame
                garbled[i] = b
                _ = try? ResultCoding.decode(text: nil, frame: garbled)
            }
        }
    }

    @Test("malformed frames name what is wrong", arguments: [
        ([0x02, 0, 0, 0, 0, 0, 0], "unknown format version"),
        ([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "larger than the frame"),
        ([0x01, 1, 1, 0x61, 0, 2, 0xC3, 0x28, 0, 0, 0, 0, 0], "not UTF-8"),
        ([0x01, 2, 1, 0x61, 2, 2, 1, 0x61, 2, 4, 0, 0, 0, 0, 0], "twice"),
        ([0x01, 1, 1, 0x61, 5, 2, 0, 0, 0, 0, 0], "neither 0 nor 1"),
        ([0x01, 1, 1, 0x61, 9, 0, 0, 0, 0, 0, 0], "unknown value tag"),
        ([0x01, 1, 1, 0x61, 3, 0, 0, 0, 0, 0, 0, 0xF8, 0x7F, 0, 0, 0, 0, 0], "not finite"),
        ([0x01, 0, 1, 7, 0, 0, 0, 0], "unknown problem tag"),
        ([0x01, 0, 0, 2, 0, 0, 0], "bad extractor flag"),
        ([0x01, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0, 0], "number too long"),
        ([0x01, 0, 0, 0, 0, 0, 0, 0], "bytes after the result"),
    ] as [([UInt8], String)])
    func malformed(_ frame: [UInt8], _ reason: String) {
        do {
            _ = try ResultCoding.decode(text: nil, frame: frame)
            Issue.record("decoded: \(frame)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("an empty text frame is no text, as before")
    func emptyText() throws {
        let r = ExtractionResult(attributes: AttributeSet([.title: .string("t")]), problems: [], extractorVersion: 1)
        let (text, frame) = try ResultCoding.encode(r)
        #expect(text.isEmpty)
        #expect(try ResultCoding.decode(text: [], frame: frame).attributes.textContent == nil)
    }
}
