import Attributes
import CSysShims
import QueryWire
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// What fsindexd does with one query of the small `fsfind` (``FindWire``).
///
/// `answer` runs on a thread of its own (one per query, at most
/// ``ControlServer/maximumActiveQueries``), so it may take as long as the query does. It either
/// returns `.fallback` without writing anything (the client then reads the index itself), or calls
/// `start()` before its first byte to `output` or `errors` and returns `.exit(status)`. If
/// `start()` returns false the client has gone: write nothing. `abandoned()` turns true when the
/// client goes away later (interrupted): stop writing then.
package protocol FindHandler: Sendable {
    func answer(_ request: FindWire.Request, output: Int32, errors: Int32, peer: PeerCredentials,
                start: () -> Bool, abandoned: @escaping @Sendable () -> Bool) -> FindWire.Reply
}

extension ControlServer {
    /// Queries answered at once; one more is told to fall back (the client reads the index
    /// itself), so a burst of queries never piles up threads in the daemon.
    package static let maximumActiveQueries = 4

    /// With the lock held, any file at the query socket's path is a crashed daemon's: it goes.
    static func listenForQueries(_ location: ControlLocation) throws(ControlError) -> (Int32, (device: UInt64, inode: UInt64)) {
        let path = location.findSocketPath.bytes
        let shown = ByteString.escaped(path, escapeControls: true)
        guard let address = SystemCall.unixAddress(path) else {
            throw .pathTooLong(path: shown, limit: MemoryLayout<sockaddr_un>.size - MemoryLayout<sa_family_t>.size - 1)
        }
        switch SystemCall.lstat(path) {
        case let .success(st) where st.st_mode & S_IFMT != S_IFSOCK: throw .notASocket(path: shown)
        case .success: _ = SystemCall.unlink(path)
        case .failure: break
        }
        let fd: Int32
        switch SystemCall.unixSocket(nonBlocking: true) {
        case let .success(opened): fd = opened
        case let .failure(errno): throw .system(operation: "socket", path: nil, errno: errno)
        }
        var ok = false
        defer { if !ok { SystemCall.close(fd); _ = SystemCall.unlink(path) } }
        if case let .failure(errno) = SystemCall.bind(fd, address) { throw .system(operation: "bind", path: shown, errno: errno) }
        if case let .failure(errno) = SystemCall.chmod(path, 0o600) { throw .system(operation: "chmod 600", path: shown, errno: errno) }
        if case let .failure(errno) = SystemCall.listen(fd, backlog: 64) { throw .system(operation: "listen", path: shown, errno: errno) }
        guard case let .success(st) = SystemCall.lstat(path) else {
            throw .system(operation: "lstat", path: shown, errno: Errno(rawValue: errno))
        }
        ok = true
        return (fd, (UInt64(st.st_dev), UInt64(st.st_ino)))
    }

    /// Closes the query socket and removes its file if it is still ours.
    func releaseFindSocket() {
        guard findListenFD >= 0 else { return }
        SystemCall.close(findListenFD)
        let path = location.findSocketPath.bytes
        if case let .success(st) = SystemCall.lstat(path),
           UInt64(st.st_dev) == findSocketIdentity.device, UInt64(st.st_ino) == findSocketIdentity.inode {
            _ = SystemCall.unlink(path)
        }
    }

    /// Accepts every waiting query connection (poll thread), each answered on a new thread.
    func acceptQueries() {
        guard let findHandler else { return }
        while true {
            let fd: Int32
            switch SystemCall.accept(findListenFD) {
            case let .success(accepted): fd = accepted
            case .failure(.connectionAbort), .failure(.protocolError): continue
            case .failure: return
            }
            // The peer's user is checked here, before a byte is read: the folder is private
            // already, but a descriptor passed on by someone else must not be served.
            guard case let .success(peer) = SystemCall.peerCredentials(fd), peer.uid == allowedUID else {
                SystemCall.close(fd)
                continue
            }
            if activeQueries.add(1, ordering: .relaxed).newValue > Self.maximumActiveQueries {
                activeQueries.subtract(1, ordering: .relaxed)
                Self.sendLine(fd, FindWire.Reply.fallback("busy").line)
                SystemCall.close(fd)
                continue
            }
            let started = SystemCall.startThread(detached: true) { [self] in
                Self.serveQuery(fd, peer: peer, handler: findHandler)
                activeQueries.subtract(1, ordering: .relaxed)
            }
            if case .failure = started {
                activeQueries.subtract(1, ordering: .relaxed)
                Self.sendLine(fd, FindWire.Reply.fallback("no thread").line)
                SystemCall.close(fd)
            }
        }
    }

    /// One query: read the frame and the two descriptors (5 s at most), answer, reply, close.
    static func serveQuery(_ fd: Int32, peer: PeerCredentials, handler: any FindHandler) {
        var received: [Int32] = []
        defer {
            received.forEach(SystemCall.close)
            SystemCall.close(fd)
        }
        SystemCall.setNonBlocking(fd, false)
        SystemCall.setReceiveTimeout(fd, seconds: 5)

        var frame: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var expected: Int?
        while expected.map({ frame.count < $0 }) ?? true {
            guard case let .success((n, fds)) = chunk.withUnsafeMutableBytes({ SystemCall.receive(fd, into: $0, descriptors: 2) }) else {
                return   // silent for 5 s: nothing was written
            }
            for passed in fds { if received.count < 2 { received.append(passed) } else { SystemCall.close(passed) } }
            guard n > 0 else { return }   // gone
            frame += chunk[..<n]
            if expected == nil, frame.count >= 8 {
                guard let length = FindWire.Request.payloadLength(header: Array(frame[..<8])) else {
                    sendLine(fd, FindWire.Reply.fallback("not a query of this version").line)
                    return
                }
                expected = 8 + length
            }
        }
        guard frame.count == expected, received.count == 2,
              let request = FindWire.Request(payload: Array(frame[8...])) else {
            sendLine(fd, FindWire.Reply.fallback(received.count == 2 ? "malformed query" : "no descriptors came with the query").line)
            return
        }
        let reply = handler.answer(request, output: received[0], errors: received[1], peer: peer,
                                   start: { sendLine(fd, FindWire.Reply.serving.line) },
                                   abandoned: { clientLeft(fd) })
        sendLine(fd, reply.line)
    }

    /// Sends a whole line, blocking; false when the peer has gone.
    @discardableResult
    static func sendLine(_ fd: Int32, _ line: [UInt8]) -> Bool {
        var offset = 0
        while offset < line.count {
            switch line[offset...].withUnsafeBytes({ SystemCall.send(fd, $0, nonBlocking: false) }) {
            case let .success(n): offset += n
            case .failure: return false
            }
        }
        return true
    }

    /// Whether the client closed its end (it sends nothing after its query, so anything readable
    /// is the end).
    static func clientLeft(_ fd: Int32) -> Bool {
        var p = [pollfd(fd: fd, events: Int16(POLLIN) | 0x2000 /* POLLRDHUP */, revents: 0)]
        guard case let .success(ready) = SystemCall.poll(&p, timeout: 0), ready > 0 else { return false }
        return p[0].revents != 0
    }
}
