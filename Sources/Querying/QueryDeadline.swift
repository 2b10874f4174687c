import GRDB
import GRDBSQLite

/// The moment a query must be done by: `[query] time_limit` (or `fsfind --time-limit`) after it
/// started. Every query ends, with `QueryError.timeLimit` at worst.
///
/// A key design decision: the limit is enforced inside SQLite, through
/// `sqlite3_progress_handler(3)`, which SQLite calls every `checkEvery` virtual-machine
/// instructions; it returns non-zero once the deadline has passed, and SQLite stops the
/// statement with `SQLITE_INTERRUPT`. Unlike a timer calling `sqlite3_interrupt`, this needs no
/// second thread and cannot miss a statement that starts just after the timer fired. The time
/// spent outside SQLite (parsing, bounded by `QueryLimits`; checking files on disk) is checked
/// between statements.
///
/// Cost: a clock read (about 25 ns through the vDSO) every 100 instructions (a few microseconds
/// of SQLite work), about 1 % of a query. Every 10,000 was too coarse: a row of bm25 over many
/// phrases is a handful of instructions taking milliseconds, and a 10 s limit ended after 22 s.
///
/// Caveat: SQLite 3.40 calls the handler between instructions only, so one instruction that
/// runs long by itself (an FTS5 function over one huge row) finishes before the query stops;
/// nor is it called while SQLite compiles a statement, which can take seconds for thousands of
/// terms. `fsfind-direct` has a watchdog for both (`AnswerWatchdog`).
package struct QueryDeadline: Sendable, Hashable {
    /// The limit as configured, for the message.
    package var seconds: Double
    package var instant: ContinuousClock.Instant

    /// `seconds` from now.
    package init(seconds: Double, from start: ContinuousClock.Instant = .now) {
        self.seconds = seconds
        // Saturating: a limit of days is as good as none, never an overflow.
        let capped = min(max(seconds, 0), 1e9)
        instant = start.advanced(by: .milliseconds(Int64(capped * 1000)))
    }

    package var hasPassed: Bool { ContinuousClock.now >= instant }

    /// SQLite instructions between two looks at the clock.
    static let checkEvery: Int32 = 100

    /// Runs `body` with the deadline enforced on `db`: a statement still running when it passes
    /// fails with `SQLITE_INTERRUPT` (the caller tells that apart with `hasPassed`).
    func enforce<T>(on db: Database, _ body: () throws -> T) rethrows -> T {
        let box = Unmanaged.passRetained(Box(instant))
        sqlite3_progress_handler(db.sqliteConnection, Self.checkEvery, { context in
            guard let context else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
            return ContinuousClock.now >= box.instant ? 1 : 0
        }, box.toOpaque())
        defer {
            sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
            box.release()
        }
        return try body()
    }

    /// The deadline, where a C callback can read it.
    private final class Box {
        let instant: ContinuousClock.Instant
        init(_ instant: ContinuousClock.Instant) { self.instant = instant }
    }
}
