import SystemCalls
import SystemPackage
import Glibc

/// Whether a settings file may be read, as OpenSSH's StrictModes decides for `~/.ssh/config`.
///
/// Settings name the programs FSIndex runs (`[desktop] open_command`, `[[provider]] reindex`),
/// so a file that another local user wrote, or could have rewritten, would run that user's
/// commands as this one: `fsfind --config=/tmp/evil.toml --open=1 x` was such a door. A file is
/// trusted when it belongs to this user (or root) and only its owner may write it, and the
/// folder that holds it belongs to this user (or root) and no one else may put another file in
/// its place there (a shared folder such as `/tmp` is fine when its sticky bit keeps others'
/// hands off this user's files). The file's own descriptor is checked, so the file read is the
/// file checked.
package enum SettingsFileTrust {
    /// Why `fd` (opened from `path`) is not to be trusted, or nil when it is.
    package static func distrust(fd: Int32, path: FilePath, user: uid_t = geteuid()) -> String? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return "it cannot be examined (\(String(cString: strerror(errno))))" }
        if let why = distrust(st, what: "it", user: user) { return why }
        // The folder it is in, as resolved (a link to a dotfiles folder is judged where it points).
        guard let real = SystemCall.withCString(path.bytes, { realpath($0, nil) }) else { return nil }
        defer { free(real) }
        let resolved = SystemCall.bytes(of: UnsafePointer(real))
        let slash = resolved.lastIndex(of: UInt8(ascii: "/")) ?? 0
        let folder = slash == 0 ? [UInt8(ascii: "/")] : Array(resolved[..<slash])
        guard case .success(let dir) = SystemCall.lstat(folder) else { return nil }
        let name = String(decoding: folder, as: UTF8.self)
        return distrust(dir, what: "its folder \(name)", user: user, folder: true)
    }

    static func distrust(_ st: stat, what: String, user: uid_t, folder: Bool = false) -> String? {
        if st.st_uid != user && st.st_uid != 0 {
            return "\(what) belongs to \(owner(st.st_uid)), not to you (uid \(user))"
        }
        let othersWrite = st.st_mode & (S_IWGRP | S_IWOTH) != 0
        if othersWrite && !(folder && st.st_mode & S_ISVTX != 0) {
            let mode = String(st.st_mode & 0o7777, radix: 8)
            return "\(what) can be written by others (mode \(mode)); `chmod go-w` it"
        }
        return nil
    }

    /// "user ada (uid 1001)", or the uid alone when it has no name.
    static func owner(_ uid: uid_t) -> String {
        guard let pw = getpwuid(uid), let name = pw.pointee.pw_name else { return "uid \(uid)" }
        return "user \(String(cString: name)) (uid \(uid))"
    }
}
