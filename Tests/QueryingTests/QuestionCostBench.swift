import Foundation
import Indexing
@testable import Querying
import Testing

/// What a question costs inside a warm process, as fsindexd answers it (issue 43): set
/// `FSINDEX_QUESTION_BENCH` to an index of the bench corpus and, optionally,
/// `FSINDEX_QUESTION_SET` to a questions file (`Tests/Benchmarks/questions/dev.tsv` by default).
/// Each question is asked three times after one warm-up round; the median per question, then the
/// median and 90th percentile over the questions, are printed beside the same words asked as
/// typed (`--literal`). A benchmark, not a timed test: it prints, and checks only that answers
/// come.
@Suite("Questions on a large index, in a warm process", .enabled(if: ProcessInfo.processInfo.environment["FSINDEX_QUESTION_BENCH"] != nil,
                                                                 "set FSINDEX_QUESTION_BENCH to an index of the bench corpus"))
struct QuestionCostBench {
    @Test("median and p90 per question, router and as typed")
    func timing() throws {
        let env = ProcessInfo.processInfo.environment
        let folder = try #require(env["FSINDEX_QUESTION_BENCH"])
        let set = env["FSINDEX_QUESTION_SET"] ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/questions/dev.tsv").path
        let questions = try String(contentsOfFile: set, encoding: .utf8).split(separator: "\n").dropFirst()
            .compactMap { line in line.split(separator: "\t", omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) }
        let store = try IndexStore(location: IndexLocation(directory: .init(folder)), readOnly: true)
        let engine = QueryEngine(store: store)
        func cost(_ text: String, literal: Bool) throws -> (ms: Double, found: Int) {
            let spec = try QueryRequest(text: text, literal: literal, limit: 20).makeSpec()
            var found = 0
            var times: [Double] = []
            for _ in 0..<3 {
                let start = ContinuousClock.now
                found = try engine.run(spec).count
                let d = ContinuousClock.now - start
                times.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
            }
            return (times.sorted()[1], found)
        }
        for q in questions { _ = try? cost(q, literal: false) }
        for literal in [false, true] {
            var ms: [Double] = []
            var answered = 0
            for q in questions {
                guard let c = try? cost(q, literal: literal) else { continue }
                ms.append(c.ms)
                if c.found > 0 { answered += 1 }
            }
            ms.sort()
            let median = ms.isEmpty ? 0 : ms[ms.count / 2], p90 = ms.isEmpty ? 0 : ms[max(0, Int((Double(ms.count) * 0.9).rounded()) - 1)]
            print("question bench (\(literal ? "as typed" : "router")): \(ms.count) questions, \(answered) answered, median \(String(format: "%.1f", median)) ms, p90 \(String(format: "%.1f", p90)) ms")
            #expect(answered > ms.count / 2)
        }
    }
}
