import Indexing
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// A tool's end of the control channel.
///
/// For example, `fsindex status` asks the daemon when one runs, and reads the index itself
/// otherwise:
/// ```swift
/// do {
///     let client = try ControlClient.connect(.forIndex(directory: index.directory))
///     if case let .status(status)? = try client.request(.status, timeout: .seconds(5)) { print(status.state) }
/// } catch .noDaemon {
///     // no daemon: open the index read-only and report from it
/// }
/// ```
/// A client is one connection used from one task at a time; ``subscribe(bufferingNewest:)``
/// hands the connection to a reader thread and an `AsyncStream`.
package final class ControlClient {
    package let location: ControlLocation
    /// Who the daemon is, as the kernel reports it.
    package let daemon: PeerCredentials
    private var fd: Int32
    private var input = LineBuffer()

    private init(location: ControlLocation, fd: Int32, daemon: PeerCredentials) {
        self.location = location
        self.fd = fd
        self.daemon = daemon
    }

    deinit { if fd >= 0 { SystemCall.close(fd) } }

    /// Connects to the daemon serving `location`.
    ///
    /// - Parameter expectedServerUID: the user the daemon must run as (ours by default); a socket
    ///   served by anyone else is refused, so a planted socket cannot collect our requests.
    /// - Throws: ``ControlError/noDaemon(socket:)`` when there is no socket or nobody listens
    ///   (ENOENT, ECONNREFUSED): the caller can then work on the index itself.
    ///   ``ControlError/unsafeDirectory(path:reason:)`` when the socket's folder is not ours
    ///   alone: nothing is sent then, and no daemon of ours can be listening there.
    package static func connect(_ location: ControlLocation, expectedServerUID: uid_t = geteuid()) throws(ControlError) -> ControlClient {
        try location.checkDirectory()
        let address = try location.socketAddress()
        let shown = location.shownSocket
        let fd: Int32
        switch SystemCall.unixSocket(nonBlocking: false) {
        case let .success(opened): fd = opened
        case let .failure(errno): throw .system(operation: "socket", path: nil, errno: errno)
        }
        switch SystemCall.connect(fd, address) {
        case .success: break
        case .failure(.noSuchFileOrDirectory), .failure(.connectionRefused), .failure(.notDirectory):
            SystemCall.close(fd)
            throw .noDaemon(socket: shown)
        case let .failure(errno):
            SystemCall.close(fd)
            throw .system(operation: "connect", path: shown, errno: errno)
        }
        switch SystemCall.peerCredentials(fd) {
        case let .success(peer) where peer.uid == expectedServerUID:
            return ControlClient(location: location, fd: fd, daemon: peer)
        case let .success(peer):
            SystemCall.close(fd)
            throw .untrustedDaemon(socket: shown, uid: peer.uid, expected: expectedServerUID)
        case let .failure(errno):
            SystemCall.close(fd)
            throw .system(operation: "getsockopt SO_PEERCRED", path: shown, errno: errno)
        }
    }

    /// Sends one request line.
    package func send(_ request: ControlRequest) throws(ControlError) {
        guard fd >= 0 else { throw .connectionHandedOver }
        let line: [UInt8]
        do { line = try WireFormat.line(request) } catch {
            throw .protocolViolation("the request could not be encoded")
        }
        try sendLine(line)
    }

    /// Sends raw bytes as they are, whatever their length (tests use it to send garbage).
    func sendRaw(_ bytes: [UInt8]) throws(ControlError) {
        guard fd >= 0 else { throw .connectionHandedOver }
        try sendBytes(bytes)
    }

    private func sendLine(_ line: [UInt8]) throws(ControlError) {
        guard line.count <= WireFormat.maxRequestLine + 1 else { throw .requestTooLarge(size: line.count - 1, limit: WireFormat.maxRequestLine) }
        try sendBytes(line)
    }

    private func sendBytes(_ line: [UInt8]) throws(ControlError) {
        var offset = 0
        while offset < line.count {
            let result = line.withUnsafeBytes { SystemCall.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...]), nonBlocking: false) }
            switch result {
            case let .success(sent): offset += sent
            case .failure(.brokenPipe), .failure(.connectionReset): throw .disconnected
            case let .failure(errno): throw .system(operation: "send", path: location.shownSocket, errno: errno)
            }
        }
    }

    /// Reads the next response line, waiting at most `timeout`; nil when none came in time.
    ///
    /// - Throws: ``ControlError/disconnected`` when the daemon closed the connection,
    ///   ``ControlError/protocolViolation(_:)`` for a line that is not a response.
    package func next(timeout: Duration) throws(ControlError) -> ControlResponse? {
        guard fd >= 0 else { throw .connectionHandedOver }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let line = input.nextLine() {
                if line.isEmpty { continue }
                do { return try WireFormat.decode(ControlResponse.self, from: line[...]) } catch {
                    throw .protocolViolation(WireFormat.reason(error))
                }
            }
            if input.pendingCount > WireFormat.maxResponseLine {
                throw .protocolViolation("a line longer than \(WireFormat.maxResponseLine) bytes")
            }
            let left = clock.now.duration(to: deadline)
            if left <= .zero { return nil }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            switch SystemCall.poll(&fds, timeout: milliseconds) {
            case .success(0): continue
            case .success: try fill()
            case let .failure(errno): throw .system(operation: "poll", path: nil, errno: errno)
            }
        }
    }

    /// Sends `request` and waits for its answer, skipping `.itemsChanged` lines on a subscribed
    /// connection. For `.reindex` this is the first answer; call ``next(timeout:)`` for more.
    ///
    /// - Throws: ``ControlError/timedOut(seconds:)`` when nothing came within `timeout`.
    package func request(_ request: ControlRequest, timeout: Duration) throws(ControlError) -> ControlResponse {
        try send(request)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let left = clock.now.duration(to: deadline)
            guard left > .zero, let response = try next(timeout: left) else {
                throw .timedOut(seconds: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
            }
            if case .itemsChanged = response { continue }
            return response
        }
    }

    private func fill() throws(ControlError) {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let result = chunk.withUnsafeMutableBytes { SystemCall.read(fd, into: $0) }
        switch result {
        case .success(0), .failure(.connectionReset): throw .disconnected
        case let .success(count): input.append(Array(chunk[..<count]))
        case .failure(.wouldBlock): return
        case let .failure(errno): throw .system(operation: "read", path: location.shownSocket, errno: errno)
        }
    }

    /// Subscribes to live changes: sends `.subscribe`, waits for the daemon's `.ok`, then hands
    /// the connection to a reader thread whose stream yields every `.itemsChanged` batch. The
    /// stream finishes when the daemon goes away or stops serving; cancelling the consuming task
    /// (or dropping the stream) closes the connection. This client cannot be used afterwards.
    ///
    /// For example:
    /// ```swift
    /// for await changes in try client.subscribe() { refresh(changes.updated, changes.removed) }
    /// ```
    /// - Parameter bufferingNewest: batches kept while the consumer is busy; older ones are dropped.
    package func subscribe(bufferingNewest: Int = 256, timeout: Duration = .seconds(10)) throws(ControlError) -> AsyncStream<ItemChanges> {
        switch try request(.subscribe, timeout: timeout) {
        case .ok: break
        case let .error(message): throw .protocolViolation("the daemon refused the subscription: \(message)")
        case let other: throw .protocolViolation("expected ok to subscribe, got \(other.kind)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ItemChanges.self,
                                                            bufferingPolicy: .bufferingNewest(bufferingNewest))
        // Whatever already arrived after the `.ok` goes first.
        var early: [ItemChanges] = []
        while let line = input.nextLine() {
            if case let .itemsChanged(changes)? = try? WireFormat.decode(ControlResponse.self, from: line[...]) {
                early.append(changes)
            }
        }
        let leftover = input.bytes
        let handle = SubscriptionSocket(fd: fd)
        fd = -1
        input = LineBuffer()
        for changes in early { continuation.yield(changes) }
        continuation.onTermination = { _ in handle.shutdown() }
        let started = SystemCall.startThread {
            handle.readLoop(leftover: leftover, continuation)
            continuation.finish()
        }
        if case let .failure(errno) = started {
            handle.closeNow()
            continuation.finish()
            throw .system(operation: "pthread_create", path: nil, errno: errno)
        }
        if case let .success(thread) = started { pthread_detach(thread) }
        return stream
    }

    /// Closes the connection now (the deinit does it too).
    package func close() {
        if fd >= 0 { SystemCall.close(fd) }
        fd = -1
    }
}

/// The socket of a subscription, shared by its reader thread (which closes it) and the stream's
/// termination handler (which shuts it down to wake the reader).
private final class SubscriptionSocket: Sendable {
    private let fd: Mutex<Int32>

    init(fd: Int32) { self.fd = Mutex(fd) }

    func shutdown() {
        fd.withLock { fd in if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    func closeNow() {
        fd.withLock { fd in
            if fd >= 0 { SystemCall.close(fd) }
            fd = -1
        }
    }

    func readLoop(leftover: [UInt8], _ continuation: AsyncStream<ItemChanges>.Continuation) {
        defer { closeNow() }
        let descriptor = fd.withLock { $0 }
        var input = LineBuffer()
        input.append(leftover)
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            while let line = input.nextLine() {
                if case let .itemsChanged(changes)? = try? WireFormat.decode(ControlResponse.self, from: line[...]) {
                    continuation.yield(changes)
                }
            }
            if input.pendingCount > WireFormat.maxResponseLine { return }
            // Blocking read; `shutdown()` from the termination handler ends it with 0.
            switch chunk.withUnsafeMutableBytes({ SystemCall.read(descriptor, into: $0) }) {
            case let .success(count) where count > 0:
                chunk.withUnsafeBytes { input.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            default:
                return
            }
        }
    }
}
