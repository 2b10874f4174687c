import Attributes
import CSysShims
import Crawling
import Extraction
import ExtractionModel
import Isolation
import FoundationEssentials
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The worker's side: `fsindex-worker` runs this. It limits and sandboxes itself, then answers
/// `file` frames on standard input with `stage`, `text` and `result` frames on standard output
/// until its input ends.
///
/// Arguments (set by `ExtractionWorker`, not meant for people): `--address-space BYTES`,
/// `--cpu-seconds N`, `--open-files N`.
///
/// The shipped `fsindex-worker` has no test behaviour at all. The isolation tests run
/// `fsindex-test-worker` (Tests/TestWorker), which passes `WorkerTestHooks` that misbehave on
/// purpose for chosen files and answer sandbox probes, to show what each limit does.
public enum WorkerMain {
    public static func run(arguments: [String], testHooks: WorkerTestHooks? = nil) -> Int32 {
        var limits = WorkerLimits()
        var i = 1
        while i + 1 < arguments.count {
            let v = arguments[i + 1]
            switch arguments[i] {
            case "--address-space": limits.addressSpaceBytes = UInt64(v) ?? limits.addressSpaceBytes
            case "--cpu-seconds": limits.cpuSecondsPerFile = UInt64(v) ?? limits.cpuSecondsPerFile
            case "--open-files": limits.openFiles = UInt64(v) ?? limits.openFiles
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
            context = try ExtractionContext()
            ExtractionContext.preloadTextSupport()   // language models: read once, before the filter
            try Sandbox.installFilter()
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
                guard let request = WorkRequest(decoding: payload) else {
                    complain("malformed request")
                    return 4
                }
                Sandbox.armCPULimit(secondsPerFile: limits.cpuSecondsPerFile)
                testHooks?.beforeExtracting(request.facts)
                let result = context.extract(request.facts, textCap: request.textCap)
                guard let (text, json) = try? ResultCoding.encode(result) else {
                    complain("cannot encode a result")
                    return 4
                }
                send(.text, text)
                send(.result, json)
            case .probe where testHooks != nil:
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
            var fd = pollfd(fd: 0, events: 0, revents: 0)
            while true {
                let n = poll(&fd, 1, -1)
                if n > 0 && fd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { _exit(0) }
                if n < 0 && errno != EINTR { _exit(0) }
            }
        }
    }

    public static func send(_ kind: FrameKind, _ payload: [UInt8]) {
        let frame = Frame.encode(kind, payload)
        var done = 0
        while done < frame.count {
            let n = frame.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, frame.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                exit(5)   // the parent is gone or killed us off; nothing to tell
            }
            done += n
        }
    }

    static func complain(_ message: String) {
        let line = "fsindex-worker: \(message)\n"
        _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
    }
}

/// Reads frames from a descriptor, blocking. A class so that its read buffer is freed with it
/// (the fuzzer makes one per input; the worker, one for its life).
final class FrameReader {
    let fd: Int32
    var buffer: [UInt8] = []
    var start = 0
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(fd: Int32) { self.fd = fd }

    deinit { scratch.deallocate() }

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
            let n = Glibc.read(fd, scratch.baseAddress!, scratch.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
        }
    }
}


/// What a test worker adds (never the shipped one): misbehaviour before a chosen file is
/// extracted, and answers to sandbox probes (try one forbidden call, say how it was refused).
public struct WorkerTestHooks {
    public var beforeExtracting: (FileFacts) -> Void
    public var probe: (String) -> String

    public init(beforeExtracting: @escaping (FileFacts) -> Void, probe: @escaping (String) -> String) {
        self.beforeExtracting = beforeExtracting
        self.probe = probe
    }
}
