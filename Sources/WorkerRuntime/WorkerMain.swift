import Attributes
import CSysShims
import Crawling
import Extraction
import ExtractionModel
import FoundationEssentials
import Isolation
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// The worker's side: `fsindex-worker` runs this. It limits and sandboxes itself (`Sandbox`),
/// then answers `file` frames on standard input (a Unix socket; each regular file comes as a
/// descriptor with its frame) with `stage`, `text` and `result` frames on standard output until
/// its input ends; and `thumbnail` frames (issue 27) with a `result` frame holding the PNG
/// (`ThumbnailAnswer`), made under the same sandbox and limits; and `recognize` frames (OCR,
/// issue 28) with a `result` frame holding the text (`RecognitionAnswer`).
///
/// Arguments (set by `ExtractionWorker`, not meant for people): `--address-space BYTES`,
/// `--cpu-seconds N`, `--cpu-seconds-per-worker N`, `--open-files N`, `--user NAME`, `--lowest-priority 1`.
///
/// The shipped `fsindex-worker` has no test behaviour at all. The isolation tests run
/// `fsindex-test-worker` (Tests/TestWorker), which passes `WorkerTestHooks` that misbehave on
/// purpose for chosen files and answer sandbox probes, to show what each limit does.
package enum WorkerMain {
    package static func run(arguments: [String], testHooks: WorkerTestHooks? = nil) -> Int32 {
        var limits = WorkerLimits()
        var i = 1
        while i + 1 < arguments.count {
            let v = arguments[i + 1]
            switch arguments[i] {
            case "--address-space": limits.addressSpaceBytes = UInt64(v) ?? limits.addressSpaceBytes
            case "--cpu-seconds": limits.cpuSecondsPerFile = UInt64(v) ?? limits.cpuSecondsPerFile
            case "--cpu-seconds-per-worker": limits.cpuSecondsPerWorker = UInt64(v) ?? limits.cpuSecondsPerWorker
            case "--open-files": limits.openFiles = UInt64(v) ?? limits.openFiles
            case "--user": limits.user = v
            case "--lowest-priority": limits.lowestPriority = v == "1"
            default:
                complain("fsindex-worker is started by fsindex and fsindexd, not by hand (unknown argument \(arguments[i]))")
                return 2
            }
            i += 2
        }
        if isatty(0) != 0 {
            complain("fsindex-worker is started by fsindex and fsindexd, not by hand")
            return 2
        }
        signal(SIGPIPE, SIG_IGN)
        let context: ExtractionContext
        do {
            try Sandbox.applyLimits(limits)
            // Before the filter (which allows priority calls on the worker itself only anyway).
            // Best effort: a container that refuses SCHED_IDLE still gets nice 19 and the idle
            // I/O class, and OCR still runs (lower priority is a courtesy, not a protection).
            if limits.lowestPriority { _ = shim_lowest_priority() }
            context = try ExtractionContext()
            ExtractionContext.preloadTextSupport()   // language models: read once, before the filter
            try Sandbox.dropPrivileges(user: limits.user)
            try Sandbox.confineReads()
            try Sandbox.installFilter(me: getpid())
        } catch {
            complain("cannot set up the extraction sandbox: \(error)")
            return 3
        }
        context.willRun = { name in send(.stage, Array(name.utf8)) }
        watchParent()

        let input = FrameReader(fd: 0)
        while let (kind, payload) = input.next() {
            switch FrameKind(rawValue: kind) {
            case .file:
                let descriptor = input.takeDescriptor()
                guard let request = WorkRequest(decoding: payload),
                      (descriptor != nil) == (request.facts.type == .regular && request.openFailure == nil)
                else {
                    complain("malformed request")
                    return 4
                }
                let source: ExtractionContext.Source = if let descriptor { .descriptor(descriptor) }
                    else if let failure = request.openFailure { .failed(failure) } else { .path }
                let retiring = !Sandbox.armCPULimit(secondsPerFile: limits.cpuSecondsPerFile)
                testHooks?.beforeExtracting(request.facts, descriptor)
                let result = WorkerSummaries.adding(to: context.extract(request.facts, textCap: request.textCap, from: source))
                guard let (text, frame) = try? ResultCoding.encode(result) else {
                    complain("cannot encode a result")
                    return 4
                }
                send(.text, text)
                if retiring { send(.retiring, []) }
                send(.result, frame)
                if retiring { return 0 }   // the parent starts another worker for the next file
            case .thumbnail:
                guard let request = ThumbnailRequest(decoding: payload), let descriptor = input.takeDescriptor() else {
                    complain("malformed request")
                    return 4
                }
                let retiring = !Sandbox.armCPULimit(secondsPerFile: limits.cpuSecondsPerFile)
                let answer: ThumbnailAnswer = switch context.thumbnail(descriptor: descriptor, name: request.name, fileSize: request.fileSize,
                                                                        pixels: request.pixels, texts: request.texts) {
                case .png(let png): .png(png)
                case .unsupported(let mime): .unsupported(mimeType: mime)
                case .failed(let reason): .failed(reason)
                }
                if retiring { send(.retiring, []) }
                send(.result, answer.encoded())
                if retiring { return 0 }
            case .recognize:
                guard let request = RecognitionRequest(decoding: payload), let descriptor = input.takeDescriptor() else {
                    complain("malformed request")
                    return 4
                }
                let retiring = !Sandbox.armCPULimit(secondsPerFile: limits.cpuSecondsPerFile)
                let options = RecognitionOptions(dataPath: request.dataPath, languages: request.languages, pageLimit: request.pageLimit)
                let answer: RecognitionAnswer = switch context.recognize(descriptor: descriptor, name: request.name,
                                                                          fileSize: request.fileSize, options: options) {
                case let .text(text, confidence, pages): .text(text, confidence: confidence, pages: pages)
                case .skipped(let why): .skipped(why)
                case .failed(let why): .failed(why)
                }
                if retiring { send(.retiring, []) }
                send(.result, answer.encoded())
                if retiring { return 0 }
            case .probe where testHooks != nil:
                input.takeDescriptor().map { SystemCall.close($0) }
                let what = String(decoding: payload, as: UTF8.self)
                send(.result, Array(testHooks!.probe(what).utf8))
            default:
                complain("unknown frame \(kind)")
                return 4
            }
        }
        return 0
    }

    /// Ends the worker as soon as its parent is gone, even in the middle of a file: a thread
    /// sleeps in `poll` on the request pipe for a hang-up alone (no wake-ups otherwise), which
    /// comes when the last writer, the parent, closes it or dies. (PR_SET_PDEATHSIG would
    /// follow the parent *thread* that spawned the worker, and libdispatch retires threads.)
    static func watchParent() {
        SystemCall.startThread(detached: true) {
            while true {
                switch SystemCall.poll(0, events: 0, timeout: -1) {
                case .success(let revents): if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { _exit(0) }
                case .failure: _exit(0)
                }
            }
        }
    }

    package static func send(_ kind: FrameKind, _ payload: [UInt8]) {
        let frame = Frame.encode(kind, payload)
        var done = 0
        while done < frame.count {
            switch frame.withUnsafeBytes({ SystemCall.write(1, UnsafeRawBufferPointer(rebasing: $0[done...])) }) {
            case .success(let n): done += n
            case .failure: exit(5)   // the parent is gone or killed us off; nothing to tell
            }
        }
    }

    static func complain(_ message: String) {
        let line = "fsindex-worker: \(message)\n"
        _ = line.withCString { SystemCall.write(2, UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }
}

/// Reads frames from the request socket, blocking, and keeps the descriptor that came with a
/// frame for `takeDescriptor`. A class so that its read buffer is freed with it (the fuzzer makes
/// one per input; the worker, one for its life).
final class FrameReader {
    let fd: Int32
    var buffer: [UInt8] = []
    var start = 0
    /// Descriptors received and not yet taken (one per `file` frame of a regular file).
    var descriptors: [Int32] = []
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(fd: Int32) { self.fd = fd }

    deinit {
        scratch.deallocate()
        descriptors.forEach(SystemCall.close)
    }

    func next() -> (UInt8, [UInt8])? {
        while true {
            let available = buffer.count - start
            if available >= Frame.headerSize {
                let (length, kind) = Frame.header(buffer[start..<start + Frame.headerSize])
                if available >= Frame.headerSize + length {
                    let payload = Array(buffer[start + Frame.headerSize..<start + Frame.headerSize + length])
                    start += Frame.headerSize + length
                    if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
                    return (kind, payload)
                }
            }
            if start > 0 { buffer.removeFirst(start); start = 0 }
            var received = SystemCall.receive(fd, into: scratch)
            // Not a socket (the fuzzer feeds frames from a file): frames without descriptors.
            if case .failure(.notSocket) = received { received = SystemCall.read(fd, into: scratch).map { ($0, nil) } }
            guard case let .success((n, passed)) = received, n > 0 else { return nil }
            if let passed { descriptors.append(passed) }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
        }
    }

    /// The descriptor that came with the frame just read, if any. The parent sends one frame at
    /// a time and waits for the answer, so there is never more than one.
    func takeDescriptor() -> Int32? {
        descriptors.isEmpty ? nil : descriptors.removeFirst()
    }
}


/// What a test worker adds (never the shipped one): misbehaviour before a chosen file is
/// extracted (given its facts and the descriptor its parent passed), and answers to sandbox
/// probes (try one forbidden call, say how it was refused).
@MemberwiseInit
package struct WorkerTestHooks {
    package var beforeExtracting: (FileFacts, Int32?) -> Void
    package var probe: (String) -> String
}
