import Attributes
import Foundation
import Testing

/// Dates cross JSON as ISO 8601 text with milliseconds (the worker pipe, the index's attribute
/// column): writing what was read must give the same text and the same instant (issue 11).
@Suite("ISO 8601 dates")
struct DateRoundTripTests {
    @Test("issue 11: every millisecond of a second survives parse and format, before and after 1970")
    func everyMillisecond() throws {
        for second in ["2026-11-24T20:23:15", "1969-07-20T20:17:40", "1900-01-01T00:00:00"] {
            var drifted: [String] = []
            for ms in 0..<1000 {
                let digits = String(ms)
                let text = second + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
                let date = try #require(AttributeValue.parseISO8601(text))
                let again = AttributeValue.iso8601(date)
                if again != text || AttributeValue.parseISO8601(again) != date { drifted.append("\(text) -> \(again)") }
            }
            #expect(drifted.isEmpty, "\(drifted.count) drifted, e.g. \(drifted.prefix(3))")
        }
    }

    @Test("a date between milliseconds is written rounded, and dates without milliseconds still parse")
    func rounding() throws {
        let d = Date(timeIntervalSince1970: 1_795_551_795.8839998)
        #expect(AttributeValue.iso8601(d) == "2026-11-24T20:23:15.884Z")
        #expect(AttributeValue.iso8601(Date(timeIntervalSince1970: 1_795_551_795.9996)) == "2026-11-24T20:23:16.000Z")
        #expect(AttributeValue.iso8601(Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(AttributeValue.iso8601(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
        #expect(AttributeValue.parseISO8601("2026-11-24T20:23:15Z") == Date(timeIntervalSince1970: 1_795_551_795))
    }
}
