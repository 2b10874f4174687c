import Attributes
import Foundation
import Indexing
import Querying
import TestSupport
import Testing

/// Queries that `fsindex-fuzz` found to fail, replayed from `Tests/Fuzz/corpus` (issue 11).
@Suite("Query fuzz findings")
struct QueryFuzzFindingTests {
    let clock = QueryClock(now: Date(timeIntervalSince1970: 1_780_000_000))

    @Test("issue 11: a name with a NUL byte matches nothing, instead of an SQL error from FTS5")
    func nameWithNUL() throws {
        let f = try QueryFixture([doc("/r/ab.txt", text: "ab cd"), doc("/r/holiday.txt", text: "holiday")])
        // The fuzzer's input: `name:ho>=liday` followed by a NUL byte and more.
        let found = String(decoding: try FuzzCorpus.input("short-query/crash-name-nul"), as: UTF8.self)
        for query in [found, "name:ab\u{0}cd", "name:\"holi\u{0}day\""] {
            let parsed = try ShortQueryParser.parse(query, clock: clock)
            #expect(try f.engine.run(QuerySpec(predicate: parsed.predicate, now: clock.now)).isEmpty, "\(query.debugDescription)")
            #expect(try f.engine.count(QuerySpec(predicate: parsed.predicate, now: clock.now)) == 0)
        }
        // Names without a NUL still match, by trigrams and by LIKE.
        #expect(try f.paths([], name: "holiday") == ["/r/holiday.txt"])
        #expect(try f.paths([], name: "ab") == ["/r/ab.txt"])
    }
}
