import Attributes
import Testing

@Suite("NUL in text (issue 22, F3 F16)")
struct NULTextTests {
    @Test("each NUL of a name, a string or a list becomes a space; numbers, dates and NUL-free sets stay as they are")
    func replaced() throws {
        var set = AttributeSet()
        set[.comment] = .string("draft\0final")
        set[.keywords] = .strings(["a\0b", "plain", "\0"])
        set[AttributeKey("odd\0name")] = .string("x")
        set[.fileSize] = .integer(12)
        let clean = set.replacingNUL()
        #expect(clean[.comment] == .string("draft final"))
        #expect(clean[.keywords] == .strings(["a b", "plain", " "]))
        #expect(clean[AttributeKey("odd name")] == .string("x"))
        #expect(clean[AttributeKey("odd\0name")] == nil)
        #expect(clean[.fileSize] == .integer(12))
        #expect(!clean.values.values.contains { $0.containsNUL })
        #expect(try !clean.jsonText().contains("\\u0000"))
        var plain = AttributeSet()
        plain.title = "no nul here"
        #expect(plain.replacingNUL() == plain)
    }
}
