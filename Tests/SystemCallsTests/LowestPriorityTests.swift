import Glibc
import SystemCalls
import Testing

/// `SystemCall.atLowestPriority`: the semantic pass's batches (issue 43) at idle priority, on a
/// thread of their own, while the writer keeps its priority.
@Suite("Work at the lowest priority, on a thread of its own")
struct LowestPriorityTests {
    @Test("the body runs on another thread at SCHED_IDLE and nice 19; the caller's thread keeps its policy and niceness, and sees the body's results")
    func idleThread() {
        let callerThread = pthread_self(), callerPolicy = sched_getscheduler(0)
        errno = 0
        let callerNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        var seen: (thread: pthread_t, policy: Int32, nice: Int32)?
        SystemCall.atLowestPriority {
            seen = (pthread_self(), sched_getscheduler(0), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        let inside = try? #require(seen)
        #expect(inside?.thread != callerThread)
        #expect(inside?.policy == 5, "SCHED_IDLE (Linux's sched.h)")
        #expect(inside?.nice == 19)
        #expect(pthread_self() == callerThread && sched_getscheduler(0) == callerPolicy)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == callerNice)
    }
}
