import Crawling
import Foundation
import SystemPackage
import Testing
import TestSupport
@testable import Isolation

/// The OCR request to a sandboxed worker (issue 28): its wire form, and the worker's priority.
@Suite("OCR worker requests", .blocking)
struct RecognitionWorkerTests {
    /// The nice value and scheduling policy of a running process (fields 19 and 41 of
    /// /proc/PID/stat; the name in field 2 may hold spaces, so count from its closing parenthesis).
    func scheduling(_ pid: pid_t) throws -> (nice: Int, policy: Int) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return (Int(fields[16])!, Int(fields[38])!)
    }

    @Test("requests and answers survive their wire form; malformed ones are refused")
    func wire() {
        let request = RecognitionRequest(name: [0x66, 0xFF], fileSize: 12, dataPath: "/usr/share/tesseract-ocr/5/tessdata",
                                         languages: "eng+deu", pageLimit: 20)
        #expect(RecognitionRequest(decoding: request.encoded()) == request)
        #expect(RecognitionRequest(decoding: Array(request.encoded().dropLast())) == nil)
        for answer in [RecognitionAnswer.text("Invoice 4471\nharpsichord", confidence: 91, pages: 2), .skipped("a photo"), .failed("broken")] {
            #expect(RecognitionAnswer(decoding: answer.encoded()) == answer)
        }
        #expect(RecognitionAnswer(decoding: RecognitionAnswer.text("x", confidence: 91, pages: 1).encoded() + [0]) == nil)
    }

    @Test("an OCR worker runs at nice 19 in SCHED_IDLE; an extraction worker does not; a text file is skipped, not read")
    func lowestPriority() throws {
        let tree = try TemporaryTree()
        let file = try tree.create("notes.txt", contents: "not a picture\n")
        var limits = WorkerLimits()
        limits.lowestPriority = true
        // SCHED_IDLE runs only on a core nothing else wants: under two busy loops (a loaded run
        // of the suite) the worker's start took more than the 30 s a file may take. The limit
        // here only bounds a failure.
        limits.wallSecondsPerFile = 600
        let worker = ExtractionWorker(executable: try workerPath(), limits: limits)
        let request = RecognitionRequest(name: Array("notes.txt".utf8), fileSize: 14, dataPath: "/usr/share/tesseract-ocr/5/tessdata",
                                         languages: "eng", pageLimit: 1)
        let answer = worker.recognize(try FileFacts.read(file), request)
        guard case .skipped(let why) = answer else { Issue.record("\(answer)"); return }
        #expect(why.contains("not a picture"))
        let pid = try #require(worker.pid)
        let (nice, policy) = try scheduling(pid)
        #expect(nice == 19 && policy == 5 /* SCHED_IDLE */, "nice \(nice), policy \(policy)")
        worker.stop()

        let plain = ExtractionWorker(executable: try workerPath())
        _ = plain.extract(try FileFacts.read(file), textCap: 1000)
        let (plainNice, plainPolicy) = try scheduling(try #require(plain.pid))
        #expect(plainPolicy == 0 && plainNice < 19, "nice \(plainNice), policy \(plainPolicy)")
        plain.stop()
    }
}
