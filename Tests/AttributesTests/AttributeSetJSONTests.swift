@testable import Attributes
import Foundation
import Testing

/// `AttributeSet.jsonText` (the stored form of an item's attributes, written without
/// `JSONEncoder`) and the integer-arithmetic `AttributeValue.iso8601` must say what the
/// Foundation paths they replace say.
@Suite("AttributeSet JSON without JSONEncoder")
struct AttributeSetJSONTests {
    @Test("the fast ISO 8601 text equals the formatter's, from 1600 to 9999 and around the edges")
    func isoSameAsFormatter() {
        var generator = SystemRandomNumberGenerator()
        var ms: [Int64] = [0, -1, 1, 999, -999, -1000, 86_399_999, -86_400_000, 951_782_400_000,   // 2000-02-29
                           -11_676_096_000_000, 253_402_300_799_999, 1_795_551_795_884, -5_364_662_400_000]
        for _ in 0..<5000 { ms.append(Int64.random(in: -11_676_096_000_000..<253_402_300_800_000, using: &generator)) }
        var different: [String] = []
        for m in ms {
            let date = Date(timeIntervalSince1970: Double(m) / 1000)
            let fast = AttributeValue.iso8601(date), slow = AttributeValue.formattedISO8601(date)
            if fast != slow { different.append("\(m): \(fast) != \(slow)") }
        }
        #expect(different.isEmpty, "\(different.count) differ, e.g. \(different.prefix(3))")
        // Outside the fast range the formatter still answers.
        #expect(AttributeValue.iso8601(Date(timeIntervalSince1970: -20_000_000_000)) == AttributeValue.formattedISO8601(Date(timeIntervalSince1970: -20_000_000_000)))
    }

    @Test("jsonText decodes to the same set as JSONEncoder's text: every value type, escapes, other scripts")
    func sameAsJSONEncoder() throws {
        var set = AttributeSet()
        set.title = "Quote \" back\\slash /slash\ttab\nline \u{01}\u{1F} é 漢字 🙂"
        set[.fileSize] = .integer(-9_223_372_036_854_775_807)
        set[.authors] = .strings(["Ada", "", "a/b", "\u{7F}"])
        set[.contentModificationDate] = .date(Date(timeIntervalSince1970: 1_795_551_795.884))
        set[.duration] = .double(2.0)
        set[AttributeKey("customDouble")] = .double(3.0)
        set[AttributeKey("customFraction")] = .double(-0.000012345)
        set[AttributeKey("customBig")] = .double(1e300)
        set[AttributeKey("customBool")] = .bool(true)
        set[AttributeKey("customFalse")] = .bool(false)
        set[AttributeKey("custom/Name \"x\"")] = .string("")
        let text = try set.jsonText()
        let fromFast = try JSONDecoder().decode(AttributeSet.self, from: Data(text.utf8))
        let fromEncoder = try JSONDecoder().decode(AttributeSet.self, from: JSONEncoder().encode(set))
        #expect(fromFast == fromEncoder)
        #expect(fromFast[.duration] == .double(2.0) && fromFast.title == set.title)
        #expect(try AttributeSet().jsonText() == "{}")
        // JSONEncoder refuses what is not a JSON number, and so does jsonText.
        var bad = AttributeSet()
        bad[AttributeKey("customDouble")] = .double(.nan)
        #expect(throws: (any Error).self) { try bad.jsonText() }
    }
}
