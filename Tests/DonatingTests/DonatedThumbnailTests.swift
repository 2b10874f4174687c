import Attributes
import Donating
import Foundation
import Testing

/// Issue 27: Core Spotlight's `thumbnailData`, donated as base64 in the item's attributes.
@Suite("Donations: thumbnailData")
struct DonatedThumbnailTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("rest of a picture".utf8)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("rest".utf8)

    func item(_ thumbnail: String) -> String {
        "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"Budget\", \"thumbnailData\": \(thumbnail)}}"
    }

    @Test("a PNG or a JPEG in base64 is taken as the item's picture, apart from its attributes")
    func taken() throws {
        for picture in [Self.png, Self.jpeg] {
            let items = try DonationReader.read(Array(item("\"\(Data(picture).base64EncodedString())\"").utf8), domain: "notes")
            #expect(items[0].thumbnailData == picture)
            #expect(items[0].attributes.title == "Budget")
            #expect(items[0].attributes[AttributeKey("thumbnailData")] == nil)
        }
        let none = try DonationReader.read(Array(item("null").utf8), domain: "notes")
        #expect(none[0].thumbnailData == nil)
    }

    @Test("bad base64, another format, or too large: the item is refused with the reason")
    func refused() {
        let big = [UInt8](Self.png) + [UInt8](repeating: 7, count: DonationReader.maximumThumbnailBytes)
        let cases: [(String, String)] = [
            ("\"not base64 at all!\"", "thumbnailData is not base64"),
            ("\"\(Data(Array("GIF89a....".utf8)).base64EncodedString())\"", "neither a PNG nor a JPEG"),
            ("42", "thumbnailData must be a string"),
            ("\"\(Data(Self.png).base64EncodedString())*\"", "thumbnailData is not base64"),
            ("\"\(Data(big).base64EncodedString())\"", "thumbnailData holds more than 1 MiB"),
        ]
        for (value, message) in cases {
            do {
                _ = try DonationReader.read(Array(item(value).utf8), domain: "notes")
                Issue.record("accepted \(value.prefix(40))")
            } catch {
                #expect(error.description.contains("line 1: " + message) || error.description.contains(message),
                        "\(error.description)")
            }
        }
    }
}
