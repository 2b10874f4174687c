import SystemPackage
import CSysShims
import Glibc

/// The one system-call layer every module uses, with one convention: a wrapper returns
/// `Result<_, Errno>`, retries `EINTR`, and never hides an error. Module-specific wrappers
/// (statx in `Crawling`, sockets in `Controlling`) are written with `retrying`.
package enum SystemCall {
    /// Runs `body` until it does not fail with EINTR; `-1` becomes the current `errno`.
    @inline(__always)
    package static func retrying<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let rc = body()
            if rc != -1 { return .success(rc) }
            if errno == EINTR { continue }
            return .failure(Errno(rawValue: errno))
        }
    }

    /// Starts a POSIX thread running `body` (no Foundation `Thread`, which FoundationEssentials
    /// lacks, and no detached Task, which would borrow a cooperative thread to block). A joinable
    /// thread is returned for its owner to join; a detached one ends on its own.
    @discardableResult
    package static func startThread(detached: Bool = false, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Errno> {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return .failure(Errno(rawValue: rc))
        }
        if detached { pthread_detach(thread) }
        return .success(thread)
    }

    /// Caps glibc's malloc arenas for the process; call before any thread starts. glibc gives
    /// each allocating thread an arena of its own (up to 8 per core), each left part-empty.
    package static func limitMallocArenas(_ n: Int32) {
        _ = shim_limit_malloc_arenas(n)
    }

    /// Names the process after the command it was started as (`argv[0]`'s last component, at
    /// most 15 bytes) when the kernel named it `exe`: a process started through
    /// `/proc/self/exe` (fsindexd detaching) is `exe` to `ps`, `top` and `pgrep` otherwise
    /// (issue 42). Writing `/proc/self/comm` is `prctl(PR_SET_NAME)`, which Swift cannot call
    /// (it is variadic). Any other name is left as the kernel gave it.
    package static func nameAfterCommand(_ argv0: String) {
        let fd = Glibc.open("/proc/self/comm", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { _ = Glibc.close(fd) }
        var current = [UInt8](repeating: 0, count: 32)
        let n = Glibc.read(fd, &current, current.count)
        guard n > 0, current[..<n] == ArraySlice("exe\n".utf8) else { return }
        let name = Array(argv0.utf8.split(separator: UInt8(ascii: "/")).last ?? [])
        guard !name.isEmpty, name != Array("exe".utf8) else { return }
        _ = Glibc.lseek(fd, 0, SEEK_SET)
        _ = name.prefix(15).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// Gives the C library's free memory back to the system (glibc's `malloc_trim(0)`): freed
    /// blocks otherwise stay in the process's resident set. Called between the stages of a
    /// first index (issue 41), so that the crawl's buffers do not add to the OCR worker's peak.
    package static func returnFreedMemory() {
        _ = shim_return_freed_memory()
    }

    /// Runs `body(0)` ... `body(iterations - 1)` at once, each on a thread of its own (the
    /// caller's thread runs `body(0)`), and returns when all have returned; an iteration whose
    /// thread cannot be started runs on the caller's thread afterwards.
    ///
    /// In place of `DispatchQueue.concurrentPerform`, whose libdispatch threads start the
    /// workqueue monitor, a timer that wakes the process once a second for the rest of its
    /// life, idle or not (issue 14). Meant for a few long iterations (one per core), not for
    /// many short ones: each costs a thread.
    package static func concurrentPerform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedBody(body)
            var threads: [pthread_t] = []
            var inline: [Int] = []
            for i in 1..<iterations {
                switch startThread({ shared.body(i) }) {
                case .success(let t): threads.append(t)
                case .failure: inline.append(i)
                }
            }
            body(0)
            for i in inline { body(i) }
            for t in threads { pthread_join(t, nil) }
        }
    }

    /// Runs `body` on a thread of its own at the lowest priority (nice 19, SCHED_IDLE, idle I/O:
    /// `shim_lowest_priority`, which on Linux changes the calling thread only) and returns when
    /// it has: work the machine should do only when nothing else wants a core, from a thread
    /// that must go on at its own priority afterwards (a thread cannot take SCHED_IDLE back).
    /// Runs `body` on the caller's thread if no thread can be started.
    package static func atLowestPriority(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedBody { _ in body() }
            switch startThread({ _ = shim_lowest_priority(); shared.body(0) }) {
            case .success(let thread): pthread_join(thread, nil)
            case .failure: body()
            }
        }
    }

    /// Runs blocking `body` on a thread of its own and awaits its result, so that a wait on a
    /// server or a disk (a publish pass over PostgreSQL can take a minute) never holds one of
    /// Swift's cooperative threads, of which a 2-core machine has two. Should no thread start
    /// (the process is at its limit), `body` runs on the caller's thread rather than not at all.
    package static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let started = startThread(detached: true) { continuation.resume(returning: body()) }
            if case .failure = started { continuation.resume(returning: body()) }
        }
    }

    /// Calls `body` with `bytes` as a NUL-terminated C string.
    package static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

/// A body shared by `concurrentPerform`'s threads, which all end before it returns.
private struct UncheckedBody: @unchecked Sendable {
    let body: (Int) -> Void
    init(_ body: @escaping (Int) -> Void) { self.body = body }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

// The one conversion between `FilePath` and bytes: paths are bytes from end to end, and `.string`
// (lossy for names that are not UTF-8) is for display only.

extension FilePath {
    /// The raw bytes of this path, without the trailing NUL. Lossless, unlike `.string`.
    package var bytes: [UInt8] {
        withPlatformString { SystemCall.bytes(of: $0) }
    }

    /// A path from raw bytes, losslessly.
    package init(bytes: [UInt8]) {
        self = SystemCall.withCString(bytes) { FilePath(platformString: $0) }
    }
}

extension FilePath.Component {
    /// The raw bytes of this name, losslessly.
    package var bytes: [UInt8] {
        withPlatformString { SystemCall.bytes(of: $0) }
    }
}

extension SystemCall {
    /// The bytes of a NUL-terminated C string.
    package static func bytes(of p: UnsafePointer<CChar>) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while p[i] != 0 { out.append(UInt8(bitPattern: p[i])); i += 1 }
        return out
    }
}

extension SystemCall {
    /// A small file read whole: its bytes, or why not. A file of more than `limit` bytes is
    /// `.fileTooLarge` rather than read into memory.
    package static func readFile(_ path: String, limit: Int) -> Result<[UInt8], Errno> {
        readFile(FilePath(path), limit: limit)
    }

    /// `readFile(_:limit:)` for a path of any bytes.
    package static func readFile(_ path: FilePath, limit: Int) -> Result<[UInt8], Errno> {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard case .success(let fd) = opened else { return opened.map { _ in [] } }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// The rest of an open file, at most `limit` bytes (`fileTooLarge` past it): for a caller
    /// that checked the descriptor (its owner, its mode) before reading what it holds.
    package static func readAll(_ fd: Int32, limit: Int) -> Result<[UInt8], Errno> {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Swift.max(1, Swift.min(65536, limit) + 1))   // small for a small file
        while true {
            switch chunk.withUnsafeMutableBytes({ read(fd, into: $0) }) {
            case .failure(let e): return .failure(e)
            case .success(0): return .success(out)
            case .success(let n):
                guard out.count + n <= limit else { return .failure(.fileTooLarge) }
                out += chunk[0..<n]
            }
        }
    }
}
