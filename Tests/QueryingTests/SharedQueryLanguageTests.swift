import Foundation
import Indexing
import Querying
import SharedIndex
import Synchronization
import TestSupport
import Testing

/// How many queries both backends answered, so the suite below cannot pass without comparing.
enum SharedQueryCount {
    private static let count = Atomic<Int>(0)
    static func add() { count.add(1, ordering: .relaxed) }
    static var value: Int { count.load(ordering: .relaxed) }
}

/// Every test of the query-language suite again, with each query also answered by the shared
/// PostgreSQL index holding the same items (published from the SQLite one): the two must find
/// the same items, and the known answers hold on both.
@Suite("Query language on PostgreSQL: the same answers as SQLite", .postgres, .serialized)
struct SharedQueryLanguageTests {
    let pg: ThrowawayPostgres
    init() throws { pg = try ThrowawayPostgres.shared() }

    func onBoth(_ body: () throws -> Void) throws {
        let before = SharedQueryCount.value
        try LanguageFixture.$onPostgres.withValue(pg) { try body() }
        #expect(SharedQueryCount.value > before, "no query was compared")
    }

    @Test func numbers() throws { try onBoth { try QueryLanguageTests().numbers() } }
    @Test func strings() throws { try onBoth { try QueryLanguageTests().strings() } }
    @Test func modifiers() throws { try onBoth { try QueryLanguageTests().modifiers() } }
    @Test func wildcards() throws { try onBoth { try QueryLanguageTests().wildcards() } }
    @Test func fullText() throws { try onBoth { try QueryLanguageTests().fullText() } }
    @Test func lists() throws { try onBoth { try QueryLanguageTests().lists() } }
    @Test func booleans() throws { try onBoth { try QueryLanguageTests().booleans() } }
    @Test func spotlightDates() throws { try onBoth { try QueryLanguageTests().spotlightDates() } }
    @Test func words() throws { try onBoth { try QueryLanguageTests().words() } }
    @Test func names() throws { try onBoth { try QueryLanguageTests().names() } }
    @Test func kinds() throws { try onBoth { try QueryLanguageTests().kinds() } }
    @Test func people() throws { try onBoth { try QueryLanguageTests().people() } }
    @Test func shortDates() throws { try onBoth { try QueryLanguageTests().shortDates() } }
    @Test func sizes() throws { try onBoth { try QueryLanguageTests().sizes() } }
    @Test func attributes() throws { try onBoth { try QueryLanguageTests().attributes() } }
    @Test func mixed() throws { try onBoth { try QueryLanguageTests().mixed() } }
    @Test func priority() throws { try onBoth { try QueryLanguageTests().priority() } }
}
