import FoundationEssentials
import SystemCalls
import SystemPackage
import Glibc

/// Where a named index lives: `$XDG_DATA_HOME/fsindex/<name>/index.sqlite` by default
/// (`~/.local/share/fsindex/default/`), or a directory given with `--index-dir` or
/// `FSINDEX_INDEX_DIR`.
///
/// A directory it creates is made with mode 0700; one that exists already keeps its mode (an
/// `--index-dir /tmp` must not make /tmp private: the database files are 0600 there instead).
/// It holds a `CACHEDIR.TAG`, so that backup tools skip it: the index is a cache that can always
/// be rebuilt from the files.
package struct IndexLocation: Sendable, Hashable {
    package var directory: FilePath
    package var databasePath: FilePath { directory.appending("index.sqlite") }

    /// The database path with a suffix of SQLite's (`-wal`, `-shm`), keeping the folder's bytes.
    package func databasePath(suffix: String) -> FilePath { FilePath(bytes: databasePath.bytes + Array(suffix.utf8)) }

    package init(directory: FilePath) { self.directory = directory }

    /// Resolves the location from an explicit directory, then `FSINDEX_INDEX_DIR`, then XDG.
    /// A relative directory is taken from `workingDirectory` when given (a client's: fsindexd
    /// answering for fsfind), else from this process's.
    package static func resolve(explicit: String?, name: String = "default",
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               workingDirectory: [UInt8]? = nil) -> IndexLocation {
        if let explicit, !explicit.isEmpty { return IndexLocation(directory: absolute(explicit, workingDirectory)) }
        if let env = environment["FSINDEX_INDEX_DIR"], !env.isEmpty { return IndexLocation(directory: absolute(env, workingDirectory)) }
        return IndexLocation(directory: xdgDataHome(environment).appending("fsindex").appending(name))
    }

    static func xdgDataHome(_ env: [String: String]) -> FilePath {
        if let d = env["XDG_DATA_HOME"], d.hasPrefix("/") { return FilePath(d) }
        let home = env["HOME"] ?? "/"
        return FilePath(home).appending(".local/share")
    }

    /// `s` as given on a command line (`ArgumentBytes`: a name that is not UTF-8 keeps its bytes).
    static func absolute(_ s: String, _ workingDirectory: [UInt8]? = nil) -> FilePath {
        let p = ArgumentBytes.path(s)
        if p.isAbsolute { return p.lexicallyNormalized() }
        if let workingDirectory { return FilePath(bytes: workingDirectory).pushing(p).lexicallyNormalized() }
        var buf = [CChar](repeating: 0, count: 4097)
        guard getcwd(&buf, buf.count) != nil else { return p }
        return FilePath(platformString: buf).pushing(p).lexicallyNormalized()
    }

    package var exists: Bool { databasePath.withPlatformString { access($0, F_OK) } == 0 }

    /// Creates the directory (0700, parents as needed) and its `CACHEDIR.TAG`. Only folders made
    /// here get 0700 (whatever the umask); an existing folder's mode is never changed.
    package func prepare() throws(IndexError) {
        if directory.withPlatformString({ access($0, F_OK) }) != 0 {
            try makeDirectories(directory)
            _ = directory.withPlatformString { chmod($0, 0o700) }
        }
        let tag = directory.appending("CACHEDIR.TAG")
        if tag.withPlatformString({ access($0, F_OK) }) != 0 {
            let text = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by fsindex.\n# The index can be rebuilt from the files: see https://bford.info/cachedir/\n"
            do {
                let fd = try FileDescriptor.open(tag, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                                 permissions: [.ownerReadWrite])
                defer { try? fd.close() }
                try fd.writeAll(Array(text.utf8))
            } catch {
                throw .directory(path: directory.string, errno: (error as? Errno)?.rawValue ?? 0, message: "\(error)")
            }
        }
    }

    private func makeDirectories(_ p: FilePath) throws(IndexError) {
        if p.withPlatformString({ access($0, F_OK) }) == 0 { return }
        let parent = p.removingLastComponent()
        if parent != p && !parent.isEmpty { try makeDirectories(parent) }
        if p.withPlatformString({ mkdir($0, 0o700) }) != 0 && errno != EEXIST {
            let e = errno
            throw .directory(path: p.string, errno: e, message: String(cString: strerror(e)))
        }
    }

    /// Removes the index files and the directory (if nothing else is in it).
    /// Returns whether anything was removed.
    @discardableResult
    package func erase() throws(IndexError) -> Bool {
        var removed = false
        for name in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal", "CACHEDIR.TAG"] {
            if directory.appending(name).withPlatformString({ unlink($0) }) == 0 { removed = true }
        }
        _ = directory.withPlatformString { rmdir($0) }
        return removed
    }
}
