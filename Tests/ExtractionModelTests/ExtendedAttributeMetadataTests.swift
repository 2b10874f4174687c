import Attributes
import ExtractionModel
import Testing

@Suite("ExtendedAttributeMetadata")
struct ExtendedAttributeMetadataTests {
    @Test("tags: split at commas, blanks and empties dropped, a repeat (ignoring case) kept once")
    func parseTags() {
        #expect(ExtendedAttributeMetadata.parseTags("work, Draft,,WORK , 2026") == ["work", "Draft", "2026"])
        #expect(ExtendedAttributeMetadata.parseTags("") == [])
        #expect(ExtendedAttributeMetadata.formatTags(["a", "b c"]) == "a,b c")
    }

    @Test("edit keeps the order, adds at the end once, removes ignoring case")
    func edit() {
        let e = ExtendedAttributeMetadata.edit(["work", "Draft", "x"], adding: ["final", "WORK"], removing: ["draft"])
        #expect(e == ["work", "x", "final"])
        #expect(ExtendedAttributeMetadata.edit([], adding: ["a", "a"], removing: []) == ["a"])
    }

    @Test("values become attributes; a bad rating (out of 0-10, not a number) is left out with a note")
    func values() {
        let (a, notes) = ExtendedAttributeMetadata.attributes(from: [
            "user.xdg.tags": Array("a,b".utf8), "user.xdg.comment": Array("  hi there \n".utf8),
            "user.xdg.origin.url": Array("https://x.org/f".utf8), "user.baloo.rating": Array("10\n".utf8),
        ])
        #expect(a.strings(.userTags) == ["a", "b"])
        #expect(a.string(.comment) == "hi there")
        #expect(a.strings(.whereFroms) == ["https://x.org/f"])
        #expect(a.integer(.rating) == 10)
        #expect(notes.isEmpty)
        for bad in ["11", "-1", "4.5", "five"] {
            let (b, n) = ExtendedAttributeMetadata.attributes(from: ["user.baloo.rating": Array(bad.utf8)])
            #expect(b[.rating] == nil && n.count == 1, "\(bad)")
        }
        let (empty, none) = ExtendedAttributeMetadata.attributes(from: ["user.xdg.tags": Array(" , ".utf8), "user.xdg.comment": []])
        #expect(empty.isEmpty && none.isEmpty)
    }
}
