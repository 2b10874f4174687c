import Synchronization
import SystemCalls
import Testing
import TestSupport
import Glibc

/// `SystemCall.onThreadUnlessCancelled`: a blocking step a stopping service may leave behind.
@Suite("A blocking step on a thread of its own, abandoned on cancellation", .blocking)
struct AbandoningTests {
    @Test("the result when the thread ends first")
    func result() async {
        #expect(await SystemCall.onThreadUnlessCancelled { 6 * 7 } == 42)
    }

    @Test("nil as soon as the task is cancelled, while the thread still blocks; the thread then ends on its own")
    func cancelled() async throws {
        // The thread blocks reading a pipe until the test writes to it.
        let (readEnd, writeEnd) = try SystemCall.pipe().get()
        let started = Atomic<Bool>(false), ended = Atomic<Bool>(false)
        // On a thread of its own: the test pool may be held by other tests on a loaded machine.
        let waiting = Task(executorPreference: ThreadPerJobExecutor()) {
            await SystemCall.onThreadUnlessCancelled { () -> Int in
                started.store(true, ordering: .relaxed)
                var byte: UInt8 = 0
                _ = read(readEnd, &byte, 1)
                ended.store(true, ordering: .relaxed)
                return Int(byte)
            }
        }
        // A loaded machine may take a while to start the task and its thread.
        #expect(await eventually(120) { started.load(ordering: .relaxed) })
        waiting.cancel()
        let value = await waiting.value
        #expect(value == nil)
        let endedBefore = ended.load(ordering: .relaxed)
        #expect(!endedBefore, "the thread had not ended: the await did not wait for it")
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
        #expect(await eventually(120) { ended.load(ordering: .relaxed) })
        close(readEnd)
        close(writeEnd)
    }

    @Test("a task cancelled before the call starts no thread")
    func cancelledBefore() async {
        let ran = Atomic<Bool>(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await SystemCall.onThreadUnlessCancelled { ran.store(true, ordering: .relaxed); return 1 }
        }
        #expect(await task.value == nil)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

}

/// `SystemCall.awaitExit`: a wait for a real process that the kernel ends, not a loop of sleeps.
@Suite("Waiting for a process to end", .blocking)
struct AwaitExitTests {
    @Test("false while the process runs (after the time given), true at once when it ends, true for a pid that is gone")
    func awaitsTheExit() throws {
        let pid = try Spawn(executable: "/bin/sleep", arguments: ["sleep", "30"]).run().get()
        let started = ContinuousClock.now
        #expect(!SystemCall.awaitExit(pid, milliseconds: 100))
        #expect(ContinuousClock.now - started >= .milliseconds(90))
        SystemCall.kill(pid, SIGKILL)
        let killed = ContinuousClock.now
        #expect(SystemCall.awaitExit(pid, milliseconds: 10_000), "an ended child not yet reaped has ended")
        #expect(ContinuousClock.now - killed < .seconds(5))
        var status: Int32 = 0
        _ = SystemCall.waitpid(pid, status: &status)
        #expect(status & 0x7F == SIGKILL)
        #expect(SystemCall.awaitExit(pid, milliseconds: 100), "a reaped pid is gone")
    }
}
