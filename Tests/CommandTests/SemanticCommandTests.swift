import Foundation
import TestSupport
import Testing

/// Questions by meaning from the command line (issue 43): `fsindex index` runs the semantic
/// pass where the model is installed, `fsindex status` and `fsfind --explain` say what it did,
/// and say why not where it is not.
@Suite("Questions by meaning through fsindex and fsfind", .blocking)
struct SemanticCommandTests {
    static let question = "how can my program wait for a few seconds"

    @Test("with the model: the pass reads each file, status counts the vectors, --explain says the order blends meaning; without it: status says why", .sentenceModel)
    func withAndWithoutTheModel() throws {
        let f = try CLIFixture()
        _ = try f.tree.create("root/recipe.txt", contents: "Bread recipe. Program the oven, wait for the dough to rise, then bake: a few seconds of steam.\n")
        _ = try f.tree.create("root/timer.txt", contents: "Delay a script by some milliseconds. Stops the program and waits before it goes on.\n")
        _ = try f.tree.create("root/sleep.txt", contents: "Put the current thread to sleep for a duration. It may wait longer when the system is busy.\n")
        let model = try SentenceModelFixture.folder.get()
        let with = ["FSINDEX_INDEX_DIR": f.index, "FSINDEX_MODEL_DIR": model]
        let indexed = try run("fsindex", ["index", f.root], env: with)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        #expect(indexed.out.contains("by meaning: 3 read"), "\(indexed.out)")

        let status = try run("fsindex", ["status", "--json"], env: with)
        let meaning = try #require((try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["meaning"] as? [String: Any])
        #expect(meaning["items"] as? Int == 3 && meaning["pending"] as? Int == 0)
        #expect((meaning["state"] as? String)?.hasPrefix("on, all-MiniLM-L6-v2") == true, "\(meaning)")

        let explained = try run("fsfind-direct", ["--explain", "--", Self.question], env: with)
        #expect(explained.out.contains("reordered by meaning too") && explained.out.contains("3 items have one, 0 wait"), "\(explained.out)")
        #expect(explained.out.contains("(any content word, by how many and by meaning)"), "\(explained.out)")

        // No model where it is looked for: questions rank by words, and status says why.
        let without = ["FSINDEX_INDEX_DIR": f.index, "FSINDEX_MODEL_DIR": f.tree.path("no-model").string,
                       "XDG_DATA_HOME": f.tree.path("data").string]
        let plain = try run("fsindex", ["status"], env: without)
        #expect(plain.out.contains("by meaning: 3 items have a vector, 0 waiting (off: the sentence model (all-MiniLM-L6-v2) is not installed"), "\(plain.out)")
        let words = try run("fsfind-direct", ["--explain", "--", Self.question], env: without)
        #expect(words.out.contains("stage 2 does not rank by meaning: the sentence model (all-MiniLM-L6-v2) is not installed"), "\(words.out)")
    }

    /// `meaning` of `fsindex status --json`: items with a vector, and items waiting.
    static func meaning(_ env: [String: String]) throws -> (items: Int, pending: Int) {
        let status = try run("fsindex", ["status", "--json"], env: env)
        let m = (try? JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["meaning"] as? [String: Any]
        return (m?["items"] as? Int ?? -1, m?["pending"] as? Int ?? -1)
    }

    @Test("fsindexd reads the vectors in the background after its crawl, and a file dropped in later", .sentenceModel)
    func daemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            // The model where fsindexd looks: the user's data folder (the fixture's).
            try FileManager.default.createDirectory(atPath: d.tree.path("data/fsindex/models").string, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: d.tree.path("data/fsindex/models/all-MiniLM-L6-v2").string,
                                                       withDestinationPath: SentenceModelFixture.folder.get())
            _ = try d.tree.create("root/timer.txt", contents: "Delay a script by some milliseconds. Stops the program and waits before it goes on.\n")
            try d.start()
            try d.waitFor("the first file's vector", seconds: 120) { try Self.meaning(d.env) == (1, 0) }
            _ = try d.tree.create("made.txt", contents: "Put the current thread to sleep for a duration.\n")
            #expect(rename(d.tree.path("made.txt").string, d.root + "/sleep.txt") == 0)
            try d.waitFor("the new file's vector", seconds: 120) { try Self.meaning(d.env) == (2, 0) }
            #expect(d.stop() == 0)
        }
    }
}
