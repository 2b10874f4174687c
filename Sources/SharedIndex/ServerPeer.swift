import NIOCore
import NIOPosix
import SystemCalls
import Glibc

/// The PostgreSQL server behind a Unix socket, checked as libpq's `requirepeer` checks it and
/// as every other socket client of FSIndex checks its peer: by the kernel's word
/// (`SO_PEERCRED`) on the connected socket itself, so the server checked is the one talked to.
///
/// The server must run as the user `requirepeer` names when the URL gives it; otherwise as
/// `postgres` (the user Debian's clusters run as), root, or this user (a cluster of one's own,
/// as the tests make). Another user's process listening at the path gets nothing.
enum ServerPeer {
    /// A NIO channel on the socket at `path`, connected and its server checked.
    static func connect(path: String, url: SharedIndexURL, on loop: any EventLoop) throws(SharedIndexError) -> any Channel {
        let u = url.description
        guard let address = SystemCall.unixAddress(Array(path.utf8)) else {
            throw .badURL(url: u, reason: "the socket path \(path) is too long")
        }
        let fd: Int32
        switch SystemCall.unixSocket(nonBlocking: false) {
        case .success(let s): fd = s
        case .failure(let e): throw .unreachable(url: u, detail: "socket: \(e)")
        }
        if case .failure(let e) = SystemCall.connect(fd, address) {
            SystemCall.close(fd)
            throw .unreachable(url: u, detail: "\(path): \(e)")
        }
        switch SystemCall.peerCredentials(fd) {
        case .success(let peer):
            if let why = refusal(peer.uid, requirePeer: url.requirePeer) {
                SystemCall.close(fd)
                throw .untrustedServer(url: u, detail: "\(path) is served by \(why)")
            }
        case .failure(let e):
            SystemCall.close(fd)
            throw .untrustedServer(url: u, detail: "the server's user at \(path) cannot be known (\(e))")
        }
        do {
            return try ClientBootstrap(group: loop)
                .withConnectedSocket(fd).wait()
        } catch {
            SystemCall.close(fd)
            throw .unreachable(url: u, detail: "\(error)")
        }
    }

    /// Why a server running as `uid` is not to be talked to, or nil.
    static func refusal(_ uid: uid_t, requirePeer: String?, user: uid_t = geteuid()) -> String? {
        if let requirePeer {
            guard let wanted = AccountNames.uid(ofUser: requirePeer) else { return "uid \(uid), and requirepeer names \(requirePeer), a user this machine does not have" }
            return uid == wanted ? nil : "\(name(uid)), not \(requirePeer) as requirepeer asks"
        }
        if uid == 0 || uid == user || uid == AccountNames.uid(ofUser: "postgres") { return nil }
        return "\(name(uid)), not postgres, root or you; if that is your server, add requirepeer=\(AccountNames.name(ofUser: uid) ?? String(uid)) to the URL"
    }

    /// "user NAME (uid N)", or the uid alone.
    static func name(_ uid: uid_t) -> String {
        AccountNames.name(ofUser: uid).map { "user \($0) (uid \(uid))" } ?? "uid \(uid)"
    }
}
