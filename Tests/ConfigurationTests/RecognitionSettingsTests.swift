@testable import Configuration
import Foundation
import TestSupport
import Testing

/// `[extraction] ocr` and `ocr_languages` (issue 28), and how the tessdata folder and its packs
/// are found.
@Suite("Settings: OCR")
struct RecognitionSettingsTests {
    /// A tessdata folder holding empty packs of these names (the settings only list them).
    func folder(_ packs: [String]) throws -> (TemporaryTree, [String: String]) {
        let tree = try TemporaryTree(prefix: "fsindex-tessdata")
        try tree.createDirectory("tessdata")
        for p in packs { try tree.create("tessdata/\(p).traineddata") }
        return (tree, ["TESSDATA_PREFIX": tree.path("tessdata").string])
    }

    @Test("the defaults: on, every installed pack but osd, English first; the keys are read; bad values name the key")
    func keys() throws {
        let (tree, env) = try folder(["deu", "eng", "osd"])
        defer { withExtendedLifetime(tree) {} }
        let r = try #require(Settings().recognition(environment: env)).get()
        #expect(r.languages == ["eng", "deu"] && r.languageList == "eng+deu")
        var s = Settings()
        try s.apply(toml: "[extraction]\nocr = false\n", file: "c.toml")
        #expect(s.recognition(environment: env) == nil)
        try s.apply(toml: "[extraction]\nocr = true\nocr_languages = \"deu\"\n", file: "c.toml")
        #expect(try s.recognition(environment: env)?.get().languageList == "deu")
        var bad = Settings()
        do {
            try bad.apply(toml: "[extraction]\nocr_languages = \"eng, deu\"\n", file: "c.toml")
            Issue.record("accepted a list with a comma")
        } catch { #expect(error.description.contains("extraction.ocr_languages")) }
    }

    @Test("a configured language that is not installed is a problem naming it and its package; no data at all is another")
    func problems() throws {
        let (tree, env) = try folder(["eng"])
        defer { withExtendedLifetime(tree) {} }
        var s = Settings()
        try s.apply(toml: "[extraction]\nocr_languages = \"eng+fra\"\n", file: "c.toml")
        guard case .failure(let problem)? = s.recognition(environment: env) else { Issue.record("no problem"); return }
        #expect(problem.description.contains("fra") && problem.description.contains("tesseract-ocr-fra")
                && problem.description.contains("installed: eng"), "\(problem)")
        let (emptyTree, empty) = try folder([])
        defer { withExtendedLifetime(emptyTree) {} }
        // The empty folder comes first; Debian's folder may hold packs on this machine.
        let folders = Settings.tessdataFolders(environment: empty)
        #expect(folders.first == empty["TESSDATA_PREFIX"])
        #expect(Settings.installedLanguages(in: empty["TESSDATA_PREFIX"]!) == [])
    }
}
