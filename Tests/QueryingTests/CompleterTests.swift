import Attributes
import Foundation
import Indexing
import Querying
import TestSupport
import Testing

@Suite("Completions of the last word (issue 27)")
struct CompleterTests {
    /// Reports and repairs in text, a PDF, names with their own words, a donated domain.
    static func fixture() throws -> QueryFixture {
        var items = [
            doc("/r/a.txt", text: "the annual report on budgets"),
            doc("/r/b.txt", text: "annual report again, and a repair"),
            doc("/r/c.txt", text: "report three"),
            doc("/r/d.txt", text: "reptiles are not reports"),
            doc("/r/Résumé.txt", text: "nothing"),
            doc("/r/paper.pdf", text: "a report in a pdf", type: .pdf),
            doc("/r/picture.png", type: .png),
        ]
        items.append(makeItem("notes:1", domain: "notes", title: "A note", text: "report of a donated note"))
        return try QueryFixture(items)
    }

    func texts(_ text: String, limit: Int = 10, _ f: QueryFixture) throws -> [String] {
        try Completer.completions(for: text, limit: limit, in: f.store).map(\.text)
    }

    @Test("words of the vocabulary, most items first, the text before the last word kept")
    func words() throws {
        let f = try Self.fixture()
        let c = try Completer.completions(for: "annual rep", in: f.store)
        // report: 5 items (four files and the donated note), then repair, reports, reptiles
        // with one each (ties alphabetically).
        #expect(c.map(\.text) == ["annual report", "annual repair", "annual reports", "annual reptiles"], "\(c)")
        #expect(c.first?.count == 5 && c.first?.source == .word)
        #expect(try texts("annual rep", limit: 2, f) == ["annual report", "annual repair"])
        // Case and accents as the tokenizer folds them; an operator stays.
        #expect(try texts("REP", limit: 1, f) == ["report"])
        #expect(try texts("-résu", f) == ["-resume"])
        // Nothing to complete after a space, or inside a phrase.
        #expect(try texts("annual ", f).isEmpty)
        #expect(try texts("\"annual rep", f).isEmpty)
    }

    @Test("names: name: completes the words of names, counted there")
    func names() throws {
        let f = try Self.fixture()
        let c = try Completer.completions(for: "name:pa", in: f.store)
        #expect(c.map(\.text) == ["name:paper"], "\(c)")
        #expect(c.first?.count == 1 && c.first?.source == .value)
        // `pdf` is a word of the text and of a name: in names, the one file.
        #expect(try Completer.completions(for: "name:pd", in: f.store).first?.count == 1)
        #expect(try Completer.completions(for: "pd", in: f.store).first?.text == "pdf")
    }

    @Test("kind:pd gives kind:pdf with its count; kind: values rank by count; lists complete their last element")
    func kinds() throws {
        let f = try Self.fixture()
        let pdf = try Completer.completions(for: "kind:pd", in: f.store)
        #expect(pdf == [Completion(text: "kind:pdf", count: 1, source: .value)])
        // image and images both name public.image: one item each; picture/photo too.
        let i = try Completer.completions(for: "x kind:i", in: f.store)
        #expect(i.map(\.text) == ["x kind:image", "x kind:images"], "\(i)")
        #expect(i.allSatisfy { $0.count == 1 })
        #expect(try texts("kind:pdf,te", f) == ["kind:pdf,text"])
        let text = try Completer.completions(for: "kind:te", in: f.store)
        #expect(text.first?.count == 6, "the five text files and the donated note: \(text)")
        #expect(try texts("domain:no", f) == ["domain:notes"])
        #expect(try texts("encrypted:y", f) == ["encrypted:yes"])
    }

    @Test("field names: kin gives kind:, Spotlight's names from kMDItem, fields before words")
    func fields() throws {
        let f = try Self.fixture()
        let kin = try Completer.completions(for: "kin", in: f.store)
        #expect(kin.first == Completion(text: "kind:", count: nil, source: .field), "\(kin)")
        let spotlight = try texts("kMDItemCont", f)
        #expect(Set(spotlight) == ["kMDItemContentType", "kMDItemContentTypeTree", "kMDItemContentModificationDate", "kMDItemContentCreationDate"],
                "\(spotlight)")
        #expect(try texts("ti", f) == ["title:"])
        // Fields and words together: at most three fields, shortest first, then the words.
        let re = try Completer.completions(for: "re", in: f.store)
        #expect(re.prefix(3).map(\.text) == ["recipients:", "recordingDate:", "recipientNames:"], "\(re)")
        #expect(re.count > 3 && re[3] == Completion(text: "report", count: 5, source: .word), "\(re)")
        #expect(try texts("startD", f) == ["startDate:"])
    }

    @Test("ranked by how many items the word finds: a word in more items comes first, whatever the alphabet")
    func ranking() throws {
        let f = try QueryFixture([
            doc("/r/1.txt", text: "zebra alpha"), doc("/r/2.txt", text: "zebra"), doc("/r/3.txt", text: "zebu zebra"),
        ])
        let c = try Completer.completions(for: "ze", in: f.store)
        #expect(c.map(\.text) == ["zebra", "zebu"] && c.map(\.count) == [3, 1], "\(c)")
    }
}

/// What a completion costs on a large index: set `FSINDEX_COMPLETION_BENCH` to a writable copy of
/// one (it is migrated when opened), e.g. the bench corpus's 111,000 files. Prints the median
/// time per prefix; fails past 20 ms, a keystroke's budget even in a debug build.
@Suite("Completions on a large index", .enabled(if: ProcessInfo.processInfo.environment["FSINDEX_COMPLETION_BENCH"] != nil,
                                                 "set FSINDEX_COMPLETION_BENCH to a writable copy of a large index"))
struct CompleterBench {
    @Test("per keystroke: words, kind: values, names, fields")
    func timing() throws {
        let folder = try #require(ProcessInfo.processInfo.environment["FSINDEX_COMPLETION_BENCH"])
        let store = try IndexStore(location: IndexLocation(directory: .init(folder)))
        for text in ["a", "re", "rep", "repo", "annual rep", "con", "kind:pd", "kind:", "name:rea", "kin", "kMDItemCont", "x86", "zzzq"] {
            var times: [Double] = []
            var last: [Completion] = []
            for _ in 0..<7 {
                let start = ContinuousClock.now
                last = try Completer.completions(for: text, limit: 10, in: store)
                let d = ContinuousClock.now - start
                times.append(Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000)
            }
            let median = times.sorted()[times.count / 2]
            print("completion bench: \(text.debugDescription): \(String(format: "%.2f", median)) ms: " + last.prefix(4).map { "\($0.text) (\($0.count.map(String.init) ?? "-"))" }.joined(separator: ", "))
            #expect(median < 20, "\(text): \(median) ms")
        }
        func time(_ label: String, _ body: () throws -> Int) rethrows {
            let start = ContinuousClock.now
            let n = try body()
            print("suggestion bench: \(label): \(n) in \(ContinuousClock.now - start)")
        }
        let now = Date()
        try time("used (most)") { try store.usedItems(.mostUsed, limit: 64, now: now).count }
        try time("used (last)") { try store.usedItems(.lastUsed, limit: 64, now: now).count }
        try time("use times") { try store.useTimes(since: now.addingTimeInterval(-90 * 86_400)).count }
        try time("events") { try store.calendarEvents(limit: 2048, now: now).count }
        try time("notes") { try store.recentNotes(since: now.addingTimeInterval(-7 * 86_400), limit: 64, now: now).count }
        try time("suggestions") { try Suggester().suggestions(limit: 10, in: store).count }
        try time("suggestions again") { try Suggester().suggestions(limit: 10, in: store).count }
    }
}
