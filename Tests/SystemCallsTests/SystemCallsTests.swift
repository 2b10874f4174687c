import Synchronization
import SystemCalls
import SystemPackage
import Testing
import TestSupport
import Glibc

// SystemCalls' own tests (here until SystemCalls has a test target of its own). The EINTR tests
// interrupt a call for real: a thread blocked in it is sent SIGUSR2, whose handler is installed
// without SA_RESTART, so that the kernel fails the call with EINTR. Each such test first shows,
// with the raw libc call, that the set-up does produce EINTR, so the wrapper's retry is what
// the test sees.

@Suite("SystemCall: one convention for libc (EINTR retried, errno typed)", .blocking, .serialized)
struct SystemCallsTests {
    /// Installs an empty SIGUSR2 handler without SA_RESTART (once per process).
    static let handlerInstalled: Bool = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        return sigaction(SIGUSR2, &action, nil) == 0
    }()

    /// Runs `body` on a thread of its own and sends that thread SIGUSR2 every 20 ms, `signals`
    /// times, then calls `release` (which lets a blocked `body` finish) and returns what `body`
    /// returned.
    func interrupting<T: Sendable>(signals: Int = 6, release: () -> Void, _ body: @escaping @Sendable () -> T) throws -> T {
        #expect(Self.handlerInstalled)
        let result = Mutex<T?>(nil)
        let thread = try SystemCall.startThread {
            // A new thread inherits its creator's mask, and the test runner's threads block signals.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            let r = body()
            result.withLock { $0 = r }
        }.get()
        for _ in 0..<signals {
            letRealTimePass(0.02, for: "the thread to block in its call again")
            pthread_kill(thread, SIGUSR2)
        }
        release()
        pthread_join(thread, nil)
        return try #require(result.withLock { $0 })
    }

    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    @Test("read is retried on EINTR (the raw read fails with it) and returns what comes after")
    func readRetriesEINTR() throws {
        let raw = try makePipe()
        defer { close(raw.read); close(raw.write) }
        let rawResult = try interrupting(release: { _ = write(raw.write, "x", 1) }) { () -> Int32 in
            var byte: UInt8 = 0
            return read(raw.read, &byte, 1) < 0 ? errno : 0
        }
        #expect(rawResult == EINTR, "the set-up must interrupt a blocked read")

        let p = try makePipe()
        defer { close(p.read); close(p.write) }
        let wrapped = try interrupting(release: { _ = write(p.write, "hello", 5) }) { () -> Result<[UInt8], Errno> in
            var buffer = [UInt8](repeating: 0, count: 16)
            return buffer.withUnsafeMutableBytes { SystemCall.read(p.read, into: $0) }.map { Array(buffer[0..<$0]) }
        }
        #expect(try wrapped.get() == Array("hello".utf8))
    }

    @Test("waitpid is retried on EINTR and reaps the child with its status")
    func waitpidRetriesEINTR() throws {
        let pid = try Spawn(executable: "/bin/sh", arguments: ["sh", "-c", "sleep 0.3; exit 7"]).run().get()
        let rawResult = try interrupting(signals: 2, release: {}) { () -> Int32 in
            var status: Int32 = 0
            return Glibc.waitpid(pid, &status, 0) < 0 ? errno : 0
        }
        #expect(rawResult == EINTR, "the set-up must interrupt a blocked waitpid")
        let reaped = try interrupting(release: {}) { () -> Result<[Int32], Errno> in
            var status: Int32 = 0
            return SystemCall.waitpid(pid, status: &status).map { [$0, status] }
        }
        let values = try reaped.get()
        #expect(values[0] == pid)
        #expect((values[1] & 0x7f) == 0 && (values[1] >> 8) & 0xff == 7)
        var status: Int32 = 0
        #expect(SystemCall.waitpid(pid, status: &status, options: WNOHANG) == .failure(.noChildProcess))
    }

    @Test("poll returns EINTR as zero ready descriptors, long before its timeout")
    func pollEINTRIsZeroReady() throws {
        let p = try makePipe()
        defer { close(p.read); close(p.write) }
        let start = ContinuousClock.now
        let polled = try interrupting(signals: 1, release: {}) { () -> Result<Int16, Errno> in
            SystemCall.poll(p.read, events: Int16(POLLIN), timeout: 10_000)
        }
        #expect(polled == .success(0))
        #expect(ContinuousClock.now - start < .seconds(5))
        _ = write(p.write, "x", 1)
        #expect(SystemCall.poll(p.read, events: Int16(POLLIN), timeout: 1000) == .success(Int16(POLLIN)))
    }

    @Test("readFile reads to the end over several chunks, and refuses a file over its limit")
    func readFileToEOF() throws {
        let path = "/tmp/fsindex-systemcalls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }   // three 64 KiB reads and a short one
        let fd = try SystemCall.open(FilePath(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600).get()
        var written = 0
        while written < content.count {
            written += try content[written...].withUnsafeBytes { SystemCall.write(fd, $0) }.get()
        }
        SystemCall.close(fd)
        #expect(try SystemCall.readFile(path, limit: 1 << 20).get() == content)
        #expect(SystemCall.readFile(path, limit: 100_000) == .failure(.fileTooLarge))
        #expect(SystemCall.readFile(path + ".absent", limit: 10) == .failure(.noSuchFileOrDirectory))
    }

    @Test("pread reads at an offset, short at the end and 0 past it")
    func preadAtOffsets() throws {
        let path = "/tmp/fsindex-systemcalls-pread-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let fd = try SystemCall.open(FilePath(path), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600).get()
        defer { SystemCall.close(fd) }
        _ = try Array("0123456789".utf8).withUnsafeBytes { SystemCall.write(fd, $0) }.get()
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try buffer.withUnsafeMutableBytes { SystemCall.pread(fd, into: $0, at: 3) }.get() == 4)
        #expect(buffer == Array("3456".utf8))
        #expect(try buffer.withUnsafeMutableBytes { SystemCall.pread(fd, into: $0, at: 8) }.get() == 2)
        #expect(try buffer.withUnsafeMutableBytes { SystemCall.pread(fd, into: $0, at: 10) }.get() == 0)
        #expect(buffer.withUnsafeMutableBytes { SystemCall.pread(-1, into: $0, at: 0) } == .failure(.badFileDescriptor))
    }

    @Test("readAvailable is 0 on an empty non-blocking pipe, then the bytes, then 0 at the end")
    func readAvailable() throws {
        let p = try makePipe()
        defer { close(p.read) }
        try SystemCall.setNonBlocking(p.read, true).get()
        #expect(fcntl(p.read, F_GETFL) & O_NONBLOCK != 0)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(buffer.withUnsafeMutableBytes { SystemCall.readAvailable(p.read, into: $0) } == .success(0))
        #expect(buffer.withUnsafeMutableBytes { SystemCall.read(p.read, into: $0) } == .failure(.resourceTemporarilyUnavailable))
        _ = write(p.write, "ab", 2)
        close(p.write)
        #expect(buffer.withUnsafeMutableBytes { SystemCall.readAvailable(p.read, into: $0) } == .success(2))
        #expect(buffer.withUnsafeMutableBytes { SystemCall.readAvailable(p.read, into: $0) } == .success(0))
        try SystemCall.setNonBlocking(p.read, false).get()
        #expect(fcntl(p.read, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test("a descriptor sent with bytes arrives with them, and none when none was sent")
    func descriptorPassing() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let p = try makePipe()
        defer { close(p.read); close(p.write) }
        #expect(try Array("frame".utf8).withUnsafeBytes { SystemCall.send(pair[0], $0, passing: p.write) }.get() == 5)
        var buffer = [UInt8](repeating: 0, count: 16)
        let (count, passed) = try buffer.withUnsafeMutableBytes { SystemCall.receive(pair[1], into: $0) }.get()
        #expect(count == 5 && buffer[0..<5] == Array("frame".utf8)[...])
        let received = try #require(passed)
        defer { close(received) }
        _ = write(received, "z", 1)   // the received descriptor is the pipe's write end
        var byte: UInt8 = 0
        #expect(read(p.read, &byte, 1) == 1 && byte == UInt8(ascii: "z"))

        #expect(try Array("no fd".utf8).withUnsafeBytes { SystemCall.send(pair[0], $0, passing: -1) }.get() == 5)
        let plain = try buffer.withUnsafeMutableBytes { SystemCall.receive(pair[1], into: $0, descriptors: 2) }.get()
        #expect(plain.count == 5 && plain.descriptors.isEmpty)
    }

    @Test("a Unix address refuses a path too long for sun_path or with a NUL")
    func unixAddress() {
        #expect(SystemCall.unixAddress(Array("/run/x.sock".utf8)) != nil)
        #expect(SystemCall.unixAddress([UInt8](repeating: 0x61, count: 107)) != nil)
        #expect(SystemCall.unixAddress([UInt8](repeating: 0x61, count: 108)) == nil)
        #expect(SystemCall.unixAddress([0x61, 0, 0x62]) == nil)
    }
}
