import Attributes
import Crawling
import Extraction
import ExtractionModel
import SystemCalls
import SystemPackage
import Testing
import TestSupport
@testable import Isolation
import Glibc

/// The worker binary SwiftPM built beside the test bundle.
func workerPath() throws -> String { try WorkerExecutable.locate() }

/// `fsindex-test-worker`, built beside the shipped worker: it misbehaves on purpose for
/// `FSINDEX-TEST-FAULT:` files and answers sandbox probes.
func testWorkerPath() throws -> String {
    let shipped = try workerPath()
    return String(shipped.dropLast("fsindex-worker".count)) + "fsindex-test-worker"
}

/// A worker that misbehaves on purpose for `FSINDEX-TEST-FAULT:` files.
func faultyWorker(_ configure: (inout WorkerLimits) -> Void = { _ in }) throws -> ExtractionWorker {
    var limits = WorkerLimits()
    configure(&limits)
    return ExtractionWorker(executable: try testWorkerPath(), limits: limits)
}

/// A small web page with a title, an author and a few paragraphs, written into `tree`.
func sampleHTML(in tree: TemporaryTree) throws -> FilePath {
    try tree.create("page.html", contents: """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Worker test page</title>
        <meta name="author" content="Grace Hopper"></head>
        <body><h1>Compilers</h1><p>The first compiler translated mathematical notation into machine code.</p>
        <p>Nanoseconds are a foot of wire long.</p></body></html>
        """)
}

@Suite("Extraction worker: results, sandbox, limits", .blocking)
struct ExtractionWorkerTests {
    @Test("a worker returns what in-process extraction returns, text included")
    func sameResult() throws {
        let tree = try TemporaryTree()
        let facts = try FileFacts.read(try sampleHTML(in: tree))
        let worker = ExtractionWorker(executable: try workerPath())
        let viaWorker = worker.extract(facts, textCap: 1 << 20)
        let inProcess = try ExtractionContext().extract(facts)
        #expect(viaWorker.problems.isEmpty)
        #expect(viaWorker.attributes.title == inProcess.attributes.title)
        #expect(viaWorker.attributes.title == "Worker test page")
        #expect(viaWorker.attributes.textContent?.contains("a foot of wire") == true)
        #expect(viaWorker.attributes.textContent == inProcess.attributes.textContent)
        #expect(viaWorker.attributes.contentType == inProcess.attributes.contentType)
        #expect(viaWorker.extractor == "html")
        #expect(viaWorker.extractorVersion == ExtractionVersions.version(of: "html"))
        #expect(viaWorker.trace.map(\.name) == ["filesystem", "type", "html"])
        // The text cap travels with the request.
        let capped = worker.extract(facts, textCap: 10)
        #expect((capped.attributes.textContent?.utf8.count ?? 0) <= 10)
    }

    @Test("non-UTF-8 file names reach the worker byte for byte")
    func byteNames() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let p = try tree.createBytes(name: [0x6E, 0xE9, 0xFF, 0x2E, 0x74, 0x78, 0x74], contents: Array("wombat text".utf8))
        let r = ExtractionWorker(executable: try workerPath()).extract(try FileFacts.read(p), textCap: 1000)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent == "wombat text")
    }

    @Test("the sandbox refuses writes, sockets and new directories; reads and threads still work")
    func refusals() throws {
        let worker = ExtractionWorker(executable: try testWorkerPath())
        for what in ["write-file", "mkdir", "unlink", "socket"] {
            let answer = try worker.probe(what).get()
            #expect(answer.hasPrefix("refused"), "\(what): \(answer)")
        }
        #expect(try worker.probe("read-file").get() == "allowed")
        #expect(try worker.probe("thread").get() == "allowed")
        #expect(access("/tmp/fsindex-sandbox-probe-dir", F_OK) != 0)
    }

    @Test("exec and fork kill the worker (SIGSYS)", arguments: ["exec", "fork"])
    func fatalCalls(what: String) throws {
        let worker = ExtractionWorker(executable: try testWorkerPath())
        #expect(throws: WorkerFailure.forbiddenCall) { try worker.probe(what).get() }
        // The next request gets a new worker.
        #expect(try worker.probe("read-file").get() == "allowed")
    }

    /// Each fault, the limit that stops it, and the words of the recorded reason.
    static let faults: [(kind: String, category: String, words: String)] = [
        ("crash", "crash", "SIGSEGV"),
        ("loop", "cpu-limit", "CPU"),
        ("alloc", "memory-limit", "memory"),
        ("hang", "timeout", "longer than"),
        ("mute", "crash", "without an answer"),   // closes its output and lingers: ends with its input
        ("flood", "output-limit", "output"),
        ("exec", "forbidden-call", "SIGSYS"),
    ]

    @Test("a file that crashes, loops, allocates, hangs, floods or execs costs one worker, not the caller",
          arguments: faults.map(\.kind))
    func faultsAreContained(kind: String) throws {
        let expected = Self.faults.first { $0.kind == kind }!
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let bad = try tree.create("bad-\(kind).txt", contents: "FSINDEX-TEST-FAULT:\(kind)\n")
        let good = try tree.create("good.txt", contents: "an ordinary wombat")
        let worker = try faultyWorker {
            $0.cpuSecondsPerFile = kind == "loop" ? 1 : 30
            // The hang needs the wall-clock limit; the others must meet their own limit first,
            // even on a loaded machine where one CPU second takes many wall seconds.
            $0.wallSecondsPerFile = kind == "hang" ? 3 : 60
            $0.addressSpaceBytes = 768 << 20
            $0.outputBytes = 4 << 20
        }
        let start = ContinuousClock.now
        let r = worker.extract(try FileFacts.read(bad), textCap: 1 << 20)
        #expect(ContinuousClock.now - start < .seconds(70))
        let error = try #require(r.attributes.string(.extractionError))
        #expect(error.hasPrefix("plain-text: "), "\(error)")
        #expect(error.contains(expected.words), "\(error)")
        guard case .worker(let extractor, _) = try #require(r.problems.first) else {
            Issue.record("not a worker failure: \(r.problems)")
            return
        }
        #expect(extractor == "plain-text")
        // What is known without the bytes is kept: the name and the facts.
        #expect(r.attributes.string(.name) == "bad-\(kind).txt")
        #expect(r.attributes[.fileSize] != nil)
        #expect(r.attributes.contentType == "public.plain-text")
        // The same worker object goes on with the next file.
        let ok = worker.extract(try FileFacts.read(good), textCap: 1 << 20)
        #expect(ok.problems.isEmpty)
        #expect(ok.attributes.textContent == "an ordinary wombat")
    }

    @Test("the shipped worker has no fault code: a fault file is ordinary text, a probe is refused")
    func faultsNeedTheSwitch() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let bad = try tree.create("bad.txt", contents: "FSINDEX-TEST-FAULT:crash\n")
        let shipped = ExtractionWorker(executable: try workerPath())
        let r = shipped.extract(try FileFacts.read(bad), textCap: 1000)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent?.contains("FSINDEX-TEST-FAULT") == true)
        // Probes are not answered either: the worker ends on the unknown frame.
        #expect(throws: WorkerFailure.self) { try shipped.probe("read-file").get() }
    }

    @Test("a worker killed between files is replaced without blaming the next file")
    func killedBetweenFiles() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let a = try tree.create("a.txt", contents: "first")
        let b = try tree.create("b.txt", contents: "second")
        let worker = ExtractionWorker(executable: try workerPath())
        #expect(worker.extract(try FileFacts.read(a), textCap: 100).problems.isEmpty)
        let pid = try #require(worker.pid)
        kill(pid, SIGKILL)
        #expect(SystemCall.awaitExit(pid, milliseconds: 5000))
        let r = worker.extract(try FileFacts.read(b), textCap: 100)
        #expect(r.problems.isEmpty)
        #expect(r.attributes.textContent == "second")
        #expect(worker.pid != pid)
    }

    @Test("issue 11: the parent opens the file: one replaced, turned into a symlink or deleted since the crawl is reported, never read")
    func parentChecksTheFile() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let worker = ExtractionWorker(executable: try workerPath())
        let p = try tree.create("a.txt", contents: "old")
        let facts = try FileFacts.read(p)
        // The old file stays open while it is replaced, so its inode cannot be given to the new
        // one (a file created after it was freed could get it back, and the parent compares
        // device and inode: a replacement that reuses the inode is not seen, see the note).
        let held = open(p.string, O_RDONLY | O_CLOEXEC)
        #expect(held >= 0)
        defer { if held >= 0 { close(held) } }
        try tree.remove("a.txt")
        try tree.create("keep.txt", contents: "hold the inode")
        try tree.create("a.txt", contents: "new")
        let replaced = worker.extract(facts, textCap: 100)
        #expect(replaced.problems == [.changedDuringRead])
        #expect(replaced.attributes.textContent == nil)
        try tree.remove("a.txt")
        try tree.symlink("a.txt", to: "keep.txt")   // never followed
        #expect(worker.extract(facts, textCap: 100).problems == [.changedDuringRead])
        try tree.remove("a.txt")
        let gone = worker.extract(facts, textCap: 100)
        guard case .unreadable(let e, let message)? = gone.problems.first else {
            Issue.record("\(gone.problems)")
            return
        }
        #expect(e == ENOENT)
        #expect(message.contains("deleted or renamed after the crawl"))
        #expect(gone.attributes.contentType == "public.plain-text")   // from the name
    }

    @Test("the protocol round-trips every fact of a request")
    func requestCoding() throws {
        let tree = try TemporaryTree()
        let facts = try FileFacts.read(try sampleHTML(in: tree))
        let request = WorkRequest(facts: facts, textCap: 12345)
        #expect(WorkRequest(decoding: request.encoded()) == request)
        #expect(WorkRequest(decoding: Array(request.encoded().dropLast())) == nil)
        for failure: ExtractionError in [.changedDuringRead, CrawledFile.unreadable(EACCES)] {
            let failed = WorkRequest(facts: facts, textCap: 1, openFailure: failure)
            #expect(WorkRequest(decoding: failed.encoded()) == failed)
        }
    }
}
