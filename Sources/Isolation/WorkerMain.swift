import Attributes
import CSysShims
import Crawling
import Extraction
import FoundationEssentials
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The worker's side: `fsindex-worker` runs this. It limits and sandboxes itself, then answers
/// `file` frames on standard input with `stage`, `text` and `result` frames on standard output
/// until its input ends.
///
/// Arguments (set by `ExtractionWorker`, not meant for people): `--address-space BYTES`,
/// `--cpu-seconds N`, `--open-files N`. With `FSINDEX_WORKER_FAULTS=1` in its environment the
/// worker misbehaves on purpose for files that start with `FSINDEX-TEST-FAULT:<kind>` (crash,
/// loop, alloc, hang, flood, exec, write): the isolation tests use it to show what each limit
/// does. Without that variable such files are ordinary text.
public enum WorkerMain {
    public static func run(arguments: [String]) -> Int32 {
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
        let faults = getenv("FSINDEX_WORKER_FAULTS").map { String(cString: $0) == "1" } ?? false
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

        var input = FrameReader(fd: 0)
        while let (kind, payload) = input.next() {
            switch FrameKind(rawValue: kind) {
            case .file:
                guard let request = WorkRequest(decoding: payload) else {
                    complain("malformed request")
                    return 4
                }
                Sandbox.armCPULimit(secondsPerFile: limits.cpuSecondsPerFile)
                if faults, let kind = Faults.kind(of: request.facts) {
                    // As if the parser of the file's type had the bug (fault files are text).
                    send(.stage, Array(PlainTextExtractor().name.utf8))
                    Faults.misbehave(kind)
                }
                let result = context.extract(request.facts, textCap: request.textCap)
                guard let (text, json) = try? ResultCoding.encode(result) else {
                    complain("cannot encode a result")
                    return 4
                }
                send(.text, text)
                send(.result, json)
            case .probe:
                let what = String(decoding: payload, as: UTF8.self)
                send(.result, Array(Faults.probe(what).utf8))
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
        var thread = pthread_t()
        _ = pthread_create(&thread, nil, { _ in
            var fd = pollfd(fd: 0, events: 0, revents: 0)
            while true {
                let n = poll(&fd, 1, -1)
                if n > 0 && fd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { _exit(0) }
                if n < 0 && errno != EINTR { _exit(0) }
            }
        }, nil)
    }

    static func send(_ kind: FrameKind, _ payload: [UInt8]) {
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

/// Reads frames from a descriptor, blocking.
struct FrameReader {
    let fd: Int32
    var buffer: [UInt8] = []
    var start = 0
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)   // lives as long as the worker

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> (UInt8, [UInt8])? {
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

/// Deliberate misbehaviour for the isolation tests (only with `FSINDEX_WORKER_FAULTS=1`).
enum Faults {
    static let marker = Array("FSINDEX-TEST-FAULT:".utf8)

    static func kind(of facts: FileFacts) -> String? {
        guard facts.type == .regular else { return nil }
        let fd = facts.path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 64) }
        guard n > marker.count, Array(head[0..<marker.count]) == marker else { return nil }
        return String(decoding: head[marker.count..<n].prefix { $0 != 0x0A && $0 != 0x20 }, as: UTF8.self)
    }

    static func misbehave(_ kind: String) {
        switch kind {
        case "crash":
            raise(SIGSEGV)
        case "loop":
            var x: UInt64 = 1
            while x != 0 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
        case "alloc":
            var hoard: [[UInt8]] = []
            while true { hoard.append([UInt8](repeating: UInt8(hoard.count & 0xFF), count: 16 << 20)) }
        case "hang":
            while true { sleep(1000) }
        case "mute":
            close(1)   // no answer ever comes, and the end of the output is not the end of the worker
            while true { sleep(1000) }
        case "flood":
            let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
            while true { WorkerMain.send(.text, chunk) }
        case "exec":
            _ = Faults.exec()
        default:
            break
        }
    }

    static func exec() -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        var envp: [UnsafeMutablePointer<CChar>?] = [nil]
        return execve("/bin/true", &argv, &envp)
    }

    /// The sandbox self-test: tries one forbidden thing and says how it was refused. The calls
    /// that kill never return, so the parent sees the worker die instead.
    static func probe(_ what: String) -> String {
        func outcome(_ rc: Int32) -> String { rc >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))" }
        switch what {
        case "write-file":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) })
        case "read-file":
            return outcome("/etc/hostname".withCString { open($0, O_RDONLY | O_CLOEXEC) })
        case "mkdir":
            return outcome("/tmp/fsindex-sandbox-probe-dir".withCString { mkdir($0, 0o700) })
        case "unlink":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { unlink($0) })
        case "socket":
            return outcome(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        case "exec":
            return outcome(exec())
        case "fork":
            return outcome(fork())
        case "thread":
            var t = pthread_t()
            let rc = pthread_create(&t, nil, { _ in nil }, nil)
            if rc == 0 { pthread_join(t, nil); return "allowed" }
            return "refused: \(String(cString: strerror(rc)))"
        default:
            return "unknown probe"
        }
    }
}
