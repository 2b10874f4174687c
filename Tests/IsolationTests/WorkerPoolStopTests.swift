import Crawling
import ExtractionModel
import Isolation
import Synchronization
import SystemCalls
import SystemPackage
import Testing
import TestSupport
import Glibc

/// `WorkerPool.stopAll`: what lets fsindexd stop within 2 s while a parser is busy with one
/// file (issue 42: the exit watchdog is gone).
@Suite("Worker pool: stopping while a file is read", .blocking)
struct WorkerPoolStopTests {
    @Test("stopAll abandons the file being read at once (not at its 30 s limit), and the pool starts no worker after it")
    func stopAllAbandonsTheFileAtHand() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let stuck = try tree.create("stuck.txt", contents: "FSINDEX-TEST-FAULT:hang\n")
        let good = try tree.create("good.txt", contents: "an ordinary wombat")
        var limits = WorkerLimits()
        limits.wallSecondsPerFile = 30
        let pool = WorkerPool(executable: try testWorkerPath(), limits: limits)
        let worker = pool.take()
        let facts = try FileFacts.read(stuck)
        // The read blocks its thread, as the crawl's do: a thread of its own, started at once
        // (a task would wait for the test pool, which other tests may hold on a loaded machine).
        let read = Mutex<ExtractionResult?>(nil)
        _ = try SystemCall.startThread(detached: true) { read.withLock { $0 = worker.extract(facts, textCap: 1 << 20) } }.get()
        try waitFor("the worker to start") { worker.pid != nil }
        let stopped = ContinuousClock.now
        pool.stopAll()
        try waitFor("the read to end") { read.withLock { $0 } != nil }
        #expect(ContinuousClock.now - stopped < .seconds(10), "the file held the stop until its limit")
        let r = try #require(read.withLock { $0 })
        #expect(r.problems.contains { "\($0)".contains("the indexer stopped") }, "\(r.problems)")
        #expect(worker.pid == nil)
        pool.give(worker)
        // Nothing starts again from a stopped pool: a later file fails at once, unread.
        let later = pool.take()
        let after = later.extract(try FileFacts.read(good), textCap: 1 << 20)
        #expect(after.attributes.textContent == nil)
        #expect(after.problems.contains { "\($0)".contains("the indexer stopped") }, "\(after.problems)")
        #expect(later.pid == nil)
        pool.give(later)
        #expect(pool.runningIdleWorkers == 0)
    }

    @Test("a pool that was not stopped keeps its workers between files")
    func givenBackWorkersAreKept() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let good = try tree.create("good.txt", contents: "an ordinary wombat")
        let pool = WorkerPool(executable: try testWorkerPath())
        let worker = pool.take()
        #expect(worker.extract(try FileFacts.read(good), textCap: 1 << 20).attributes.textContent?.contains("wombat") == true)
        pool.give(worker)
        #expect(pool.runningIdleWorkers == 1)
        pool.stopIdle()
        #expect(pool.runningIdleWorkers == 0)
    }
}
