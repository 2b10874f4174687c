import Foundation
import Testing
import TestSupport

/// Issue 11 through the real worker process, as `fsindex extract --json` shows it: deep
/// documents keep their first text and say what they lost; control characters are not a TGA
/// image, a real TGA header still is.
@Suite("Extraction honesty through the worker", .blocking)
struct ExtractionHonestyCLITests {
    /// The attributes `fsindex extract --json` prints for one file of the fixture's root; it
    /// exits 2 when the file had a problem (`problem`), else 0.
    static func attributes(_ f: CLIFixture, _ name: String, problem: Bool = false) throws -> [String: Any] {
        let r = try f.fsindex("extract", "--json", f.root + "/" + name)
        #expect(r.status == (problem ? 2 : 0), "\(name): \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], "\(r.out)")
        return try #require(json["attributes"] as? [String: Any])
    }

    @Test("issue 11: XML and HTML nested 200,000 deep and RTF nested 100,000 deep: partial text and an extractionError")
    func deepDocuments() throws {
        let f = try CLIFixture()
        let depth = 200_000
        let levels = (0..<depth).map { "<b>level\($0)\n" }.joined()
        let closes = String(repeating: "</b>", count: depth)
        try f.tree.create("root/deep.xml", contents: "<?xml version=\"1.0\"?>\n<doc>top " + levels + "bottom" + closes + " after</doc>\n")
        try f.tree.create("root/deep.html", contents: "<html><body><p>top " + levels + "bottom" + closes + " after</p></body></html>\n")
        try f.tree.create("root/deep.rtf", contents: "{\\rtf1 start " + String(repeating: "{", count: 100_000) + "deep"
                          + String(repeating: "}", count: 100_000) + " end}")
        for (name, extractor) in [("deep.xml", "xml"), ("deep.html", "html")] {
            let a = try Self.attributes(f, name, problem: true)
            let text = a["textContent"] as? String ?? ""
            #expect(text.hasPrefix("top level0 level1") && text.contains("level200"), "\(name): \(text.prefix(80))")
            #expect(!text.contains("bottom"))
            let error = a["extractionError"] as? String ?? ""
            #expect(error.hasPrefix("\(extractor): the document nests elements more than 256 deep"), "\(name): \(error)")
            #expect(a["textTruncated"] as? Bool == true)
        }
        let rtf = try Self.attributes(f, "deep.rtf", problem: true)
        #expect(rtf["textContent"] as? String == "start end")
        #expect((rtf["extractionError"] as? String)?.contains("nests groups 100001 deep") == true, "\(rtf)")
    }

    @Test("issue 11: control characters are text or data, never image/x-tga; a real TGA stays one")
    func tgaTyping() throws {
        let f = try CLIFixture()
        try f.tree.create("root/noise", bytes: [UInt8](repeating: 1, count: 300) + [0x0A])
        try f.tree.create("root/noise.txt", bytes: [UInt8](repeating: 1, count: 300) + [0x0A])
        // True colour, 2 × 2, 24 bits, and its 12 bytes of pixels; no name to help.
        let tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0x20] + [UInt8](repeating: 0x7F, count: 12)
        try f.tree.create("root/picture", bytes: tga)
        #expect(try Self.attributes(f, "noise")["mimeType"] as? String == "application/octet-stream")
        #expect(try Self.attributes(f, "noise.txt")["mimeType"] as? String == "text/plain")
        #expect(try Self.attributes(f, "picture")["mimeType"] as? String == "image/x-tga")
    }
}
