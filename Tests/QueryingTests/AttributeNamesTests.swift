import Attributes
import Testing
@testable import Querying

@Suite("Attribute names in queries")
struct AttributeNamesTests {
    @Test("every kMDItem alias names an attribute we store, and resolves whatever its case")
    func aliases() throws {
        for (name, key) in AttributeNames.spotlight {
            #expect(AttributeKey.types[key] != nil, "\(name) → \(key) is not a known attribute")
            #expect(try AttributeNames.resolve(name) == key)
            #expect(try AttributeNames.resolve(name.lowercased()) == key)
        }
        #expect(try AttributeNames.resolve("kMDItemFSName") == .name)
        #expect(try AttributeNames.resolve("pixelwidth") == .pixelWidth)
        #expect(try AttributeNames.resolve("authorEmailAddresses") == .authorEmailAddresses)
    }

    @Test("an unknown attribute suggests the closest names")
    func suggestions() {
        #expect(throws: UnknownAttribute(name: "kMDItemPixelWidht", suggestions: ["kMDItemPixelWidth"])) {
            try AttributeNames.resolve("kMDItemPixelWidht")
        }
        do { _ = try AttributeNames.resolve("titel"); Issue.record("should fail") } catch {
            #expect(error.suggestions.first == "title", "\(error)")
            #expect(error.description.hasPrefix("unknown attribute \"titel\"; did you mean title"))
        }
        do { _ = try AttributeNames.resolve("zzzzzzzzzz"); Issue.record("should fail") } catch {
            #expect(error.suggestions.isEmpty)
            #expect(error.description == "unknown attribute \"zzzzzzzzzz\"")
        }
    }
}
