import Foundation
import Testing
@testable import Attributes

/// The one linear pass every JSON text of the socket and of donations goes through first.
@Suite("JSON shape")
struct JSONShapeTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test("valid JSON passes, as JSONSerialization agrees")
    func valid() throws {
        let texts = [
            #"{}"#, #"[]"#, #" {"a": [1, -2.5e+3, 0, 0.5, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} "#,
            #""plain""#, "12", #"{"a":{"b":{"c":[[[]]]}}}"#, #"{"é":1,"e\u0301":2}"#,
        ]
        for text in texts {
            try JSONShape.check(Self.bytes(text))
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil, "\(text)")
        }
    }

    @Test("invalid JSON is refused with the place it went wrong")
    func invalid() {
        let texts = [
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e", "tru", "\"abc", "\"a\u{01}b\"",
            "\"\\x\"", "\"\\u12G4\"", "{} {}", "[1 2]", "{1:2}", "nul",
        ]
        for text in texts {
            #expect(throws: JSONShape.Failure.self, "\(text)") { try JSONShape.check(Self.bytes(text)) }
        }
        do {
            try JSONShape.check(Self.bytes("[1, 2, ]"))
        } catch {
            #expect(error.offset == 7 && error.description.contains("at byte 7"), "\(error)")
        }
    }

    @Test("nesting past the limit is refused at once, however long the text")
    func depth() throws {
        try JSONShape.check(Self.bytes(String(repeating: "[", count: 32) + String(repeating: "]", count: 32)))
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect { try JSONShape.check(Self.bytes(deep)) } throws: { "\($0)".contains("nested deeper than 32 levels") }
        // 200,000 levels: refused at the 33rd, without recursion past it.
        let huge = Self.bytes(String(repeating: "{\"k\":[", count: 100_000))
        #expect { try JSONShape.check(huge) } throws: { ($0 as? JSONShape.Failure)?.offset ?? .max < 200 }
        #expect(throws: JSONShape.Failure.self) { try JSONShape.check(Self.bytes("[[1]]"), maximumDepth: 1) }
    }

    @Test("a name twice in one object is refused, however it is spelled")
    func duplicates() throws {
        for text in [#"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"é":1,"\u00e9":2}"#, #"{"x":{"b":1,"b":1}}"#,
                     #"{"😀":1,"\ud83d\ude00":2}"#, #"{"\\":1,"\u005c":2}"#] {
            #expect(throws: JSONShape.Failure.self, "\(text)") { try JSONShape.check(Self.bytes(text)) }
            #expect { try JSONShape.check(Self.bytes(text)) } throws: { "\($0)".contains("appears twice") }
        }
        // The same name in two objects, or names that differ, are fine.
        try JSONShape.check(Self.bytes(#"[{"a":1},{"a":2}]"#))
        try JSONShape.check(Self.bytes(#"{"a":1,"A":2,"\\u0061":3,"ab":4}"#))
    }

    @Test("members and elements are the bytes as written")
    func ranges() throws {
        let text = Self.bytes(#"{"request":"donate", "items" : [ {"n": 9007199254740993} ,{"s":"a,]b"}],"\u0064omain":"x"}"#)
        let members = try JSONShape.members(of: text)
        #expect(members.map { String(decoding: $0.name, as: UTF8.self) } == ["request", "items", "domain"])
        let items = try #require(members.first { $0.name == Self.bytes("items") })
        let elements = try #require(JSONShape.elements(of: text, in: items.value))
        #expect(elements.map { String(decoding: text[$0], as: UTF8.self) } == [#"{"n": 9007199254740993}"#, #"{"s":"a,]b"}"#])
        #expect(JSONShape.elements(of: text, in: members[0].value) == nil)
        #expect(throws: JSONShape.Failure.self) { try JSONShape.members(of: Self.bytes("[1]")) }
    }
}
