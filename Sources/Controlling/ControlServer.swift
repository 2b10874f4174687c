import Indexing
import Attributes
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// The daemon's end of the control channel: a Unix-domain stream socket at a
/// ``ControlLocation``, JSON lines in both directions, one poll(2) thread for every connection.
///
/// For example:
/// ```swift
/// let server = try ControlServer(location: .forIndex(directory: index.directory), handler: control)
/// …
/// server.publish(ItemChanges(updated: report.updatedIdentifiers.map(\.bytes)))
/// …
/// server.stop()      // closes every connection and removes the socket file
/// ```
///
/// A key design decision is that one thread owns the socket: it accepts, checks each peer's
/// user with `SO_PEERCRED` (another user gets `.error("refused: …")` and is closed) and reads
/// requests; each connection's complete lines are parsed and handed to the ``ControlHandler``
/// on a thread of their own, one batch of lines per connection at a time, so that no request
/// holds up the poll thread. Writing never blocks: replies and published changes
/// go out with `MSG_DONTWAIT`, the rest waits in a per-connection buffer, and a client that lets
/// more than `maxPendingBytes` pile up is dropped, so a stuck subscriber never holds up indexing.
///
/// Starting claims the location: it takes an exclusive `flock(2)` on `<name>.lock`, removes a
/// stale socket (one that refuses connections: a daemon that crashed), and fails with
/// ``ControlError/alreadyRunning(socket:)`` when a daemon is listening. The socket is made with
/// `SOCK_CLOEXEC` and mode 0600 so worker processes never inherit it and other users cannot
/// connect.
package final class ControlServer: Sendable {
    package let location: ControlLocation
    /// The only user allowed to talk to this server (the daemon's own, by default).
    package let allowedUID: uid_t
    /// Unsent bytes beyond which a connection is dropped instead of buffered.
    package let maxPendingBytes: Int

    private let handler: any ControlHandler
    private let listenFD: Int32
    private let lockFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let socketIdentity: (device: UInt64, inode: UInt64)
    private let registry = Mutex(Registry())
    /// The query socket (`<name>.find.sock`, ``FindWire``) when a ``FindHandler`` was given, else -1.
    let findListenFD: Int32
    let findHandler: (any FindHandler)?
    let findSocketIdentity: (device: UInt64, inode: UInt64)
    /// Queries being answered now, each on a thread of its own.
    let activeQueries = Atomic<Int>(0)

    private struct Registry {
        var connections: [Int: Connection] = [:]
        var nextID = 0
        var stopRequested = false
        /// Set by the poll thread once everything is closed; the wake descriptors are gone.
        var finished = false
        var loopThread: pthread_t?
        /// Someone (a `stop()` caller, or the thread itself) has taken charge of joining.
        var joinClaimed = false
    }

    /// The largest number of paths in one `.itemsChanged` line; ``publish(_:)`` splits bigger changes.
    static let maxPathsPerMessage = 1024

    /// Claims `location` and starts serving on a new thread.
    ///
    /// - Parameters:
    ///   - allowedUID: the user whose connections are served (tests pass another to check refusal).
    ///   - maxPendingBytes: how much unsent output a client may leave before it is dropped.
    /// - Throws: ``ControlError/alreadyRunning(socket:)`` when another daemon serves this index,
    ///   ``ControlError/unsafeDirectory(path:reason:)``, ``ControlError/notASocket(path:)``,
    ///   ``ControlError/pathTooLong(path:limit:)``, or ``ControlError/system(operation:path:errno:)``.
    ///   - findHandler: answers the small fsfind's queries on the query socket beside this one
    ///     (`<name>.find.sock`); nil: no query socket.
    package init(location: ControlLocation, handler: any ControlHandler, allowedUID: uid_t = geteuid(),
                maxPendingBytes: Int = 1 << 20, findHandler: (any FindHandler)? = nil) throws(ControlError) {
        let claimed = try Self.claim(location, withFindSocket: findHandler != nil)
        self.location = location
        self.handler = handler
        self.allowedUID = allowedUID
        self.maxPendingBytes = maxPendingBytes
        self.listenFD = claimed.listenFD
        self.lockFD = claimed.lockFD
        self.wakeRead = claimed.wakeRead
        self.wakeWrite = claimed.wakeWrite
        self.socketIdentity = claimed.identity
        self.findListenFD = claimed.findListenFD
        self.findSocketIdentity = claimed.findIdentity
        self.findHandler = findHandler

        switch SystemCall.startThread({ [self] in self.runLoop() }) {
        case let .success(thread):
            registry.withLock { $0.loopThread = thread }
        case let .failure(errno):
            releaseEverything()
            throw .system(operation: "pthread_create", path: nil, errno: errno)
        }
    }

    /// Sends `.itemsChanged` to every subscribed connection, in lines of at most 1,024 paths.
    /// Never blocks: a subscriber whose socket is gone, or that has left more than
    /// `maxPendingBytes` unread when a change comes, is dropped. The lines of one change go to
    /// a subscriber together, however long (a folder of many items moved), so a subscriber may
    /// hold `maxPendingBytes` plus one change unread.
    package func publish(_ changes: ItemChanges) {
        guard !changes.isEmpty else { return }
        let subscribers = registry.withLock { Array($0.connections.values) }.filter(\.isSubscribed)
        guard !subscribers.isEmpty else { return }
        let lines = changes.chunked(maxPaths: Self.maxPathsPerMessage).map { Self.encode(.itemsChanged($0)) }
        var wake = false
        for subscriber in subscribers where subscriber.enqueue(lines, maxPendingBytes: maxPendingBytes) {
            wake = true
        }
        if wake { wakeLoop() }
    }

    /// Open connections (refused peers are never counted).
    var connectionCount: Int { registry.withLock { $0.connections.count } }

    /// Connections that sent `.subscribe` and are still open.
    var subscriberCount: Int {
        registry.withLock { Array($0.connections.values) }.filter(\.isSubscribed).count
    }

    /// Closes every connection and the socket, removes the socket file and releases the lock.
    /// Waits for the poll thread, unless called from it (from a handler), in which case the thread
    /// finishes on its own right after the handler returns. Calling it again does nothing.
    package func stop() {
        let thread: pthread_t? = registry.withLock { r in
            r.stopRequested = true
            guard !r.joinClaimed, let thread = r.loopThread, pthread_equal(thread, pthread_self()) == 0 else { return nil }
            r.joinClaimed = true
            return thread
        }
        wakeLoop()
        if let thread { pthread_join(thread, nil) }
    }

    // MARK: - Claiming the location

    private struct Claimed {
        var listenFD: Int32, lockFD: Int32, wakeRead: Int32, wakeWrite: Int32
        var identity: (device: UInt64, inode: UInt64)
        var findListenFD: Int32 = -1
        var findIdentity: (device: UInt64, inode: UInt64) = (0, 0)
    }

    private static func claim(_ location: ControlLocation, withFindSocket: Bool) throws(ControlError) -> Claimed {
        try location.prepareDirectory()
        let address = try location.socketAddress()
        let socketPath = location.socketBytes
        let shown = location.shownSocket

        let lockFD: Int32
        switch SystemCall.lockFile(location.lockPath.bytes) {
        case let .success(fd): lockFD = fd
        case .failure(.wouldBlock): throw .alreadyRunning(socket: shown)
        case let .failure(errno): throw .system(operation: "lock", path: location.lockPath.string, errno: errno)
        }
        var opened: [Int32] = [lockFD]
        var succeeded = false
        defer { if !succeeded { opened.forEach(SystemCall.close) } }

        try removeStaleSocket(socketPath, address: address, shown: shown)

        let listenFD: Int32
        switch SystemCall.unixSocket(nonBlocking: true) {
        case let .success(fd): listenFD = fd
        case let .failure(errno): throw .system(operation: "socket", path: nil, errno: errno)
        }
        opened.append(listenFD)
        switch SystemCall.bind(listenFD, address) {
        case .success: break
        case .failure(.addressInUse): throw .alreadyRunning(socket: shown)
        case let .failure(errno): throw .system(operation: "bind", path: shown, errno: errno)
        }
        if case let .failure(errno) = SystemCall.chmod(socketPath, 0o600) {
            _ = SystemCall.unlink(socketPath)
            throw .system(operation: "chmod 600", path: shown, errno: errno)
        }
        if case let .failure(errno) = SystemCall.listen(listenFD, backlog: 64) {
            _ = SystemCall.unlink(socketPath)
            throw .system(operation: "listen", path: shown, errno: errno)
        }
        guard case let .success(st) = SystemCall.lstat(socketPath) else {
            throw .system(operation: "lstat", path: shown, errno: Errno(rawValue: errno))
        }
        let wake: (Int32, Int32)
        switch SystemCall.socketPair() {
        case let .success(pair): wake = pair
        case let .failure(errno):
            _ = SystemCall.unlink(socketPath)
            throw .system(operation: "socketpair", path: nil, errno: errno)
        }
        opened += [wake.0, wake.1]
        var claimed = Claimed(listenFD: listenFD, lockFD: lockFD, wakeRead: wake.0, wakeWrite: wake.1,
                              identity: (UInt64(st.st_dev), UInt64(st.st_ino)))
        if withFindSocket {
            do {
                (claimed.findListenFD, claimed.findIdentity) = try listenForQueries(location)
            } catch {
                _ = SystemCall.unlink(socketPath)
                throw error
            }
        }
        succeeded = true
        return claimed
    }

    /// With the lock held: a socket file nobody listens on is left over from a crash and goes; a
    /// listening one belongs to a daemon that does not use the lock, and wins.
    private static func removeStaleSocket(_ path: [UInt8], address: sockaddr_un, shown: String) throws(ControlError) {
        let st: stat
        switch SystemCall.lstat(path) {
        case let .success(found): st = found
        case .failure(.noSuchFileOrDirectory): return
        case let .failure(errno): throw .system(operation: "lstat", path: shown, errno: errno)
        }
        guard st.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: shown) }
        guard case let .success(probe) = SystemCall.unixSocket(nonBlocking: false) else {
            throw .system(operation: "socket", path: nil, errno: Errno(rawValue: errno))
        }
        defer { SystemCall.close(probe) }
        switch SystemCall.connect(probe, address) {
        case .success: throw .alreadyRunning(socket: shown)
        case .failure(.connectionRefused), .failure(.noSuchFileOrDirectory): break
        case let .failure(errno): throw .system(operation: "connect", path: shown, errno: errno)
        }
        switch SystemCall.unlink(path) {
        case .success, .failure(.noSuchFileOrDirectory): break
        case let .failure(errno): throw .system(operation: "unlink stale socket", path: shown, errno: errno)
        }
    }

    // MARK: - The poll thread

    private func runLoop() {
        registry.withLock { $0.loopThread = pthread_self() }
        var inputs: [Int: LineBuffer] = [:]
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let (stopping, connections) = registry.withLock { ($0.stopRequested, Array($0.connections.values)) }
            if stopping { break }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: findListenFD, events: Int16(POLLIN), revents: 0)]
            var polled: [Connection] = []
            for connection in connections {
                let state = connection.pollState()
                if state.close {
                    drop(connection)
                    inputs[connection.id] = nil
                    continue
                }
                // A busy connection is polled only to send: a hang-up then shows as a failed send.
                if !state.wantsInput && !state.wantsOutput { continue }
                let events = (state.wantsInput ? Int16(POLLIN) : 0) | (state.wantsOutput ? Int16(POLLOUT) : 0)
                fds.append(pollfd(fd: state.fd, events: events, revents: 0))
                polled.append(connection)
            }
            if case .failure = SystemCall.poll(&fds, timeout: -1) {
                usleep(10_000)   // EINVAL/ENOMEM: nothing sensible to do but try again shortly
                continue
            }
            if fds[0].revents != 0 { drainWake() }
            if fds[1].revents & Int16(POLLIN) != 0 { acceptAll() }
            if fds[2].revents & Int16(POLLIN) != 0 { acceptQueries() }
            for (index, connection) in polled.enumerated() {
                let revents = fds[index + 3].revents
                if revents & Int16(POLLOUT) != 0 { connection.flushNow() }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, fds[index + 3].events & Int16(POLLIN) != 0 {
                    read(connection, into: &inputs[connection.id, default: LineBuffer()], chunk: &chunk)
                }
            }
        }
        releaseEverything()
        let detach = registry.withLock { r in
            defer { r.joinClaimed = true }
            return !r.joinClaimed
        }
        if detach { pthread_detach(pthread_self()) }
    }

    /// Reads what is there and handles each complete line.
    private func read(_ connection: Connection, into input: inout LineBuffer, chunk: inout [UInt8]) {
        let (fd, closing) = connection.io.withLock { ($0.fd, $0.closeAfterFlush || $0.closeRequested) }
        let result = chunk.withUnsafeMutableBytes { SystemCall.read(fd, into: $0) }
        switch result {
        case .failure(.wouldBlock):
            return
        case .success(0), .failure:
            connection.io.withLock { $0.closeRequested = true }
            return
        case let .success(count):
            if closing { return }   // a connection on its way out: ignore what it still sends
            chunk.withUnsafeBytes { input.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        var lines: [[UInt8]] = []
        while let line = input.nextLine() { lines.append(line) }
        if !lines.isEmpty {
            // Parsing and handling happen on a thread of their own: a large batch (15 MB parses
            // for seconds) or a hostile line must not hold up the other clients, nor the queries
            // accepted on this thread. A plain thread that ends, not Dispatch's global queues:
            // once those have run, libdispatch's workqueue monitor wakes the idle daemon every
            // second for good (DaemonIdleTests).
            connection.io.withLock { $0.busy = true }
            let started = SystemCall.startThread(detached: true) { [self, lines] in
                for line in lines { handle(line, from: connection) }
                connection.io.withLock { $0.busy = false }
                wakeLoop()
            }
            if case .failure = started {
                for line in lines { handle(line, from: connection) }   // no thread to be had: here
                connection.io.withLock { $0.busy = false }
            }
        }
        if input.pendingCount > WireFormat.maxRequestLine {
            send(.error("bad request: a line longer than \(WireFormat.maxRequestLine) bytes; send one JSON object per line"),
                 to: connection)
            connection.io.withLock { $0.closeAfterFlush = true }
            input = LineBuffer()
        }
    }

    private func handle(_ line: [UInt8], from connection: Connection) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        let request: ControlRequest
        do {
            request = try WireFormat.request(from: line)
        } catch {
            send(.error("bad request: \(WireFormat.reason(error)); send one JSON object per line, such as {\"request\":\"status\"}"),
                 to: connection)
            return
        }
        if request == .subscribe {
            connection.io.withLock { $0.subscribed = true }
            send(.ok(message: "subscribed"), to: connection)
            return
        }
        handler.handle(request) { [self] response in
            self.send(response, to: connection)
        }
    }

    private func send(_ response: ControlResponse, to connection: Connection) {
        if connection.enqueue(Self.encode(response), maxPendingBytes: maxPendingBytes) { wakeLoop() }
    }

    static func encode(_ response: ControlResponse) -> [UInt8] {
        if let line = try? WireFormat.line(response) { return line }
        // Only a non-finite Double can fail; say so rather than send nothing.
        return (try? WireFormat.line(ControlResponse.error("internal error: the \(response.kind) response could not be encoded"))) ?? []
    }

    private func acceptAll() {
        while true {
            let fd: Int32
            switch SystemCall.accept(listenFD) {
            case let .success(accepted): fd = accepted
            case .failure(.wouldBlock): return
            case .failure(.connectionAbort), .failure(.protocolError): continue
            case .failure(.tooManyOpenFiles), .failure(.tooManyOpenFilesInSystem), .failure(.noBufferSpace),
                 .failure(.noMemory):
                usleep(50_000)   // out of descriptors: leave the client in the backlog for a moment
                return
            case .failure: return
            }
            switch SystemCall.peerCredentials(fd) {
            case let .success(peer) where peer.uid == allowedUID:
                registry.withLock { r in
                    r.connections[r.nextID] = Connection(id: r.nextID, fd: fd, peer: peer)
                    r.nextID += 1
                }
            case let .success(peer):
                refuse(fd, "refused: this fsindexd serves uid \(allowedUID) only, and you are uid \(peer.uid)")
            case let .failure(errno):
                refuse(fd, "refused: cannot tell who you are (SO_PEERCRED: \(errno))")
            }
        }
    }

    /// Tells a peer why it is turned away (best effort: one small line into an empty socket) and
    /// closes it.
    private func refuse(_ fd: Int32, _ message: String) {
        let line = Self.encode(.error(message))
        _ = line.withUnsafeBytes { SystemCall.send(fd, $0, nonBlocking: true) }
        SystemCall.close(fd)
    }

    private func drop(_ connection: Connection) {
        _ = registry.withLock { $0.connections.removeValue(forKey: connection.id) }
        connection.close()
    }

    private func wakeLoop() {
        registry.withLock { r in
            guard !r.finished else { return }
            var byte: UInt8 = 1
            _ = withUnsafeBytes(of: &byte) { SystemCall.send(wakeWrite, $0, nonBlocking: true) }
        }
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while case let .success(count) = buffer.withUnsafeMutableBytes({ SystemCall.read(wakeRead, into: $0) }), count > 0 {}
    }

    /// Last words to every client, then closes everything and removes the socket file (only if it
    /// is still ours: a newer daemon may have replaced it).
    private func releaseEverything() {
        let connections = registry.withLock { r in
            defer { r.connections.removeAll() }
            return Array(r.connections.values)
        }
        for connection in connections {
            connection.flushNow()
            connection.close()
        }
        SystemCall.close(listenFD)
        let path = location.socketBytes
        if case let .success(st) = SystemCall.lstat(path),
           UInt64(st.st_dev) == socketIdentity.device, UInt64(st.st_ino) == socketIdentity.inode {
            _ = SystemCall.unlink(path)
        }
        releaseFindSocket()
        SystemCall.close(lockFD)   // after the unlink, so a new daemon never sees our socket as its own
        registry.withLock { r in
            r.finished = true
            SystemCall.close(wakeRead)
            SystemCall.close(wakeWrite)
        }
    }
}
