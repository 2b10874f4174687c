import Foundation
import Attributes
import ExtractionModel
import Isolation
import TestSupport
import Testing
import Glibc

/// Worker protocol inputs that `fsindex-fuzz` found mishandled, replayed from
/// `Tests/Fuzz/corpus` against the real `fsindex-worker` (issue 11).
@Suite("Worker protocol fuzz findings", .blocking)
struct WorkerProtocolFuzzFindingTests {
    /// The frames a worker wrote: (kind, payload) in order.
    func frames(_ bytes: [UInt8]) -> [(UInt8, [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var rest = bytes[...]
        while rest.count >= Frame.headerSize {
            let (length, kind) = Frame.header(rest.prefix(Frame.headerSize))
            guard rest.count >= Frame.headerSize + length else { break }
            out.append((kind, Array(rest.dropFirst(Frame.headerSize).prefix(length))))
            rest = rest.dropFirst(Frame.headerSize + length)
        }
        return out
    }

    @Test("issue 11: a request whose path holds a NUL byte is refused, not cut short to another file")
    func pathWithNUL() throws {
        // Two `file` frames: /home/ada/report.pdf (its open failed: ENOENT), then "/tmp/caf\xe9\0/\xff.txt" (FilePath
        // would have cut it short at the NUL, naming another file).
        let input = try FuzzCorpus.input("worker-request/crash-path-nul")
        let requests = frames(input).filter { $0.0 == FrameKind.file.rawValue }
        #expect(requests.count == 2)
        #expect(WorkRequest(decoding: requests[0].1) != nil)
        #expect(WorkRequest(decoding: requests[1].1) == nil)

        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: try WorkerExecutable.locate())
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        worker.standardInput = stdin
        worker.standardOutput = stdout
        worker.standardError = stderr
        try worker.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        // The request pipe stays open (a worker whose parent hangs up exits at once): a worker
        // that refuses the request ends by itself; one that accepts both waits for more, and is
        // hung up on after 20 seconds.
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(20)
        var fd = pollfd(fd: stdout.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            guard poll(&fd, 1, 100) > 0 else { continue }
            let n = read(fd.fd, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        try stdin.fileHandleForWriting.close()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        worker.waitUntilExit()
        // The first file is answered (it does not exist: a result with its error), the second ends the worker.
        #expect(frames(out).filter { $0.0 == FrameKind.result.rawValue }.count == 1)
        #expect(worker.terminationStatus == 4)
        #expect(err.contains("malformed request"), "\(err)")
    }

    @Test("issue 11: a worker's result decodes, encodes and decodes again to the same dates, to the millisecond")
    func datesSurviveThePipe() throws {
        // What a real fsindex-worker answered for a small HTML file when results were JSON:
        // stage, text and result frames. Its result goes through today's binary frame.
        let stream = frames(try FuzzCorpus.input("worker-result/crash-date-drift"))
        let text = try #require(stream.first { $0.0 == FrameKind.text.rawValue }?.1)
        let json = try #require(stream.first { $0.0 == FrameKind.result.rawValue }?.1)
        var result = try JSONDecoder().decode(ExtractionResult.self, from: Data(json))
        result.attributes.textContent = String(decoding: text, as: UTF8.self)
        #expect(result.attributes.textContent == "café")
        for _ in 0..<3 {
            let (t, f) = try ResultCoding.encode(result)
            let again = try ResultCoding.decode(text: t, frame: f)
            #expect(again == result)
            #expect(again.attributes.date("lastUsedDate").map(AttributeValue.iso8601) == "2026-11-24T20:23:15.885Z")
            result = again
        }
    }

    @Test("the worker-result seeds hold result frames the parent decodes, so the fuzzer starts from real answers",
          arguments: ["real-html", "real-mail", "real-rtf", "frames"])
    func seedsDecode(_ seed: String) throws {
        let stream = frames(try FuzzCorpus.input("worker-result/" + seed))
        let text = stream.first { $0.0 == FrameKind.text.rawValue }?.1
        let frame = try #require(stream.first { $0.0 == FrameKind.result.rawValue }?.1)
        let result = try ResultCoding.decode(text: text, frame: frame)
        #expect(result.attributes.contentType != nil || result.extractor == "pdf", "\(result.attributes.keys)")
        #expect(result.attributes.textContent?.isEmpty == false)
        let whole = try ResultCoding.decode(text: nil, frame: try FuzzCorpus.input("worker-result/result.bin"))
        #expect(whole.attributes[.pixelWidth] == .double(1024.5))
        #expect(whole.children.map(\.key) == ["message/1"])
    }
}
