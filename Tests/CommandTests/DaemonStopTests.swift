import Foundation
import GRDB
import SystemPackage
import TestSupport
import Testing

@Suite("fsindexd: stopping, and its database taken away (issue 11)", .blocking, .serialized)
struct DaemonStopTests {
    @Test("SIGTERM in the middle of a long first crawl: exit 0 within 2 s; the next start completes the index")
    func sigtermDuringFirstCrawl() async throws {
        try await offPool {
            let d = try DaemonFixture()
            // One extraction thread and small batches: the first crawl of 5,000 files lasts more than 5 s.
            let files = 5_000
            try d.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + "[index]\nthreads = 1\nbatch_size = 32\n")
            for i in 0..<files {
                try d.tree.create("root/d\(i % 40)/f\(i).txt", contents: "stopword \(i) " + String(repeating: "filler ", count: 40))
            }
            try d.start(waitForWatching: false)
            try d.waitFor("the first batches") { (d.itemCount() ?? 0) > 200 }
            // The content pass under way, well before its end.
            try d.waitFor("the first words") { (Int(try run("fsfind", ["--count", "stopword"], env: d.env).out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 64 }
            #expect(d.daemonState() == "crawling", "the crawl ended too soon to test stopping it")
            let p = try #require(d.process)
            var readOnly = Configuration()
            readOnly.readonly = true
            let index = try DatabaseQueue(path: d.tree.path("index/index.sqlite").string, configuration: readOnly)
            let items = { try index.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") ?? 0 } }
            let atSignal = try items()
            Self.expectQuickStop(p)
            // The crawl stops at its next file: at most the batches at hand are committed after
            // the signal (a names-first batch of up to 256 entries, folders included, and a
            // content batch of 32; and one more names batch may commit between the count and
            // the signal), not the 3,000 and more still to do; the files being read are
            // abandoned (their workers killed). The restart below checks the index is consistent.
            let afterSignal = try items() - atSignal
            #expect(afterSignal <= 2 * 256 + 32, "\(afterSignal) items were committed after SIGTERM: the crawl went on")
            #expect(d.log.contains("stopped"), "\(d.log)")
            // The index is usable and partial; the next start (with both cores) completes it.
            let partial = try run("fsfind", ["--count", "stopword"], env: d.env).out
            #expect(partial != "\(files)\n", "the crawl was complete when it was stopped")
            try d.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig)
            try d.start(waitForWatching: false)
            try d.waitFor("the resumed crawl", seconds: 400) { d.daemonState() == "watching" }
            #expect(try run("fsfind", ["--count", "stopword"], env: d.env).out == "\(files)\n")
            #expect(d.itemCount() == 1 + 40 + files)
            try d.waitInStep()
            #expect(d.stop() == 0)
        }
    }

    @Test("SIGTERM while a worker is stuck in a file: exit 0 within 2 s, the services stop in order, and the file is read on the next start")
    func sigtermWhileAWorkerHangs() async throws {
        try await offPool {
            let d = try DaemonFixture()
            d.worker = Binaries.directory.appendingPathComponent("fsindex-test-worker").path
            try d.tree.create("root/stuck.txt", contents: "FSINDEX-TEST-FAULT:hang kumquat")
            try d.start(waitForWatching: false)
            // The names come first; then the worker takes the file and never answers (its time
            // limit is 30 s).
            try d.waitFor("the names") { (d.itemCount() ?? 0) >= 2 }
            try d.waitFor("the worker to start on the file") { d.log.contains("content") || d.daemonState() == "crawling" }
            var seen: [String?] = []
            let indexed = try eventually(1) {
                seen.append(d.daemonState())
                return seen.last == "watching"
            }
            #expect(!indexed, "the stuck file was indexed: the fault did not hold: \(seen)")
            Self.expectQuickStop(try #require(d.process))
            let log = d.log
            #expect(log.contains("stopped"), "\(log)")
            // What stopped, in the group's order: what feeds the writer, the writer, what reads
            // from it, the control server last.
            var finished: [String] = []
            for line in log.split(separator: "\n") where line.contains("Service finished") {
                guard let key = line.firstRange(of: "sl-service=") else { continue }
                finished.append(String(line[key.upperBound...].prefix { $0 != " " }))
            }
            #expect(finished == ["sighup", "index-file-monitor", "mount-table", "writer", "volumes", "control-server"], "\(log)")
            // The abandoned file is no failure of its own: the real worker reads it next time.
            d.worker = nil
            try d.start()
            #expect(try d.find("kumquat").contains(d.tree.path("root/stuck.txt").string))
            #expect(!(try run("fsindex", ["failures"], env: d.env).out.contains("stuck.txt")))
            #expect(d.stop() == 0)
        }
    }

    /// SIGTERM, and fsindexd's promise: exit 0 within 2 s at any point.
    static func expectQuickStop(_ p: Process, sourceLocation: SourceLocation = #_sourceLocation) {
        kill(p.processIdentifier, SIGTERM)
        let signalled = Date()
        p.waitUntilExit()
        let took = Date().timeIntervalSince(signalled)
        #expect(took < 2.0, "took \(took) s to stop", sourceLocation: sourceLocation)
        #expect(p.terminationStatus == 0, sourceLocation: sourceLocation)
    }

    @Test("fsindex erase refuses while fsindexd uses the index; a database deleted under the daemon stops it with a clear log line")
    func eraseWhileRunning() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/a.txt", contents: "shearwater")
            try d.start()
            let pid = try #require(d.process?.processIdentifier)
            let erase = try d.fsindex("erase")
            #expect(erase.status == 2)
            #expect(erase.stderr.contains("fsindexd (pid \(pid)) is using the index at \(d.tree.path("index").string); stop it first"), "\(erase.stderr)")
            #expect(try d.find("shearwater") == [d.root + "/a.txt"])
            #expect(d.process?.isRunning == true)

            // Deleted by hand (or by an older fsindex): the idle daemon notices by itself.
            #expect(unlink(d.tree.path("index/index.sqlite").string) == 0)
            let p = try #require(d.process)
            try d.waitFor("the daemon to stop", seconds: 10) { !p.isRunning }
            #expect(p.terminationStatus == 1)
            #expect(d.log.contains("the index database \(d.tree.path("index/index.sqlite").string) was deleted"), "\(d.log)")
            // Started again, it builds a new index.
            try d.start()
            #expect(try d.find("shearwater") == [d.root + "/a.txt"])
            #expect(d.stop() == 0)
            #expect(try d.fsindex("erase").status == 0)
        }
    }

    @Test("a database replaced under the daemon (another index renamed over it) stops it with a clear log line, exit 1")
    func databaseReplaced() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/a.txt", contents: "fulmar")
            try d.start()
            // Another index built aside, then renamed over the daemon's in one step.
            let other = d.tree.path("other").string
            let built = try run("fsindex", ["index", "--index-dir", other, d.root], env: d.env)
            #expect(built.status == 0, "\(built.stderr)")
            #expect(rename(other + "/index.sqlite", d.tree.path("index/index.sqlite").string) == 0)
            let p = try #require(d.process)
            try d.waitFor("the daemon to stop", seconds: 10) { !p.isRunning }
            #expect(p.terminationStatus == 1)
            #expect(d.log.contains("was replaced by another file"), "\(d.log)")
        }
    }
}
