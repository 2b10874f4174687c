import Foundation
import SystemPackage
import TestSupport
import Testing

/// Every file of the shared real-document corpus goes through `fsindex index`, and words that
/// can be read in its text files and HTML pages are found with `fsfind`.
@Suite("The real-document corpus", .enabled(if: RealCorpus.isAvailable))
struct RealCorpusTests {
    @Test("all of it is indexed without a crash or a hang, one item per entry on disk")
    func indexesEverything() throws {
        let f = try CLIFixture()
        let r = try f.fsindex("index", "--json", RealCorpus.root.string)
        // 0, or 2 when a broken file was reported; never a signal.
        #expect(r.status == 0 || r.status == 2, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let onDisk = try entriesOnDisk(RealCorpus.root.string)
        #expect(report["seen"] as? Int == onDisk)
        let status = try #require(try JSONSerialization.jsonObject(with: try f.fsindex("status", "--json").stdout) as? [String: Any])
        #expect(status["items"] as? Int == onDisk)
        for line in r.stderr.split(separator: "\n") {
            #expect(line.hasPrefix("fsindex: \(RealCorpus.root.string)/"), "unexpected output: \(line)")
        }

        func finds(_ words: [String], _ file: String) throws {
            let hits = try run("fsfind", words, env: ["FSINDEX_INDEX_DIR": f.index]).lines
            #expect(hits.contains(RealCorpus.file(file).string), "\(words) should find \(file); got \(hits)")
        }
        try finds(["paresseux", "Fuchs"], "text-encodings/testTXTNonASCIIUTF8.txt")        // UTF-8
        try finds(["CharsetRecog", "trigger"], "text-encodings/testTXT_win-1252.txt")       // Windows-1252
        try finds(["POQUELIN", "Molière"], "text-encodings/charset_normalizer/sample-french-1.txt")  // Latin-1
        try finds(["indexation", "Txt"], "text-encodings/testTXT.txt")
        try finds(["Indexation", "fichier"], "html/testHTML.html")
        try finds(["tutorials"], "html/testHTML_metadata.html")                              // meta description
        try finds(["sample", "text"], "html/testHTML_charset_utf16le.html")                  // UTF-16 HTML
        try finds(["XHTML", "test", "document"], "html/testXHTML.html")
        try finds(["italic", "struck"], "misc/testMARKDOWN.md")
        try finds(["printf", "Tika"], "code/testC.c")
        try finds(["testPNG"], "images/testPNG.png")                                         // by name
    }

    private func entriesOnDisk(_ root: String) throws -> Int {
        // Everything under the root except hidden entries (the default settings skip them), plus the root.
        guard let e = FileManager.default.enumerator(atPath: root) else { return 0 }
        var n = 1
        while let p = e.nextObject() as? String {
            if (p as NSString).lastPathComponent.hasPrefix(".") {
                e.skipDescendants()
                continue
            }
            n += 1
        }
        return n
    }
}
