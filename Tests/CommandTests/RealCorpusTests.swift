import Foundation
import SystemPackage
import TestSupport
import Testing

/// Every file of the shared real-document corpus goes through `fsindex index`, and words that
/// can be read in its text files and HTML pages are found with `fsfind`.
@Suite("The real-document corpus", .blocking, .realCorpus)
struct RealCorpusTests {
    /// `fsindex index` of the whole corpus, OCR included. Its limit catches a hang, not a slow
    /// machine: on two cores busy with other tests and two busy loops it took more than 300 s.
    static func index(_ f: CLIFixture, _ options: String...) throws -> CommandResult {
        try run("fsindex", ["index"] + options + [RealCorpus.root.string], env: ["FSINDEX_INDEX_DIR": f.index], timeout: 1800)
    }

    @Test("all of it is indexed without a crash or a hang, one item per entry on disk")
    func indexesEverything() throws {
        let f = try CLIFixture()
        let r = try Self.index(f, "--json")
        // 0, or 2 when a broken file was reported; never a signal.
        #expect(r.status == 0 || r.status == 2, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let onDisk = try entriesOnDisk(RealCorpus.root.string)
        #expect(report["seen"] as? Int == onDisk)
        let status = try #require(try JSONSerialization.jsonObject(with: try f.fsindex("status", "--json").stdout) as? [String: Any])
        #expect((status["items"] as? Int ?? 0) - (status["itemsInsideFiles"] as? Int ?? 0) == onDisk)
        #expect(status["itemsInsideFiles"] as? Int ?? 0 >= 3)   // complex.mbox holds three messages
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

    @Test("the broken, truncated and encrypted files end with a recorded reason; the rest has its metadata")
    func brokenFilesRecorded() throws {
        let f = try CLIFixture()
        let r = try Self.index(f)
        #expect(r.status == 2, "\(r.stderr)")
        var reasons: [String: String] = [:]
        for line in try f.fsindex("failures").lines {
            let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
            reasons[String(fields[0].dropFirst(RealCorpus.root.string.count + 1))] = fields.count > 1 ? fields[1] : ""
        }
        let expected: [String: String] = [
            "archives/testZIP_corrupted_oom.zip": "archive: ",
            "audio/testMP3truncated.mp3": "truncated",
            "office/testWORD_protected_passtika.docx": "encrypted; needs a password",
            "office/testWORD_truncated.docx": "truncated",
            "opendocument/testODTEncrypted.odt": "encrypted; needs a password",
            "pdf/testPDF_no_extract_no_accessibility_owner_user.pdf": "encrypted; needs a password",
        ]
        #expect(Set(reasons.keys) == Set(expected.keys), "\(reasons)")
        for (file, words) in expected { #expect(reasons[file]?.contains(words) == true, "\(file): \(reasons[file] ?? "-")") }

        // The same metadata through the sandboxed workers as the extractor tests see in-process.
        func show(_ file: String) throws -> [String: Any] {
            let out = try f.fsindex("show", "--json", RealCorpus.file(file).string)
            return try #require(try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any])
        }
        #expect(try show("pdf/testPDF_protected.pdf")["encrypted"] as? Bool == true)
        #expect(try show("pdf/testPDF.pdf")["pageCount"] as? Int == 1)
        #expect(try show("audio/testFLAC.flac")["album"] as? String == "Test Album")
        #expect(try show("email/complex.mbox")["messageCount"] as? Int == 3)
        let geo = try show("images/testJPEG_GEO.jpg")
        #expect(geo["latitude"] != nil && geo["longitude"] != nil)
        #expect(try f.fsfind("--name", "testWORD.docx").status == 0)
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
