import Attributes
import Embedding
import Foundation
import Indexing
import Querying
import Updating
import TestSupport
import Testing

/// Issue 43: questions in plain words. The query as typed first; then its content words with
/// their other forms in the index; then any of them, the files with most of them first.
@Suite("Questions in plain words")
struct QuestionTests {
    func spec(_ text: String, limit: Int? = 10, questions: Bool = true) throws -> QuerySpec {
        var request = QueryRequest(text: text)
        request.questions = questions
        var spec = try request.makeSpec()
        spec.limit = limit
        return spec
    }

    func paths(_ f: QueryFixture, _ text: String, limit: Int? = 10, questions: Bool = true) throws -> [String] {
        try f.engine.run(spec(text, limit: limit, questions: questions)).map(\.identifier.description)
    }

    @Test("Snowball stems English words, and says which languages it has")
    func stemmer() throws {
        let en = try #require(Stemmer(language: "en"))
        #expect(en.stem("running") == "run")
        #expect(en.stem("libraries") == en.stem("library"))
        #expect(en.stem("seconds") == en.stem("second"))
        #expect(en.stem("") == "")
        let de = try #require(Stemmer(language: "german"))
        #expect(de.stem("häuser") == de.stem("haus") || de.stem("häuser") == "haus")
        #expect(Stemmer(language: "klingon") == nil)
        #expect(Stemmer.languages.contains("english"))
    }

    @Test("a word's forms are the index's words with its stem: study finds studies and studied, not student or studio")
    func inflections() {
        let vocabulary = ["stud", "student", "students", "studied", "studies", "studio", "study", "studying", "stuff"]
        let forms = Inflections(languages: ["en"]).forms(of: "studies") { low, high, limit in
            Array(vocabulary.filter { $0 >= low && $0 < high }.prefix(limit))
        }
        #expect(Set(forms) == ["studied", "study", "studying"], "\(forms)")
        // Short words and words with digits get none: their ranges are most of the vocabulary.
        #expect(Inflections(languages: ["en"]).forms(of: "run") { _, _, _ in ["runs"] } == [])
        #expect(Inflections(languages: ["en"]).forms(of: "x86abc") { _, _, _ in ["x86abcs"] } == [])
    }

    @Test("LANG adds the user's language to English; a language without a stemmer is left out")
    func languages() {
        #expect(Inflections.defaultLanguages(environment: ["LANG": "de_DE.UTF-8"]) == ["en", "de"])
        #expect(Inflections.defaultLanguages(environment: ["LANG": "C.UTF-8"]) == ["en"])
        #expect(Inflections.defaultLanguages(environment: ["LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE"]) == ["en", "fr"])
        #expect(Inflections(languages: ["en", "xx"]).stemmers.count == 1)
    }

    @Test("a question is three words or more with two content words, or words ending in ?; names and identifiers are not")
    func isQuestion() {
        #expect(QuestionRouter.isQuestion(["pause", "the", "program", "for", "a", "few", "seconds"]))
        #expect(QuestionRouter.isQuestion(["free", "disk", "space"]))
        #expect(QuestionRouter.isQuestion(["disk", "space?"]))
        #expect(!QuestionRouter.isQuestion(["budget", "report"]))
        #expect(!QuestionRouter.isQuestion(["find", "the", "docs"]))
        #expect(QuestionRouter.content(["How", "do", "I", "find", "the", "docs", "for", "sorting", "vectors?"]) == ["sorting", "vectors"])
        #expect(QuestionRouter.content(["to", "be", "or", "not", "to", "be"]) == ["to", "be", "or", "not"])
    }

    @Test("the short form marks plain words only: a field, a quote, an exclusion, OR or a wildcard is no question")
    func plainWords() throws {
        #expect(try ShortQueryParser.parse("pause the program for a few seconds").plainWords?.count == 7)
        for query in ["pause the program kind:pdf", "\"pause the program\" now", "pause the -program", "pause OR stop program", "pause the prog*"] {
            #expect(try ShortQueryParser.parse(query).plainWords == nil, "\(query)")
        }
        #expect(try spec("pause the program for a few seconds").question != nil)
        #expect(try spec("pause the program for a few seconds", questions: false).question == nil)
        #expect(try spec("budget report").question == nil)
    }

    static let corpus: [SearchableItem] = [
        doc("/r/sleep.html", title: "sleep in std::thread", text: "Puts the current thread to sleep for at least the specified amount of time. The thread may sleep longer than the duration specified. Pauses execution."),
        doc("/r/instant.html", title: "Instant in std::time", text: "A measurement of a monotonically nondecreasing clock. Useful for measuring elapsed time, how long code takes to run."),
        doc("/r/df.txt", title: "df - report file system space usage", text: "df displays the amount of space available on the file system containing each file name. Disks and free blocks."),
        doc("/r/howto.txt", title: "How to pause the program", text: "To pause the program for a few seconds, press the pause key."),
        doc("/r/noise.txt", text: "program program program program few few few"),
    ]

    @Test("a question typed as it stands in files finds those files first, as the words without the router do")
    func inOrderFirst() throws {
        let f = try QueryFixture(Self.corpus + (0..<12).map { doc("/r/pause\($0).txt", text: "pause the program for a few seconds, case \($0)") })
        let with = try paths(f, "pause the program for a few seconds", limit: 20)
        let without = try paths(f, "pause the program for a few seconds", limit: 20, questions: false)
        #expect(without.count == 13)
        #expect(Set(with.prefix(13)) == Set(without), "\(with)")
        let stages = try f.engine.run(spec("pause the program for a few seconds", limit: 20)).map(\.stage)
        #expect(stages.prefix(13).allSatisfy { $0 == .inOrder } && stages.dropFirst(13).allSatisfy { $0 == .anyWord }, "\(stages)")
    }

    @Test("a page the words in order leave short is filled by any content word with its forms, the files with most of them first")
    func stages() throws {
        let f = try QueryFixture(Self.corpus)
        // In order: the one file with the phrase, first.
        let inOrder = try f.engine.run(spec("pause the program for a few", limit: 10))
        #expect(inOrder.first?.identifier.description == "/r/howto.txt", "\(inOrder.map(\.identifier.description))")
        #expect(inOrder.first?.stage == .inOrder)
        #expect(inOrder.dropFirst().allSatisfy { $0.stage == .anyWord })
        // No file holds every word ("much", "left", "my"): the one with most of the others.
        let space = try f.engine.run(spec("how much free space is left on my disks", limit: 10))
        #expect(space.first?.identifier.description == "/r/df.txt", "\(space.map(\.identifier.description))")
        #expect(space.first?.stage == .anyWord)
        // "pauses" is a form of "pause"; the file with "program" four times and "few" three
        // comes after those holding more of the question's words.
        let any = try f.engine.run(spec("pause program execution for few seconds", limit: 10))
        let anyPaths = any.map(\.identifier.description)
        #expect(anyPaths.contains("/r/sleep.html"), "\(anyPaths)")
        if let sleep = anyPaths.firstIndex(of: "/r/sleep.html"), let noise = anyPaths.firstIndex(of: "/r/noise.txt") {
            #expect(sleep < noise, "\(anyPaths)")
        }
        // Without the router: nothing holds every word.
        #expect(try paths(f, "how much free space is left on my disks", questions: false).isEmpty)
    }

    @Test("the later stages keep the query's other conditions, and its offset pages through all stages")
    func conditionsAndPaging() throws {
        let f = try QueryFixture(Self.corpus)
        var request = QueryRequest(text: "how much free space is left on my disks")
        request.scopes = [Array("/r/sleep.html".utf8)]
        var spec = try request.makeSpec()
        spec.limit = 10
        #expect(try f.engine.run(spec).isEmpty)
        let all = try paths(f, "pause program execution for few seconds", limit: 10)
        var paged = try self.spec("pause program execution for few seconds", limit: 2)
        paged.offset = 1
        #expect(try f.engine.run(paged).map(\.identifier.description) == Array(all.dropFirst().prefix(2)))
    }

    @Test("an any-word pattern ranks a file with more of the words above one that repeats fewer")
    func coordination() throws {
        let f = try QueryFixture([
            doc("/r/one.txt", text: "zebra zebra zebra zebra zebra zebra zebra zebra"),
            doc("/r/two.txt", text: "zebra giraffe and many other words that make this text longer than the first one"),
        ])
        let zebra = try #require(SearchPattern.Term("zebra")), giraffe = try #require(SearchPattern.Term("giraffe"))
        var pattern = try #require(SearchPattern(groups: [[zebra], [giraffe]]))
        pattern.anyGroup = true
        #expect(pattern.fts5 == "\"zebra\" OR \"giraffe\"")
        let got = try f.engine.run(QuerySpec(predicate: .text(pattern))).map(\.identifier.description)
        #expect(got == ["/r/two.txt", "/r/one.txt"], "\(got)")
    }

    /// A word and its forms are one term: their counts add up under the commonest one's idf.
    /// Scored one form at a time, a file holding a rare form once ("pausing") outranked one
    /// holding the word itself twice, and a word with many forms in the index outweighed the
    /// rest of the question.
    @Test("an any-word pattern counts a word and its forms as one term, under the commonest one's weight")
    func formsAreOneTerm() throws {
        var docs = [doc("/r/rare-form.txt", text: "pausing alpha"), doc("/r/word-twice.txt", text: "pause pause beta")]
        docs += (1...3).map { doc("/r/common-\($0).txt", text: "pause gamma") }
        docs += (1...5).map { doc("/r/other-\($0).txt", text: "delta epsilon") }
        let f = try QueryFixture(docs)
        let pause = try #require(SearchPattern.Term("pause")), pausing = try #require(SearchPattern.Term("pausing"))
        let zebra = try #require(SearchPattern.Term("zebra"))
        var pattern = try #require(SearchPattern(groups: [[pause, pausing], [zebra]]))
        pattern.anyGroup = true
        let got = try f.engine.run(QuerySpec(predicate: .text(pattern))).map(\.identifier.description)
        #expect(got.first == "/r/word-twice.txt" && got.count == 5, "\(got)")
        #expect(got.firstIndex(of: "/r/word-twice.txt")! < got.firstIndex(of: "/r/rare-form.txt")!, "\(got)")
    }

    @Test("--explain shows both stages' searches, the stop words left out, and the stage that found each result")
    func explained() throws {
        let f = try QueryFixture(Self.corpus)
        let pipeline = QueryPipeline(engine: f.engine, fileCheck: FileCheck { _ in .exists }, repair: NoRepair())
        var request = QueryRequest(text: "pause the program for a few seconds")
        request.limit = 3
        let lines = try pipeline.explain(request)
        let text = lines.joined(separator: "\n")
        #expect(lines.contains("stage 1, the words in order: full-text search: \"pause the program for a few seconds\""), "\(text)")
        #expect(lines.contains { $0.hasPrefix("stage 2, any content word, by how many") && $0.contains("\"pause\" OR \"pauses\"") }, "\(text)")
        #expect(lines.contains("left out of stage 2 as stop words: the, for, a, few"), "\(text)")
        #expect(lines.contains("  1. /r/howto.txt  (the words in order)"), "\(text)")
        #expect(lines.contains { $0.hasPrefix("  2. /r/") && $0.hasSuffix("(any content word, by how many)") }, "\(text)")
        // Words that are no question: the plan as before, no stages.
        request.text = "sleep.html"
        #expect(!(try pipeline.explain(request)).contains { $0.contains("stage") })
    }

    @Test("--count of a question counts the list the question gives, not the words as typed")
    func counted() throws {
        let f = try QueryFixture(Self.corpus)
        let question = try spec("pause program execution for few seconds", limit: nil)
        let listed = try f.engine.run(question).count
        let counted = try f.engine.count(question)
        #expect(listed > 1 && counted == listed)
        #expect(try f.engine.count(spec("pause program execution for few seconds", limit: nil, questions: false)) == 0)
        #expect(try f.engine.count(question, keep: { $0 != Array("/r/sleep.html".utf8) }) == listed - 1)
    }

    @Test("a word of symbols among a question's words is left out: the rest is asked")
    func symbolsLeftOut() throws {
        let f = try QueryFixture(Self.corpus)
        let with = try paths(f, "pause the program for a few seconds {}")
        let without = try paths(f, "pause the program for a few seconds")
        #expect(!with.isEmpty && with == without, "\(with)")
        #expect(try spec("how is my struct printed with {}").question == ["how", "is", "my", "struct", "printed", "with"])
    }

    @Test("kinds as people name them: web pages, Word documents, slides, screenshots")
    func kinds() throws {
        var shot = doc("/r/Screenshot from 2026-03-01 10-00-00.png", type: .png)
        shot.attributes[.name] = .string("Screenshot from 2026-03-01 10-00-00.png")
        var photo = doc("/r/holiday.png", type: .png)
        photo.attributes[.name] = .string("holiday.png")
        let f = try QueryFixture([
            doc("/r/page.html", text: "hello", type: .html),
            doc("/r/letter.docx", text: "hello", type: ContentType(rawValue: "org.openxmlformats.wordprocessingml.document")),
            doc("/r/talk.odp", text: "hello", type: ContentType(rawValue: "org.oasis-open.opendocument.presentation")),
            shot, photo,
        ])
        func kind(_ k: String) throws -> Set<String> {
            Set(try f.engine.run(try QueryRequest(text: "kind:\(k)").makeSpec()).map(\.identifier.description))
        }
        #expect(try kind("html") == ["/r/page.html"])
        #expect(try kind("\"web page\"") == ["/r/page.html"])
        #expect(try kind("word") == ["/r/letter.docx"])
        #expect(try kind("slides") == ["/r/talk.odp"])
        #expect(try kind("screenshot") == ["/r/Screenshot from 2026-03-01 10-00-00.png"])
        #expect(throws: QueryError.self) { try QueryRequest(text: "kind:htm").makeSpec() }
    }

    @Test("times in words: yesterday, last week, past 3 days, in March, since Monday, since 2025 — beside other terms only")
    func timePhrases() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Wednesday 18 March 2026, noon.
        let clock = QueryClock(now: Date(timeIntervalSince1970: 1_773_835_200), calendar: calendar)
        func same(_ said: String, _ written: String) throws {
            let a = try ShortQueryParser.parse(said, clock: clock), b = try ShortQueryParser.parse(written, clock: clock)
            #expect(a.predicate == b.predicate, "\(said) ≠ \(written)")
        }
        try same("photos yesterday", "photos modified:yesterday")
        try same("report from last week", "report from modified:last_week")
        try same("notes this month", "notes modified:this_month")
        try same("logs past 3 days", "logs modified:<3d")
        try same("logs last 2 weeks", "logs modified:<2w")
        try same("invoice in March", "invoice modified:2026-03")
        try same("invoice in april", "invoice modified:2025-04")
        try same("invoice in May 2024", "invoice modified:2024-05")
        try same("changes since Monday", "changes modified:>=2026-03-16")
        try same("changes since wednesday", "changes modified:>=2026-03-11")
        try same("changes since 2025", "changes modified:>=2025")
        try same("(budget since January)", "(budget modified:>=2026-01)")
        // Alone, or quoted, or not a time: words.
        #expect(try ShortQueryParser.parse("yesterday", clock: clock).plainWords == ["yesterday"])
        try same("\"last week\" notes", "\"last week\" notes")
        try same("last chapter notes", "last chapter notes")
        try same("in marching band", "in marching band")
        #expect(try ShortQueryParser.parse("photos from last week", clock: clock).plainWords == nil)
        try same("last week photos", "modified:last_week photos")
        #expect(try ShortQueryParser.parse("days between my birthday and today in Python", clock: clock).plainWords?.count == 8)
    }
}

/// Issue 43's semantic stage: a question's second stage reordered by the sentence model.
@Suite("Questions by meaning")
struct MeaningQuestionTests {
    /// By words: the recipe holds the question's three content words (program, wait,
    /// seconds), the timer two, the sleep page one in a longer text. By meaning (the model's closeness of name and title to the question):
    /// the timer 0.49, the sleep page 0.35, the recipe 0.05.
    static let corpus = [
        doc("/r/recipe.txt", title: "Bread recipe",
            text: "Program the oven, wait for the dough to rise, then bake: a few seconds of steam, a few minutes more. Wait, and wait again."),
        doc("/r/timer.txt", title: "Delay a script by some milliseconds",
            text: "Stops the program and waits some milliseconds before it goes on."),
        doc("/r/sleep.html", title: "Put the current thread to sleep for a duration",
            text: "The thread sleeps at least as long as it is told, and may wait longer when the system is busy with other threads."),
    ]

    func paths(_ engine: QueryEngine, _ text: String, semantic: Bool) throws -> [QueryResult] {
        var request = QueryRequest(text: text)
        request.semantic = semantic
        var spec = try request.makeSpec()
        spec.limit = 10
        return try engine.run(spec)
    }

    @Test("once the pass has read the files, the second stage puts the file closest in meaning to the question above one with more of its words, and says so", .sentenceModel)
    func reordered() throws {
        let f = try QueryFixture(Self.corpus)
        let encoder = try SentenceEncoder(folder: SentenceModelFixture.folder.get())
        var engine = f.engine
        engine.sentenceEncoder = { .success(encoder) }
        let question = "how can my program wait for a few seconds"
        let before = try paths(engine, question, semantic: true)
        #expect(before.allSatisfy { $0.stage == .anyWord }, "no vectors yet: the order by words")
        #expect(before.map(\.identifier.description) == ["/r/recipe.txt", "/r/timer.txt", "/r/sleep.html"])

        let report = try MeaningPass(store: f.store, encoder: encoder).runAll()
        #expect(report.embedded == 3 && report.examined == 3)
        #expect(try f.store.pendingMeaningCount() == 0)

        let after = try paths(engine, question, semantic: true)
        // 1/(30+2) + 1/(30+1) for the timer beats 1/(30+1) + 1/(30+3) for the recipe.
        #expect(after.map(\.identifier.description) == ["/r/timer.txt", "/r/recipe.txt", "/r/sleep.html"])
        #expect(after.allSatisfy { $0.stage == .byMeaning })
        #expect(Set(after.map(\.identifier)) == Set(before.map(\.identifier)))
        // `[query] semantic = false`: the order by words, as before.
        #expect(try paths(engine, question, semantic: false).map(\.identifier) == before.map(\.identifier))
        // --explain says how.
        var request = QueryRequest(text: question)
        request.semantic = true
        let lines = try engine.explain(try request.makeSpec())
        #expect(lines.contains { $0.contains("reordered by meaning") && $0.contains("3 items have one, 0 wait") }, "\(lines)")
    }
}
