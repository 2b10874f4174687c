import Attributes
import Crawling
import ExtractionModel
import FoundationEssentials
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// One `fsindex-worker` process, seen from the parent: send a file, get its attributes back or
/// a `WorkerFailure`. Used by one thread at a time (`WorkerPool` hands them out).
///
/// A key design decision: the worker is started lazily and replaced after any failure (and
/// after `filesPerWorker` files), so a failure costs one file and one process start (about
/// 30 ms), never the crawl. The wall-clock limit is enforced here with `poll`, and the worker
/// is killed with SIGKILL: a hung parser answers nothing else.
package final class ExtractionWorker: @unchecked Sendable {
    package let limits: WorkerLimits
    let executable: String
    let environment: [String: String]
    private var process: Running?
    private var filesDone = 0
    /// Parent-side facts-only extraction for files whose worker failed.
    private let namesOnly = NamesOnlyExtraction()
    /// One read buffer for the worker's life (a fresh array per read is slow in debug builds).
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
    /// The running process's pid, for `abandon()` from another thread: set once it starts,
    /// cleared *before* it is reaped, so that a pid the kernel may since have given to another
    /// process is never signalled.
    private let livePid = Mutex<pid_t?>(nil)
    private let abandoned = Atomic<Bool>(false)

    struct Running {
        let pid: pid_t
        let input: Int32     // worker's stdin, a Unix socket (descriptors travel on it), written by us
        let output: Int32    // worker's stdout
        let errors: Int32    // worker's stderr
    }

    /// `environment` is added to ours .
    package init(executable: String, limits: WorkerLimits = WorkerLimits(), environment: [String: String] = [:]) {
        self.executable = executable
        self.limits = limits
        self.environment = environment
    }

    deinit {
        stop()
        scratch.deallocate()
    }

    /// Ends the file at hand from another thread, for an indexer that stops: the process is
    /// killed, the file fails at once with `.abandoned`, and this worker starts no other. A
    /// parser busy with one file for its whole time limit (30 s; 600 s for OCR) would otherwise
    /// hold fsindexd's exit that long.
    package func abandon() {
        abandoned.store(true, ordering: .relaxed)
        livePid.withLock { pid in if let pid { SystemCall.kill(pid, SIGKILL) } }
    }

    /// Extracts one file in the worker. Never throws: a failure becomes a result with the
    /// file's facts, a type from its name, and the failure in `extractionError` and `problems`.
    ///
    /// The file is opened here and its descriptor passed to the worker, which may not open
    /// anything by name outside the libraries' data (see `CrawledFile`).
    package func extract(_ facts: FileFacts, textCap: Int) -> ExtractionResult {
        var descriptor: Int32 = -1
        var openFailure: ExtractionError?
        if facts.type == .regular {
            do throws(ExtractionError) { descriptor = try CrawledFile.open(facts).descriptor } catch { openFailure = error }
        }
        defer { if descriptor >= 0 { SystemCall.close(descriptor) } }
        let request = WorkRequest(facts: facts, textCap: textCap, openFailure: openFailure)
        switch run(.file, request.encoded(), passing: descriptor) {
        case let .success(text, frame, _):
            do {
                return try ResultCoding.decode(text: text, frame: frame)
            } catch {
                stop()
                return failed(facts, .protocolError("undecodable result: \(error)"), stage: nil)
            }
        case let .failure(failure, stage):
            return failed(facts, failure, stage: stage)
        }
    }

    /// Runs one of the sandbox self-tests and returns the worker's answer, or the failure that
    /// ended it. Only the tests' `fsindex-test-worker` answers; the shipped worker ends on it.
    package func probe(_ what: String) -> Result<String, WorkerFailure> {
        switch run(.probe, Array(what.utf8)) {
        case let .success(_, answer, _): .success(String(decoding: answer, as: UTF8.self))
        case let .failure(f, _): .failure(f)
        }
    }

    /// The pid of the running worker, if one runs (tests kill it to see recovery).
    package var pid: pid_t? { process?.pid }

    func failed(_ facts: FileFacts, _ failure: WorkerFailure, stage: String?) -> ExtractionResult {
        let extractor = stage ?? "extraction"
        var r = namesOnly.extract(facts, extractor: stage, version: ExtractionVersions.version(of: stage))
        let error = ExtractionError.worker(extractor: extractor, reason: failure.description)
        r.problems = [error]
        r.attributes[.extractionError] = .string(error.description)
        return r
    }

    enum Outcome {
        case success(text: [UInt8]?, frame: [UInt8], stage: String?)
        case failure(WorkerFailure, stage: String?)
    }

    func run(_ kind: FrameKind, _ payload: [UInt8], passing descriptor: Int32 = -1) -> Outcome {
        let frame = Frame.encode(kind, payload)
        var sent: Running?
        // A worker that died between files (killed from outside, or by the OOM killer) is not
        // this file's fault: start another and send the file again, once.
        for _ in 0..<2 {
            if process == nil || filesDone >= limits.filesPerWorker {
                stop()
                do throws(WorkerFailure) {
                    // Under the lock, so that an `abandon()` either sees this process or is seen here.
                    process = try livePid.withLock { live throws(WorkerFailure) in
                        if abandoned.load(ordering: .relaxed) { throw .abandoned }
                        let started = try spawn()
                        live = started.pid
                        return started
                    }
                } catch { return .failure(error, stage: nil) }
                filesDone = 0
            }
            guard let p = process else { return .failure(.spawn("no process"), stage: nil) }
            if writeAll(p.input, frame, passing: descriptor) { sent = p; break }
            _ = finish(p, killed: .protocolError("gone"))
        }
        guard let p = sent else { return .failure(.spawn("the worker ends as soon as it starts"), stage: nil) }
        filesDone += 1
        var buffer: [UInt8] = []
        var errText: [UInt8] = []
        var stage: String?
        var text: [UInt8]?
        var received = 0
        let deadline = ContinuousClock.now + .milliseconds(Int(limits.wallSecondsPerFile * 1000))
        var outputOpen = true
        while true {
            // Complete frames first (a few per file: stages, text, result, so taking them off
            // the front of the buffer costs little).
            while buffer.count >= Frame.headerSize {
                let (length, kindByte) = Frame.header(buffer[0..<Frame.headerSize])
                if length > limits.outputBytes {
                    return .failure(finish(p, killed: .outputLimit(bytes: limits.outputBytes)), stage: stage)
                }
                guard buffer.count >= Frame.headerSize + length else { break }
                let body = Array(buffer[Frame.headerSize..<Frame.headerSize + length])
                buffer.removeFirst(Frame.headerSize + length)
                switch FrameKind(rawValue: kindByte) {
                case .stage: stage = String(decoding: body, as: UTF8.self)
                case .text: text = body
                case .retiring: filesDone = limits.filesPerWorker   // replaced before the next file
                case .result:
                    return .success(text: text, frame: body, stage: stage)
                default:
                    return .failure(finish(p, killed: .protocolError("frame kind \(kindByte)")), stage: stage)
                }
            }
            if received > limits.outputBytes {
                return .failure(finish(p, killed: .outputLimit(bytes: limits.outputBytes)), stage: stage)
            }
            if !outputOpen {
                return .failure(finish(p, killed: nil, stderr: errText), stage: stage)
            }
            let left = deadline - ContinuousClock.now
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            if ms <= 0 {
                return .failure(finish(p, killed: .timedOut(seconds: limits.wallSecondsPerFile)), stage: stage)
            }
            var fds = [pollfd(fd: p.output, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: p.errors, events: Int16(POLLIN), revents: 0)]
            if case .failure(let e) = SystemCall.poll(&fds, timeout: ms) {   // a signal: zero ready, the time left again
                return .failure(finish(p, killed: .protocolError("poll: \(String(cString: strerror(e.rawValue)))")), stage: stage)
            }
            if fds[1].revents != 0 {
                let n = readSome(p.errors, into: &errText)
                if errText.count > 8192 { errText.removeFirst(errText.count - 8192) }
                if n == 0 { fds[1].revents = 0 }
            }
            if fds[0].revents != 0 {
                let before = buffer.count
                let n = readSome(p.output, into: &buffer)
                received += max(0, buffer.count - before)
                if n <= 0 { outputOpen = false }   // its stderr is read once it is reaped
            }
        }
    }

    /// Reads what is available (at most 256 KiB); returns the count, 0 at the end, -1 on error.
    private func readSome(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
        let n = (try? SystemCall.read(fd, into: scratch).get()) ?? -1
        if n > 0 { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n])) }
        return n
    }

    /// Sends `bytes` on the request socket, with `descriptor` attached to the first part sent
    /// when it is not -1.
    private func writeAll(_ fd: Int32, _ bytes: [UInt8], passing descriptor: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let attach = done == 0 ? descriptor : -1
            let sent = bytes.withUnsafeBytes { SystemCall.send(fd, UnsafeRawBufferPointer(rebasing: $0[done...]), passing: attach) }
            guard case .success(let n) = sent else { return false }
            done += n
        }
        return true
    }

    /// Ends the worker after a failure: kills it if `killed` says why, reaps it, and turns its
    /// wait status into a failure.
    private func finish(_ p: Running, killed: WorkerFailure?, stderr: [UInt8] = []) -> WorkerFailure {
        if killed != nil { SystemCall.kill(p.pid, SIGKILL) }
        livePid.withLock { $0 = nil }
        var errText = stderr
        // A worker that closed its output is normally dead or dying; one that lingers is killed
        // after a second, so that nothing it does can hold the parent.
        let status = reap(p, graceMilliseconds: 1000)
        while readSome(p.errors, into: &errText) > 0 && errText.count < 65536 {}
        SystemCall.close(p.output)
        SystemCall.close(p.errors)
        process = nil
        if let killed { return killed }
        if abandoned.load(ordering: .relaxed) { return .abandoned }
        return WorkerFailure.classify(status: status, stderr: String(decoding: errText, as: UTF8.self), limits: limits)
    }

    /// Stops the worker, if one runs: closing its input ends it; SIGKILL if it does not go.
    package func stop() {
        guard let p = process else { return }
        process = nil
        livePid.withLock { $0 = nil }
        _ = reap(p, graceMilliseconds: 100)
        SystemCall.close(p.output)
        SystemCall.close(p.errors)
    }

    /// Closes the worker's input (its signal to end) and reaps it, killing it if it has not
    /// ended within the grace period; returns its wait status.
    private func reap(_ p: Running, graceMilliseconds: Int32) -> Int32 {
        SystemCall.close(p.input)
        if !SystemCall.awaitExit(p.pid, milliseconds: graceMilliseconds) { SystemCall.kill(p.pid, SIGKILL) }
        var status: Int32 = 0
        _ = SystemCall.waitpid(p.pid, status: &status)
        return status
    }

    private func spawn() throws(WorkerFailure) -> Running {
        // A worker that dies makes our next write fail with EPIPE; it must not kill us.
        signal(SIGPIPE, SIG_IGN)
        let toChild: (Int32, Int32), fromChild: (read: Int32, write: Int32), errs: (read: Int32, write: Int32)
        switch SystemCall.streamPair() {
        case .success(let pair): toChild = pair
        case .failure(let e): throw .spawn("socketpair: \(String(cString: strerror(e.rawValue)))")
        }
        switch SystemCall.pipe() {
        case .success(let pipe): fromChild = pipe
        case .failure(let e):
            SystemCall.close(toChild.0); SystemCall.close(toChild.1)
            throw .spawn("pipe: \(String(cString: strerror(e.rawValue)))")
        }
        switch SystemCall.pipe() {
        case .success(let pipe): errs = pipe
        case .failure(let e):
            SystemCall.close(toChild.0); SystemCall.close(toChild.1); SystemCall.close(fromChild.read); SystemCall.close(fromChild.write)
            throw .spawn("pipe: \(String(cString: strerror(e.rawValue)))")
        }
        let args = [executable, "--address-space", String(limits.addressSpaceBytes),
                    "--cpu-seconds", String(limits.cpuSecondsPerFile), "--cpu-seconds-per-worker", String(limits.cpuSecondsPerWorker),
                    "--open-files", String(limits.openFiles), "--user", limits.user]
            + (limits.lowestPriority ? ["--lowest-priority", "1"] : [])
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"   // a crash is expected here; no 0.25 s backtrace
        for (k, v) in environment { env[k] = v }
        let started = Spawn(executable: executable, arguments: args, environment: env,
                            actions: [.dup(toChild.0, 0), .dup(fromChild.write, 1), .dup(errs.write, 2)],
                            defaultSignals: [SIGPIPE, SIGXCPU]).run()
        SystemCall.close(toChild.0); SystemCall.close(fromChild.write); SystemCall.close(errs.write)
        switch started {
        case .success(let pid):
            return Running(pid: pid, input: toChild.1, output: fromChild.read, errors: errs.read)
        case .failure(let e):
            SystemCall.close(toChild.1); SystemCall.close(fromChild.read); SystemCall.close(errs.read)
            throw .spawn("\(executable): \(String(cString: strerror(e.rawValue)))")
        }
    }
}
