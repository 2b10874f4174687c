import Attributes
import Configuration
import Controlling
import Desktop
import Foundation
import Indexing
import IndexTestSupport
import Testing
import TestSupport

/// The searches behind the search boxes, on an index of real files the test writes.
@Suite struct DesktopSearchTests {
    /// Files on disk (the query pipeline drops results whose file is gone) and their items.
    static func makeIndex(_ tree: TemporaryTree, files: [(String, String)], maxResults: Int = 20) throws -> DesktopSearch {
        let store = try tree.makeIndexStore()
        var items: [SearchableItem] = []
        for (name, text) in files {
            let path = try tree.create("docs/" + name, contents: text)
            items.append(makeItem(path.string, domain: "docs", text: text))
        }
        try store.indexSearchableItems(items)
        var settings = Settings()
        settings.desktop.maxResults = maxResults
        return DesktopSearch(location: IndexLocation(directory: tree.path("index")), settings: settings)
    }

    @Test func termsAreANDedAndTheLastIsAPrefix() throws {
        let tree = try TemporaryTree()
        let search = try Self.makeIndex(tree, files: [
            ("budget.txt", "the annual budget review for the lighthouse"),
            ("minutes.txt", "minutes of the annual meeting"),
            ("other.txt", "a budget without the year word"),
        ])
        let both = try search.search(["annual", "budg"])
        #expect(both.count == 1)
        #expect(both.first?.hasSuffix("/docs/budget.txt") == true)
        #expect(try search.search(["annual"]).count == 2)
        #expect(try search.search(["nothingmatchesthis"]).isEmpty)
        // Fewer than three letters: no search (a two-letter prefix matches most of an index).
        #expect(try search.search(["an"]).isEmpty)
        #expect(try search.search(["a", "b"]).isEmpty)
        #expect(try search.search(["ann"]).count == 2)
    }

    @Test func metasCarryNameFolderAndType() throws {
        let tree = try TemporaryTree()
        let search = try Self.makeIndex(tree, files: [("lighthouse.txt", "keeper's log: the lamp was lit at dusk")])
        let ids = try search.search(["lamp"])
        let hits = try search.metas(ids)
        let hit = try #require(hits.first)
        #expect(hit.name == "lighthouse.txt")
        #expect(hit.folder == tree.path("docs").string)
        #expect(hit.description == tree.path("docs").string)
        #expect(hit.summary == nil)
        #expect(search.iconNames(for: hit).first == "text-plain")
    }

    @Test func metasOfIdsFromAnotherProcessAreReadFromTheIndex() throws {
        let tree = try TemporaryTree()
        let first = try Self.makeIndex(tree, files: [("a.txt", "quartz crystal")])
        let ids = try first.search(["quartz"])
        let fresh = DesktopSearch(location: first.location, settings: first.settings)
        let hits = try fresh.metas(ids + ["/no/such/file"])
        #expect(hits.map(\.id) == ids)
        #expect(hits.first?.name == "a.txt")
    }

    @Test func typingMoreNarrowsThePreviousAnswerWhenItWasWhole() throws {
        let tree = try TemporaryTree()
        let search = try Self.makeIndex(tree, files: [
            ("one.txt", "report on granite"), ("two.txt", "reporter's granite notes"), ("three.txt", "repair of marble"),
        ])
        let first = try search.search(["rep"])
        #expect(first.count == 3)
        #expect(!search.lastSearchNarrowed)
        let second = try search.subsearch(previous: first, terms: ["repo"])
        #expect(search.lastSearchNarrowed)
        #expect(Set(second) == Set(first.filter { !$0.hasSuffix("three.txt") }))
        // "report" is a whole word now (fsfind's short form: only the last word is a prefix).
        let third = try search.subsearch(previous: second, terms: ["report", "granite"])
        #expect(search.lastSearchNarrowed)
        #expect(third.count == 1)
        #expect(third.first?.hasSuffix("/one.txt") == true)
        // Not a refinement (a different word): a whole new search.
        let other = try search.subsearch(previous: third, terms: ["marble"])
        #expect(!search.lastSearchNarrowed)
        #expect(other.count == 1)
    }

    @Test func aCappedAnswerIsNotNarrowed() throws {
        let tree = try TemporaryTree()
        let files = (0..<5).map { ("f\($0).txt", "common word \($0 == 4 ? "commonest" : "")") }
        let search = try Self.makeIndex(tree, files: files, maxResults: 3)
        let first = try search.search(["common"])
        #expect(first.count == 3)
        // f4 may be outside the first three: only a full search can find it.
        let second = try search.subsearch(previous: first, terms: ["commone"])
        #expect(!search.lastSearchNarrowed)
        #expect(second.count == 1)
    }

    @Test func halfTypedSyntaxIsSearchedAsWords() throws {
        let tree = try TemporaryTree()
        let search = try Self.makeIndex(tree, files: [("k.txt", "kind words")])
        #expect(try search.search(["kind:"]).count <= 1)
        #expect(try search.search(["\"kind"]).count == 1)
    }

    @Test func narrowsOnlyRefinements() {
        #expect(DesktopSearch.narrowsForTesting(from: ["rep"], to: ["repo"]))
        #expect(DesktopSearch.narrowsForTesting(from: ["annual", "rep"], to: ["annual", "report", "x"]))
        #expect(!DesktopSearch.narrowsForTesting(from: ["annual", "rep"], to: ["annuals", "report"]))
        #expect(!DesktopSearch.narrowsForTesting(from: ["repo"], to: ["rep"]))
        #expect(!DesktopSearch.narrowsForTesting(from: ["kind:pdf"], to: ["kind:pdf", "x"]))
    }
}

@Suite struct DesktopHitTests {
    @Test func descriptionIsThePlaceThenTheSummary() {
        let summary = String(repeating: "The keeper lit the lamp at dusk. ", count: 8)
        let hit = DesktopHit(id: "/d/a.txt", identifier: Array("/d/a.txt".utf8), name: "a.txt", folder: "~/d", summary: summary)
        #expect(hit.description.hasPrefix("~/d — The keeper lit the lamp at dusk."))
        #expect(hit.description.hasSuffix("…"))
        #expect(hit.description.count == "~/d — ".count + 161)
        #expect(DesktopHit(id: "n:1", identifier: Array("n:1".utf8), name: "N", contentURL: "https://n.example/1").description == "https://n.example/1")
        #expect(DesktopHit.display(Array("/home/ada/x".utf8), home: Array("/home/ada".utf8)) == "~/x")
        #expect(DesktopHit.display(Array("/home/adam/x".utf8), home: Array("/home/ada".utf8)) == "/home/adam/x")
    }
}

@Suite struct ResultIDTests {
    @Test func utf8PathsAreTheirOwnIdsOthersAreBase64() {
        #expect(ResultID.encode(Array("/home/ada/report.pdf".utf8)) == "/home/ada/report.pdf")
        let latin1: [UInt8] = Array("/home/ada/caf".utf8) + [0xE9]
        let id = ResultID.encode(latin1)
        #expect(id.hasPrefix("b64:"))
        #expect(ResultID.decode(id) == latin1)
        let control: [UInt8] = Array("/tmp/a".utf8) + [0x0A] + Array("b".utf8)
        #expect(ResultID.decode(ResultID.encode(control)) == control)
        #expect(ResultID.decode("notes:n-42") == Array("notes:n-42".utf8))
        #expect(ResultID.decode("b64:!!") == nil)
    }
}

@Suite struct MIMEIconsTests {
    @Test func specificThenGenericThenMedia() throws {
        let tree = try TemporaryTree()
        _ = try tree.create("share/mime/generic-icons", contents: "application/pdf:x-office-document\nimage/png:image-x-generic\n")
        _ = try tree.create("share/mime/icons", contents: "application/x-special:special-icon\n")
        let icons = MIMEIcons(dataDirectories: [tree.path("share").string])
        #expect(icons.names(for: "application/pdf") == ["application-pdf", "x-office-document", "text-x-generic"])
        #expect(icons.names(for: "application/x-special").first == "special-icon")
        #expect(icons.names(for: "image/png") == ["image-png", "image-x-generic"])
        #expect(icons.names(for: "inode/directory") == ["folder"])
        #expect(icons.names(for: nil) == ["text-x-generic"])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/mime/generic-icons"), "needs shared-mime-info"))
    func theSystemDatabaseNamesGenericIcons() {
        let icons = MIMEIcons(dataDirectories: ["/usr/share"])
        #expect(icons.names(for: "application/vnd.oasis.opendocument.text").contains("x-office-document"))
    }
}
