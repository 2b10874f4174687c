import CommandSupport
import Dispatch
import Querying
import Synchronization
import Glibc

/// `fsfind-direct`'s last resort for the time limit, for the one phase SQLite cannot stop: the
/// compiling of a statement.
///
/// Why: `QueryDeadline` stops a statement while it runs (SQLite's progress handler), but SQLite
/// compiles a statement with no look at the clock, and some queries within every limit of
/// `QueryLimits` take seconds to compile (4,000 `author:` terms: 8 s, each term three tests with
/// a subquery). Those ended whenever SQLite finished, not at the limit. The watchdog ends the
/// process, with the time limit's message and exit 2, if nothing has been answered a grace
/// period after the limit. Once the first answer is out it stands down: from then on a slow
/// reader (`fsfind … | less`) sets the pace, and the progress handler the limit.
///
/// Only a process of its own may do this; fsindexd, which answers for the small `fsfind` with
/// the same command, passes none.
package final class AnswerWatchdog: Sendable {
    private let answered = Atomic<Bool>(false)
    private let errors: Output

    package init(errors: Output) { self.errors = errors }

    /// Starts the wait: `limit` seconds plus a grace (a tenth of it, at least 1 s) for the
    /// progress handler to end the query first, in the ordinary way.
    func arm(limit: Double) {
        let wait = limit + max(1, limit / 10)
        DispatchQueue.global().asyncAfter(deadline: .now() + min(wait, 1e7)) { [self] in
            guard !answered.load(ordering: .acquiring) else { return }
            errors.report("fsfind", QueryError.timeLimit(seconds: limit).description)
            _exit(2)
        }
    }

    /// Something was answered: the watchdog stands down for good.
    func standDown() { answered.store(true, ordering: .releasing) }
}
