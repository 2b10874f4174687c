import CSysShims
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

// The one place in Controlling with `-1` checks: each wrapper retries EINTR and returns
// `Result<_, Errno>`, so the layers above see typed errors.

/// `SystemCall.retrying`: EINTR retried, `-1` as the current `errno`.
@inline(__always)
private func retrying<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> { SystemCall.retrying(body) }

/// Builds a `sockaddr_un` for `path`, or nil when the path does not fit in `sun_path` (108 bytes
/// with the terminating NUL).
func makeUnixAddress(_ path: [UInt8]) -> sockaddr_un? {
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
func system_unixSocket(nonBlocking: Bool) -> Result<Int32, Errno> {
    var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
    return retrying { socket(AF_UNIX, type, 0) }
}

/// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK)`: the server's wake-up channel.
func system_socketPair() -> Result<(Int32, Int32), Errno> {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    return retrying { socketpair(AF_UNIX, type, 0, &fds) }.map { _ in (fds[0], fds[1]) }
}

func system_bind(_ fd: Int32, _ address: sockaddr_un) -> Result<Void, Errno> {
    var address = address
    return retrying {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }.map { _ in () }
}

/// `connect(2)`. An interrupted connect on a Unix socket completes by itself, so EINTR is not
/// retried here (a retry would give EISCONN); callers treat it as a failure.
func system_connect(_ fd: Int32, _ address: sockaddr_un) -> Result<Void, Errno> {
    var address = address
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    return rc == 0 ? .success(()) : .failure(Errno(rawValue: errno))
}

func system_listen(_ fd: Int32, backlog: Int32) -> Result<Void, Errno> {
    retrying { listen(fd, backlog) }.map { _ in () }
}

/// `accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)`.
func system_accept(_ fd: Int32) -> Result<Int32, Errno> {
    retrying { shim_accept4(fd, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)) }
}

/// The peer's credentials, from `getsockopt(SO_PEERCRED)`.
func system_peerCredentials(_ fd: Int32) -> Result<PeerCredentials, Errno> {
    var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
    return retrying { shim_peer_credentials(fd, &pid, &uid, &gid) }
        .map { _ in PeerCredentials(pid: pid, uid: uid, gid: gid) }
}

/// `send(2)` with MSG_NOSIGNAL (a closed peer gives EPIPE, never SIGPIPE).
func system_send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, nonBlocking: Bool) -> Result<Int, Errno> {
    let flags = Int32(MSG_NOSIGNAL) | (nonBlocking ? Int32(MSG_DONTWAIT) : 0)
    return retrying { send(fd, bytes.baseAddress, bytes.count, flags) }
}

func system_read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    retrying { read(fd, buffer.baseAddress, buffer.count) }
}

/// `poll(2)`; `timeout` in milliseconds, -1 for none. EINTR is returned as zero ready descriptors.
func system_poll(_ fds: inout [pollfd], timeout: Int32) -> Result<Int32, Errno> {
    let rc = poll(&fds, nfds_t(fds.count), timeout)
    if rc == -1 && errno == EINTR { return .success(0) }
    return rc == -1 ? .failure(Errno(rawValue: errno)) : .success(rc)
}

func system_lstat(_ path: [UInt8]) -> Result<stat, Errno> {
    var st = stat()
    return retrying { withCString(path) { lstat($0, &st) } }.map { _ in st }
}

func system_mkdir(_ path: [UInt8], _ mode: mode_t) -> Result<Void, Errno> {
    retrying { withCString(path) { mkdir($0, mode) } }.map { _ in () }
}

func system_chmod(_ path: [UInt8], _ mode: mode_t) -> Result<Void, Errno> {
    retrying { withCString(path) { chmod($0, mode) } }.map { _ in () }
}

func system_unlink(_ path: [UInt8]) -> Result<Void, Errno> {
    retrying { withCString(path) { unlink($0) } }.map { _ in () }
}

func system_access(_ path: [UInt8], _ mode: Int32) -> Bool {
    withCString(path) { access($0, mode) } == 0
}

/// Opens (creating with 0600) the lock file and takes `flock(LOCK_EX | LOCK_NB)` on it.
/// `.failure(EWOULDBLOCK)` means another process holds it.
func system_lockFile(_ path: [UInt8]) -> Result<Int32, Errno> {
    let fd: Int32
    switch retrying({ withCString(path) { open($0, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) } }) {
    case let .success(opened): fd = opened
    case let .failure(error): return .failure(error)
    }
    switch retrying({ flock(fd, LOCK_EX | LOCK_NB) }) {
    case .success: return .success(fd)
    case let .failure(error):
        close(fd)
        return .failure(error)
    }
}

func system_close(_ fd: Int32) {
    // Linux always releases the descriptor, even on EINTR: never retry close.
    _ = close(fd)
}

func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R { SystemCall.withCString(bytes, body) }

/// Who is at the other end of a connection, as the kernel reports it (`SO_PEERCRED`).
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

// MARK: - Threads

/// A joinable POSIX thread running `body` (`SystemCall.startThread`): the control server owns one
/// for its poll loop.
func system_startThread(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Errno> {
    SystemCall.startThread(body)
}
