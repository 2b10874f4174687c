import Attributes
import Foundation
import Testing

@Suite("AttributeSet")
struct AttributeSetTests {
    @Test("JSON round trip keeps every value type, dates included")
    func roundTrip() throws {
        var set = AttributeSet()
        set.title = "Annual report"
        set[.fileSize] = .integer(4096)
        set[.authors] = .strings(["Ada Lovelace", "Charles Babbage"])
        set[.contentModificationDate] = .date(Date(timeIntervalSince1970: 1_767_225_600.25))
        set[.textTruncated] = .bool(true)
        set[AttributeKey("pixelWidth")] = .integer(2048)
        set[AttributeKey("customText")] = .string("x")
        let data = try JSONEncoder().encode(set)
        let back = try JSONDecoder().decode(AttributeSet.self, from: data)
        #expect(back == set)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"contentModificationDate\":\"2026-01-01T00:00:00.250Z\""))
    }

    @Test("issue 22, F15: a value not of its attribute's type (a date that is not ISO 8601 or outside 0001-9999, a REAL count) is kept as the JSON gave it, and the others decode")
    func badDate() throws {
        let json = Data(#"{"contentModificationDate": "yesterday", "contentCreationDate": "-0249-12-05T08:53:20.000Z", "useCount": 9.2233720368547758e18, "title": "kept", "lastUsedDate": "2026-01-01T00:00:00Z"}"#.utf8)
        let set = try JSONDecoder().decode(AttributeSet.self, from: json)
        #expect(set[.contentModificationDate] == .string("yesterday"))
        #expect(set[.contentCreationDate] == .string("-0249-12-05T08:53:20.000Z"))
        #expect(set[.useCount] == .double(9.2233720368547758e18))
        #expect(set.title == "kept")
        #expect(set.date(.lastUsedDate) == Date(timeIntervalSince1970: 1_767_225_600))
    }

    @Test("merge replaces and adds")
    func merge() {
        var a = AttributeSet([.title: .string("old"), .kind: .string("Folder")])
        a.merge(AttributeSet([.title: .string("new"), .fileSize: .integer(1)]))
        #expect(a.title == "new")
        #expect(a.kind == "Folder")
        #expect(a.fileSize == 1)
    }
}

@Suite("ContentType")
struct ContentTypeTests {
    @Test("a JPEG conforms to image, data and item")
    func jpegTree() {
        let tree = ContentType.jpeg.tree
        #expect(tree.first == .jpeg)
        #expect(tree.contains(.image))
        #expect(tree.contains(.data))
        #expect(tree.contains(.item))
        #expect(!tree.contains(.text))
    }

    @Test("XHTML conforms to both HTML and XML, each once")
    func multipleParents() {
        let tree = ContentType.xhtml.tree
        #expect(tree.contains(.html) && tree.contains(.xml) && tree.contains(.text))
        #expect(Set(tree).count == tree.count)
    }

    @Test("every well-known parent is itself well known, and the table has no cycles")
    func tableIsClosed() {
        for t in WellKnownType.all {
            for p in t.parents { #expect(WellKnownType.byIdentifier[p] != nil, "\(t.identifier) -> \(p)") }
            #expect(t.identifier.tree.count < 20)
        }
    }

    @Test("MIME types and extensions map to UTIs")
    func lookups() {
        #expect(WellKnownType.byMIMEType["application/pdf"]?.identifier == .pdf)
        #expect(WellKnownType.byExtension["jpeg"]?.identifier == .jpeg)
        #expect(ContentType.dynamic(mimeType: "application/x-foo").rawValue == "org.freedesktop.mime.application.x-foo")
    }
}

@Suite("ByteString")
struct ByteStringTests {
    @Test("invalid UTF-8 is escaped as \\xNN, valid text kept")
    func escapesInvalid() {
        #expect(ByteString.escaped(Array("café".utf8)) == "café")
        #expect(ByteString.escaped([0x61, 0xFF, 0x62]) == "a\\xFFb")
        #expect(ByteString.escaped([0xC3]) == "\\xC3")
        #expect(!ByteString.isValidUTF8([0x66, 0xFE]))
    }

    @Test("control characters are escaped only when asked")
    func controls() {
        let name: [UInt8] = Array("a\nb\u{1B}[2J".utf8)
        #expect(ByteString.escaped(name) == "a\nb\u{1B}[2J")
        #expect(ByteString.escaped(name, escapeControls: true) == "a\\nb\\x1B[2J")
    }

    @Test("identifiers compare bytes: NFC and NFD names are two items")
    func nfcNfd() {
        let nfc = ItemIdentifier("/x/caf\u{E9}")
        let nfd = ItemIdentifier("/x/cafe\u{301}")
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd]).count == 2)
        #expect(nfc.nameBytes == Array("caf\u{E9}".utf8))
    }
}
