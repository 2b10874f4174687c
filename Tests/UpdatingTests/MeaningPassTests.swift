import Attributes
import Embedding
import Foundation
import Indexing
import IndexTestSupport
import TestSupport
import Testing
import Updating

/// Issue 43's semantic pass: what it reads of an item, and what it stores.
@Suite("The semantic pass")
struct MeaningPassTests {
    @Test("an item is read as its name in words, its title and the start of its other text; one with only a name is not read")
    func text() {
        let item = PendingMeaning(rowID: 1, name: "fn.read_to_string.html", title: "read_to_string in std::fs",
                                  other: "Reads the entire contents of a file into a string." + String(repeating: " more", count: 200))
        let text = MeaningPass.text(of: item)
        #expect(text?.hasPrefix("fn read to string html. read_to_string in std::fs. Reads the entire contents of a file into a string.") == true)
        #expect((text?.count ?? 0) < 500, "the other text is cut at 400 characters")
        #expect(MeaningPass.text(of: PendingMeaning(rowID: 2, name: "data.csv", title: " ", other: "")) == nil)
        // A note too short for a summary is read by its text.
        #expect(MeaningPass.text(of: PendingMeaning(rowID: 3, name: "todo.txt", title: "", other: "", passage: "Call the plumber about the leak."))
                == "todo txt. Call the plumber about the leak.")
    }

    @Test("the pass stores a vector for each item with words to read, an empty one for the rest, batch by batch, and then finds nothing to do", .sentenceModel)
    func storesVectors() throws {
        let tree = try TemporaryTree(prefix: "fsindex-meaning")
        let store = try tree.makeIndexStore()
        var items = (1...5).map { makeItem("/d/page\($0).html", domain: "/d", title: "Page \($0) about rivers", text: "text") }
        items.append(makeItem("/d/numbers.csv", domain: "/d", text: nil))
        try store.indexSearchableItems(items)
        let pass = MeaningPass(store: store, encoder: try SentenceEncoder(folder: SentenceModelFixture.folder.get()))
        let first = try pass.runBatch(limit: 4)
        #expect(first.examined == 4 && first.mayHaveMore)
        let report = try pass.runAll(batchSize: 4)
        #expect(report.examined == 2 && report.embedded == 1, "the batch left: \(report)")
        #expect(try store.pendingMeaningCount() == 0)
        let status = try store.status()
        #expect(status.meanings == 5 && status.meaningsPending == 0)
        #expect(try pass.runAll().examined == 0)
    }
}
