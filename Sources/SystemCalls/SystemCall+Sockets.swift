import CSysShims
import MemberwiseInit
import SystemPackage
import Glibc

// Unix-domain sockets, in `SystemCall`'s convention (`Result<_, Errno>`, EINTR retried except
// where a wrapper says otherwise).

/// Who is at the other end of a connection, as the kernel reports it (`SO_PEERCRED`).
@MemberwiseInit
package struct PeerCredentials: Sendable, Hashable {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
}

extension SystemCall {
    /// Builds a `sockaddr_un` for `path`, or nil when the path does not fit in `sun_path` (108
    /// bytes with the terminating NUL) or contains a NUL.
    package static func unixAddress(_ path: [UInt8]) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity, !path.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        return address
    }

    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC [| SOCK_NONBLOCK], 0)`.
    package static func unixSocket(nonBlocking: Bool) -> Result<Int32, Errno> {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        return retrying { socket(AF_UNIX, type, 0) }
    }

    /// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK)`: the server's wake-up channel.
    package static func socketPair() -> Result<(Int32, Int32), Errno> {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        return retrying { socketpair(AF_UNIX, type, 0, &fds) }.map { _ in (fds[0], fds[1]) }
    }

    package static func bind(_ fd: Int32, _ address: sockaddr_un) -> Result<Void, Errno> {
        var address = address
        return retrying {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }.map { _ in () }
    }

    /// `connect(2)`. An interrupted connect on a Unix socket completes by itself, so EINTR is not
    /// retried here (a retry would give EISCONN); callers treat it as a failure.
    package static func connect(_ fd: Int32, _ address: sockaddr_un) -> Result<Void, Errno> {
        var address = address
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return rc == 0 ? .success(()) : .failure(Errno(rawValue: errno))
    }

    package static func listen(_ fd: Int32, backlog: Int32) -> Result<Void, Errno> {
        retrying { Glibc.listen(fd, backlog) }.map { _ in () }
    }

    /// `setsockopt(SO_RCVTIMEO)`: a blocking receive on `fd` fails with EAGAIN after `seconds`
    /// of silence.
    @discardableResult
    package static func setReceiveTimeout(_ fd: Int32, seconds: Int) -> Result<Void, Errno> {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        return retrying { setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) }.map { _ in () }
    }

    /// `accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)`.
    package static func accept(_ fd: Int32) -> Result<Int32, Errno> {
        retrying { shim_accept4(fd, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)) }
    }

    /// The peer's credentials, from `getsockopt(SO_PEERCRED)`.
    package static func peerCredentials(_ fd: Int32) -> Result<PeerCredentials, Errno> {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        return retrying { shim_peer_credentials(fd, &pid, &uid, &gid) }
            .map { _ in PeerCredentials(pid: pid, uid: uid, gid: gid) }
    }

    /// `send(2)` with MSG_NOSIGNAL (a closed peer gives EPIPE, never SIGPIPE).
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, nonBlocking: Bool) -> Result<Int, Errno> {
        let flags = Int32(MSG_NOSIGNAL) | (nonBlocking ? Int32(MSG_DONTWAIT) : 0)
        return retrying { Glibc.send(fd, bytes.baseAddress, bytes.count, flags) }
    }

    /// `sendmsg(2)` of `bytes` with `descriptor` attached (SCM_RIGHTS) unless it is -1; MSG_NOSIGNAL.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, passing descriptor: Int32) -> Result<Int, Errno> {
        retrying { shim_send_with_fd(fd, bytes.baseAddress, UInt(bytes.count), descriptor) }
    }

    /// `recvmsg(2)` into `buffer`: the count read (0 at the end) and the descriptor that came with
    /// it (close-on-exec), if any.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<(count: Int, descriptor: Int32?), Errno> {
        var passed: Int32 = -1
        return retrying { shim_receive_with_fd(fd, buffer.baseAddress, UInt(buffer.count), &passed) }
            .map { ($0, passed >= 0 ? passed : nil) }
    }

    /// `recvmsg(2)` into `buffer` with up to `max` descriptors (at most 8; any beyond are
    /// closed): the count read (0 at the end) and the descriptors that came with it.
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer,
                               descriptors max: Int) -> Result<(count: Int, descriptors: [Int32]), Errno> {
        var fds = [Int32](repeating: -1, count: 8)
        var count: Int32 = 0
        return retrying {
            count = 0
            return shim_receive_with_fds(fd, buffer.baseAddress, UInt(buffer.count), &fds, Int32(Swift.min(max, 8)), &count)
        }.map { ($0, Array(fds[0..<Int(count)])) }
    }
}
