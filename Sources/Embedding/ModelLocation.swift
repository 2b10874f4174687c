import Glibc
import SystemCalls
import SystemPackage

/// Where the sentence model's files are, and whether they can be trusted.
///
/// The model is installed, never downloaded at run time: `Config/models/fetch-model` puts it
/// in `$XDG_DATA_HOME/fsindex/models/NAME` (checking each file's SHA-256), a package in
/// `/usr/share/fsindex/models/NAME`. Looked for, in order: `$FSINDEX_MODEL_DIR`, the user's
/// folder, then `../share/fsindex/models/NAME` beside the executable (installed).
///
/// A key design decision: a build's own folder (`.build`) is not looked in. A test suite that
/// installs the model there for the tests that ask for it would otherwise change, half-way
/// through, what every daemon and command of the other tests does.
package enum ModelLocation {
    /// The model FSIndex reads: all-MiniLM-L6-v2 (Apache-2.0), 384 dimensions.
    package static let name = "all-MiniLM-L6-v2"

    /// The folders looked in, in order.
    package static func candidates(environment: [String: String], executable: String?) -> [String] {
        var folders: [String] = []
        if let dir = environment["FSINDEX_MODEL_DIR"], !dir.isEmpty { folders.append(dir) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            folders.append(data + "/fsindex/models/" + name)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            folders.append(home + "/.local/share/fsindex/models/" + name)
        }
        if let executable, let slash = executable.lastIndex(of: "/") {
            let bin = String(executable[..<slash])
            folders.append(bin + "/../share/fsindex/models/" + name)
        }
        return folders
    }

    /// The first candidate that holds the model's two files.
    package static func find(environment: [String: String], executable: String?) throws(EmbeddingError) -> String {
        let folders = candidates(environment: environment, executable: executable)
        for folder in folders where access(folder + "/model.safetensors", F_OK) == 0 && access(folder + "/vocab.txt", F_OK) == 0 {
            return folder
        }
        throw .notInstalled(searched: folders)
    }

    /// The running executable's path (`/proc/self/exe`), for the folders beside it.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens a model file and checks it (`checkTrusted`): its descriptor and size.
    static func openTrusted(_ path: String) throws(EmbeddingError) -> (fd: Int32, size: Int) {
        let fd: Int32
        switch SystemCall.open(FilePath(path), O_RDONLY | O_CLOEXEC | O_NOFOLLOW) {
        case .success(let opened): fd = opened
        case .failure(let e): throw .unusable(file: path, reason: "\(e)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else { SystemCall.close(fd); throw .unusable(file: path, reason: "fstat failed") }
        do throws(EmbeddingError) { try checkTrusted(st, path: path) } catch { SystemCall.close(fd); throw error }
        return (fd, Int(st.st_size))
    }

    /// A model file is read only when it is a regular file of root's or the user's that no one
    /// else may write: its weights decide what a question finds.
    static func checkTrusted(_ st: stat, path: String) throws(EmbeddingError) {
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unusable(file: path, reason: "it is not a regular file") }
        guard st.st_uid == 0 || st.st_uid == getuid() else {
            throw .unusable(file: path, reason: "it belongs to user \(st.st_uid), neither root nor you")
        }
        guard st.st_mode & 0o022 == 0 else {
            throw .unusable(file: path, reason: "others may write it (mode \(String(st.st_mode & 0o777, radix: 8)))")
        }
    }
}
