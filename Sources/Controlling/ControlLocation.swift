import Attributes
import FoundationEssentials
import MemberwiseInit
import QueryWire
import SystemCalls
import SystemPackage
import Glibc

/// Where the control socket of one index lives: `$XDG_RUNTIME_DIR/fsindex/<name>.sock`, else
/// `/run/user/<uid>/fsindex/<name>.sock`, else `~/.cache/fsindex/run/<name>.sock` in the user's
/// home, or `/tmp/fsindex-<uid>/<name>.sock` only for a user without one (see
/// `FindWire.runtimeDirectory`).
///
/// `<name>` is the first 16 hex digits of the FNV-1a hash of the index directory's bytes, so two
/// indexes get two daemons and two sockets. For example:
/// ```swift
/// let location = ControlLocation.forIndex(directory: FilePath("/home/ada/.local/share/fsindex/default"))
/// // /run/user/1000/fsindex/3c1a2e9f0b7d4c55.sock
/// ```
/// The folder is made with mode 0700 and must belong to us; the server refuses anything else
/// (another owner, a symlink, a folder others can write), because whoever controls the folder can
/// put their own socket in our place. Next to the socket, `<name>.lock` is held with `flock(2)`
/// while a server runs, so that two daemons starting at once cannot both claim the socket (the
/// empty lock file stays: removing it would reopen that race).
@MemberwiseInit
package struct ControlLocation: Sendable, Hashable, CustomStringConvertible {
    /// The private folder holding the socket.
    package var directory: FilePath
    /// The socket's file name without `.sock` (also the lock file's).
    package var name: String
    /// The user the folder must belong to.
    package var owner: uid_t = geteuid()

    package var socketPath: FilePath { directory.appending("\(name).sock") }
    /// The query socket of the small fsfind (`FindWire`), beside the control socket.
    package var findSocketPath: FilePath { directory.appending("\(name).find.sock") }
    package var lockPath: FilePath { directory.appending("\(name).lock") }
    package var description: String { socketPath.string }

    /// The control location of the index in `indexDirectory` (as given: pass the same absolute,
    /// normalized directory on the daemon and the client side, such as `IndexLocation.directory`).
    package static func forIndex(directory indexDirectory: FilePath,
                                environment: [String: String] = ProcessInfo.processInfo.environment,
                                owner: uid_t = geteuid()) -> ControlLocation {
        ControlLocation(directory: runtimeDirectory(environment: environment, owner: owner),
                        name: socketName(forIndexDirectory: indexDirectory), owner: owner)
    }

    /// The first 16 hex digits of the 64-bit FNV-1a hash of the directory's bytes.
    package static func socketName(forIndexDirectory indexDirectory: FilePath) -> String {
        FindWire.socketName(forIndexDirectory: indexDirectory.bytes)
    }

    /// `$XDG_RUNTIME_DIR/fsindex` when that variable names an absolute folder of ours that we can
    /// write, else `/run/user/<uid>/fsindex` when that is ours, else `~/.cache/fsindex/run`, else
    /// `/tmp/fsindex-<uid>`.
    static func runtimeDirectory(environment: [String: String], owner: uid_t) -> FilePath {
        FilePath(bytes: FindWire.runtimeDirectory(runtime: environment["XDG_RUNTIME_DIR"].map { Array($0.utf8) }, owner: owner))
    }

    /// Creates the folder with mode 0700 if needed, and checks that it is a real folder that
    /// belongs to ``owner`` and that nobody else can write; a folder of ours with a wider mode is
    /// narrowed to 0700.
    package func prepareDirectory() throws(ControlError) {
        let path = directory.bytes
        let shown = ByteString.escaped(path, escapeControls: true)
        switch SystemCall.mkdir(path, 0o700) {
        case .success, .failure(.fileExists): break
        case .failure(.noSuchFileOrDirectory):
            // The fallback in the home (`~/.cache/fsindex/run`) may lack its parents: made as
            // `mkdir -p` makes them, private to the user.
            var partial: [UInt8] = []
            for component in path.split(separator: UInt8(ascii: "/")) {
                partial += [UInt8(ascii: "/")] + component
                switch SystemCall.mkdir(partial, 0o700) {
                case .success, .failure(.fileExists): break
                case let .failure(errno): throw .system(operation: "mkdir", path: ByteString.escaped(partial, escapeControls: true), errno: errno)
                }
            }
        case let .failure(errno): throw .system(operation: "mkdir", path: shown, errno: errno)
        }
        let st: stat
        switch SystemCall.lstat(path) {
        case let .success(found): st = found
        case let .failure(errno): throw .system(operation: "lstat", path: shown, errno: errno)
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeDirectory(path: shown, reason: st.st_mode & S_IFMT == S_IFLNK ? "it is a symbolic link" : "it is not a folder")
        }
        guard st.st_uid == owner else {
            throw .unsafeDirectory(path: shown, reason: "it belongs to uid \(st.st_uid), not to you (uid \(owner))")
        }
        guard st.st_mode & 0o022 == 0 else {
            throw .unsafeDirectory(path: shown, reason: "others can write to it (mode \(String(st.st_mode & 0o7777, radix: 8)))")
        }
        if st.st_mode & 0o7777 != 0o700, case let .failure(errno) = SystemCall.chmod(path, 0o700) {
            throw .system(operation: "chmod 700", path: shown, errno: errno)
        }
    }

    /// A client's check before it connects: the folder, if it exists, must be a real folder of
    /// ``owner``'s that nobody else can write (it is never created or changed here). A planted
    /// `/tmp/fsindex-<uid>` would otherwise collect what a client sends.
    package func checkDirectory() throws(ControlError) {
        if let reason = FindWire.unsafeFolderReason(directory.bytes, owner: owner) {
            throw .unsafeDirectory(path: ByteString.escaped(directory.bytes, escapeControls: true), reason: reason)
        }
    }

    var socketBytes: [UInt8] { socketPath.bytes }
    var shownSocket: String { ByteString.escaped(socketBytes, escapeControls: true) }

    /// The socket address, or `.pathTooLong`.
    func socketAddress() throws(ControlError) -> sockaddr_un {
        guard let address = SystemCall.unixAddress(socketBytes) else {
            throw .pathTooLong(path: shownSocket, limit: MemoryLayout<sockaddr_un>.size - MemoryLayout<sa_family_t>.size - 1)
        }
        return address
    }
}
