import SystemPackage

/// What went wrong on the control channel, with what to do about it.
///
/// Callers of ``ControlClient/connect(_:expectedServerUID:)`` test for ``noDaemon(socket:)`` to fall
/// back to working on the index themselves. For example:
/// ```swift
/// do { let client = try ControlClient.connect(location); … }
/// catch .noDaemon { try updater.crawl(roots: roots) }   // nobody is watching: do it here
/// ```
package enum ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No daemon listens on the socket (it does not exist, or nobody accepts: ECONNREFUSED).
    case noDaemon(socket: String)
    /// A daemon already listens on the socket, or holds the lock of this index's control channel.
    case alreadyRunning(socket: String)
    /// The folder that holds the socket is not private to us (another owner, a symlink, not a
    /// folder, or writable by others).
    case unsafeDirectory(path: String, reason: String)
    /// Something that is not a socket sits where the socket belongs.
    case notASocket(path: String)
    /// The socket path does not fit in `sockaddr_un.sun_path` (107 bytes).
    case pathTooLong(path: String, limit: Int)
    /// The process listening on the socket runs as another user.
    case untrustedDaemon(socket: String, uid: UInt32, expected: UInt32)
    /// The daemon closed the connection.
    case disconnected
    /// The daemon did not answer in time.
    case timedOut(seconds: Double)
    /// A line from the other side is not a control message (bad JSON, unknown kind, too long).
    case protocolViolation(String)
    /// This client handed its connection to a subscription stream; use a new client.
    case connectionHandedOver
    /// A request line longer than the daemon takes (`WireFormat.maxRequestLine`): refused before
    /// anything is sent, rather than cut off half-way by the daemon.
    case requestTooLarge(size: Int, limit: Int)
    /// A system call failed.
    case system(operation: String, path: String?, errno: Errno)

    package var description: String {
        switch self {
        case let .noDaemon(socket):
            "no fsindexd is running for this index (nothing listens on \(socket)); start it, or work on the index directly"
        case let .alreadyRunning(socket):
            "another fsindexd is already running for this index (on \(socket)); stop it first, or use a different index directory"
        case let .unsafeDirectory(path, reason):
            "refusing to use \(path) for the control socket: \(reason); remove it, or set XDG_RUNTIME_DIR to a folder only you can write"
        case let .notASocket(path):
            "\(path) is in the way of the control socket and is not a socket; remove it and start the daemon again"
        case let .pathTooLong(path, limit):
            "the control socket path \(path) is longer than the \(limit) bytes a Unix socket allows; set XDG_RUNTIME_DIR to a shorter folder"
        case let .untrustedDaemon(socket, uid, expected):
            "the process listening on \(socket) runs as uid \(uid), not \(expected); refusing to talk to it (remove the socket if it is not yours)"
        case .disconnected:
            "the daemon closed the connection (it may have stopped or crashed); check its log and try again"
        case let .timedOut(seconds):
            "the daemon did not answer within \(seconds) s; it may be busy or hung (check its log)"
        case let .protocolViolation(reason):
            "the other side sent something that is not a control message (\(reason)); are the daemon and the tool the same version?"
        case let .requestTooLarge(size, limit):
            "the request is \(size) bytes; fsindexd takes request lines of at most \(limit) bytes (\(limit >> 20) MiB); send the items in several batches"
        case .connectionHandedOver:
            "this control connection was handed to a subscription; open a new connection for other requests"
        case let .system(operation, path, errno):
            "\(operation)\(path.map { " \($0)" } ?? "") failed: \(errno) (errno \(errno.rawValue))"
        }
    }
}
