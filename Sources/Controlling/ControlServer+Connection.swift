import Synchronization
import SystemCalls
import SystemPackage
import Glibc

extension ControlServer {
    /// One accepted client. The poll thread reads from it; replies and published changes are
    /// written from any thread through `io`, without ever blocking (MSG_DONTWAIT): what the
    /// socket does not take waits in `output` until the poll thread sees POLLOUT.
    ///
    /// Only the poll thread closes the descriptor (under the lock, after setting `closed`), so a
    /// late reply can never write to a descriptor number that has been reused.
    final class Connection: Sendable {
        let id: Int
        let peer: PeerCredentials
        let io: Mutex<IO>

        struct IO {
            var fd: Int32
            /// Encoded lines not yet taken by the socket.
            var output: [UInt8] = []
            var subscribed = false
            /// Close at the next turn of the poll loop (peer gone, backlog too long).
            var closeRequested = false
            /// Close once `output` has been sent (after a fatal protocol error).
            var closeAfterFlush = false
            var closed = false
            /// Its lines are being handled off the poll thread: nothing more is read from it until
            /// they are (the socket's buffer then holds the client back), so its requests stay in
            /// order and one client cannot queue unbounded work.
            var busy = false
        }

        init(id: Int, fd: Int32, peer: PeerCredentials) {
            self.id = id
            self.peer = peer
            self.io = Mutex(IO(fd: fd))
        }

        /// Queues `line` and sends as much as the socket takes now. Returns whether the poll loop
        /// must look at this connection (bytes left over, or it is to be closed).
        func enqueue(_ line: [UInt8], maxPendingBytes: Int) -> Bool {
            enqueue([line], maxPendingBytes: maxPendingBytes)
        }

        /// Queues `lines` as one unit (the pieces of one published change): the backlog is
        /// checked once, before them, so that a client that reads is never dropped because one
        /// change (a big folder moved) is longer than `maxPendingBytes`.
        func enqueue(_ lines: [[UInt8]], maxPendingBytes: Int) -> Bool {
            io.withLock { io in
                guard !io.closed, !io.closeRequested else { return false }
                if io.output.count > maxPendingBytes {
                    // The client stopped reading: drop it rather than buffer without bound.
                    io.closeRequested = true
                    _ = shutdown(io.fd, Int32(SHUT_RDWR))
                    return true
                }
                for line in lines {
                    io.output.append(contentsOf: line)
                    Self.flush(&io)
                    if io.closeRequested { break }
                }
                return io.closeRequested || !io.output.isEmpty
            }
        }

        /// Sends what the socket takes without blocking; a dead peer marks the connection for closing.
        static func flush(_ io: inout IO) {
            while !io.output.isEmpty {
                let result = io.output.withUnsafeBytes { SystemCall.send(io.fd, $0, nonBlocking: true) }
                switch result {
                case let .success(sent):
                    io.output.removeFirst(sent)
                case .failure(.wouldBlock):
                    return
                case .failure:
                    io.output.removeAll()
                    io.closeRequested = true
                    return
                }
            }
        }

        /// What the poll loop needs: the descriptor, whether to wait for POLLOUT, whether to read,
        /// whether to close.
        func pollState() -> (fd: Int32, wantsOutput: Bool, wantsInput: Bool, close: Bool) {
            io.withLock { io in
                let close = io.closeRequested || (io.closeAfterFlush && io.output.isEmpty)
                return (io.fd, !io.output.isEmpty, !io.busy, close)
            }
        }

        func flushNow() { io.withLock { Self.flush(&$0) } }

        var isSubscribed: Bool { io.withLock { $0.subscribed } }

        /// Closes the descriptor (poll thread only).
        func close() {
            io.withLock { io in
                guard !io.closed else { return }
                io.closed = true
                io.output.removeAll()
                SystemCall.close(io.fd)
                io.fd = -1
            }
        }
    }
}
