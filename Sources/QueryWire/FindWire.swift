import CSysShims
// Embedded Swift (build-fsfind) has no Glibc module: CSysShims declares what it needs there.
#if canImport(Glibc)
import Glibc
#endif

/// The query socket's protocol: how `fsfind` hands its command line to a warm fsindexd.
///
/// Why a protocol of its own beside the control socket's JSON lines: `fsfind` is a small program
/// without Foundation (a query's cost was mostly the start of a 98 MB static binary), so it
/// cannot decode JSON cheaply, and it must pass its standard output and error along (SCM_RIGHTS),
/// so that the daemon writes the answer straight to the same terminal or pipe, byte for byte what
/// `fsfind-direct` would write.
///
/// One connection carries one query:
/// 1. fsfind sends one frame (`Request.encoded()`), with its descriptors 1 and 2 attached;
/// 2. fsindexd answers `fallback REASON\n` (nothing was written: run `fsfind-direct`), or
///    `serving\n`, then writes the answer to the descriptors, then `exit N\n`.
///
/// This module imports nothing but the C library, so that fsfind links it without Foundation;
/// the package's fsfind compiles it with Embedded Swift (Config/packaging/build-fsfind).
package enum FindWire {
    /// The first bytes of a request: the protocol and its version.
    package static let magic: [UInt8] = Array("FSQ1".utf8)
    /// A request longer than this is refused (the command line of Linux is at most 2 MiB).
    package static let maximumRequestBytes = 4 << 20

    /// The environment variables fsfind sends. The daemon answers only if those that change an
    /// answer and that it cannot apply per query (`mustMatch`) equal its own; it applies
    /// `NO_COLOR` itself and resolves the index folder with `XDG_DATA_HOME`, `HOME` and
    /// `FSINDEX_INDEX_DIR`.
    package static let environmentKeys = [
        "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "FSINDEX_INDEX_DIR", "NO_COLOR",
        "TZ", "LANG", "LC_ALL", "LC_CTYPE", "LC_TIME", "LC_COLLATE", "GIT_CONFIG_GLOBAL",
    ]
    /// Variables whose value the daemon's must equal: the config file's place (`HOME`,
    /// `XDG_CONFIG_HOME`), "me" (git's global config), and dates (`TZ` and the locale).
    package static let mustMatch: Set<String> = [
        "HOME", "XDG_CONFIG_HOME", "TZ", "LANG", "LC_ALL", "LC_CTYPE", "LC_TIME", "LC_COLLATE", "GIT_CONFIG_GLOBAL",
    ]

    /// One query: fsfind's arguments (after the program name), its working folder, the
    /// variables of `environmentKeys` it has, and its groups (real and effective group first).
    package struct Request: Equatable, Sendable {
        package var arguments: [[UInt8]]
        package var workingDirectory: [UInt8]
        /// `NAME=value` entries.
        package var environment: [[UInt8]]
        package var groups: [UInt32]

        // Spelled out, not `@MemberwiseInit`: this file is also compiled alone, as Embedded Swift,
        // into the small fsfind (Config/packaging/build-fsfind), where no macro runs.
        package init(arguments: [[UInt8]], workingDirectory: [UInt8], environment: [[UInt8]], groups: [UInt32]) {
            self.arguments = arguments
            self.workingDirectory = workingDirectory
            self.environment = environment
            self.groups = groups
        }

        /// The value of `name` in `environment`, or nil when fsfind did not have it.
        package func variable(_ name: String) -> [UInt8]? {
            let prefix = Array(name.utf8) + [UInt8(ascii: "=")]
            for entry in environment where entry.count >= prefix.count && Array(entry[..<prefix.count]) == prefix {
                return Array(entry[prefix.count...])
            }
            return nil
        }

        /// The frame: `magic`, the payload's length (u32, little-endian), then the payload:
        /// each list as a count followed by length-prefixed byte strings.
        package func encoded() -> [UInt8] {
            var payload: [UInt8] = []
            func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { payload.append(contentsOf: $0) } }
            func string(_ s: [UInt8]) { u32(s.count); payload.append(contentsOf: s) }
            u32(arguments.count); arguments.forEach(string)
            string(workingDirectory)
            u32(environment.count); environment.forEach(string)
            u32(groups.count); groups.forEach { u32(Int($0)) }
            var frame = magic
            withUnsafeBytes(of: UInt32(payload.count).littleEndian) { frame.append(contentsOf: $0) }
            return frame + payload
        }

        /// The payload's length from a frame's first 8 bytes, or nil if they are not a frame
        /// header of this version or announce more than `maximumRequestBytes`.
        package static func payloadLength(header: [UInt8]) -> Int? {
            guard header.count >= 8, Array(header[0..<4]) == FindWire.magic else { return nil }
            let n = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
            return n <= FindWire.maximumRequestBytes ? n : nil
        }

        /// Decodes a payload; nil when it is cut short, has bytes left over, or counts more
        /// entries than its length can hold.
        package init?(payload: [UInt8]) {
            var at = 0
            func u32() -> Int? {
                guard at + 4 <= payload.count else { return nil }
                defer { at += 4 }
                return Int(payload[at]) | Int(payload[at + 1]) << 8 | Int(payload[at + 2]) << 16 | Int(payload[at + 3]) << 24
            }
            func string() -> [UInt8]? {
                guard let n = u32(), at + n <= payload.count else { return nil }
                defer { at += n }
                return Array(payload[at..<at + n])
            }
            func list() -> [[UInt8]]? {
                guard let n = u32(), n <= payload.count / 4 else { return nil }
                var out: [[UInt8]] = []
                for _ in 0..<n { guard let s = string() else { return nil }; out.append(s) }
                return out
            }
            guard let arguments = list(), let cwd = string(), let environment = list(),
                  let groupCount = u32(), groupCount <= payload.count / 4 else { return nil }
            var groups: [UInt32] = []
            for _ in 0..<groupCount { guard let g = u32() else { return nil }; groups.append(UInt32(g)) }
            guard at == payload.count else { return nil }
            self.init(arguments: arguments, workingDirectory: cwd, environment: environment, groups: groups)
        }
    }

    /// What fsindexd says on the connection.
    package enum Reply: Equatable, Sendable {
        /// Nothing was written; run `fsfind-direct` (with the reason, for `FSFIND_TRACE`).
        case fallback(String)
        /// The daemon has started writing the answer: no fallback is possible any more.
        case serving
        /// The answer is complete; fsfind exits with this status.
        case exit(Int32)

        package var line: [UInt8] {
            switch self {
            case let .fallback(reason): Array("fallback \(reason.filter { $0 != "\n" })\n".utf8)
            case .serving: Array("serving\n".utf8)
            case let .exit(code): Array("exit \(code)\n".utf8)
            }
        }

        /// Parses one line (without its newline); nil for anything else.
        package init?(line: [UInt8]) {
            let text = String(decoding: line, as: UTF8.self)
            if text == "serving" { self = .serving; return }
            if text.hasPrefix("exit "), let code = Int32(text.dropFirst(5)) { self = .exit(code); return }
            if text.hasPrefix("fallback") { self = .fallback(String(text.dropFirst(9))); return }
            return nil
        }
    }

    /// The socket's file name beside the control socket: `<name>.find.sock`.
    package static func socketFileName(forIndexDirectory directory: [UInt8]) -> String {
        socketName(forIndexDirectory: directory) + ".find.sock"
    }

    /// The first 16 hex digits of the 64-bit FNV-1a hash of the index folder's bytes: the name
    /// of the index's sockets (`ControlLocation` uses it too), so two indexes get two daemons.
    package static func socketName(forIndexDirectory directory: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in directory {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The index folder fsfind names, as `IndexLocation.resolve` finds it: the last
    /// `--index-dir` before a lone `--`, else `FSINDEX_INDEX_DIR`, else
    /// `$XDG_DATA_HOME/fsindex/default` (`~/.local/share/fsindex/default`); relative to `cwd`
    /// and lexically normalized. Only a guess of which socket to try: the daemon parses the
    /// command line itself and declines a query for another index.
    package static func indexDirectory(arguments: [[UInt8]], variable: ([UInt8]) -> [UInt8]?, cwd: [UInt8]) -> [UInt8] {
        let option = Array("--index-dir".utf8)
        var explicit: [UInt8]?
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if a == Array("--".utf8) { break }
            if a == option, i < arguments.count {
                explicit = arguments[i]
                i += 1
            } else if a.count > option.count, Array(a[..<option.count]) == option, a[option.count] == UInt8(ascii: "=") {
                explicit = Array(a[(option.count + 1)...])
            }
        }
        if let explicit, !explicit.isEmpty { return absolute(explicit, cwd: cwd) }
        if let env = variable(Array("FSINDEX_INDEX_DIR".utf8)), !env.isEmpty { return absolute(env, cwd: cwd) }
        if let data = variable(Array("XDG_DATA_HOME".utf8)), data.first == UInt8(ascii: "/") {
            return normalized(data + Array("/fsindex/default".utf8))
        }
        let home = variable(Array("HOME".utf8)) ?? Array("/".utf8)
        return normalized(home + Array("/.local/share/fsindex/default".utf8))
    }

    /// `path` made absolute against `cwd`, lexically normalized.
    package static func absolute(_ path: [UInt8], cwd: [UInt8]) -> [UInt8] {
        path.first == UInt8(ascii: "/") ? normalized(path) : normalized(cwd + [UInt8(ascii: "/")] + path)
    }

    /// Lexical normalization as swift-system's `lexicallyNormalized()` does it for an absolute
    /// path: empty and `.` components dropped, `..` removing the one before it (never above `/`).
    package static func normalized(_ path: [UInt8]) -> [UInt8] {
        var parts: [ArraySlice<UInt8>] = []
        for part in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if part.elementsEqual([UInt8(ascii: ".")]) { continue }
            if part.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        var out: [UInt8] = []
        for part in parts { out.append(UInt8(ascii: "/")); out.append(contentsOf: part) }
        return out.isEmpty ? [UInt8(ascii: "/")] : out
    }

    /// The folder of the sockets, as `ControlLocation` chooses it: `$XDG_RUNTIME_DIR/fsindex`
    /// when that names an absolute folder of `owner`'s that it can write, else
    /// `/run/user/<uid>/fsindex` when logind made that folder (su, sudo and cron shells lose the
    /// variable but keep the folder), else `~/.cache/fsindex/run` in the home the password
    /// database gives `owner`, else `/tmp/fsindex-<uid>`.
    ///
    /// Why this order: `/tmp` is everybody's, so another user can create `/tmp/fsindex-<uid>`
    /// before we do, and every client then refuses it (``unsafeFolderReason(_:owner:)``): a
    /// planted folder kept fsindexd from starting. A runtime folder only we can write cannot be
    /// taken that way, and neither can a folder in our own home (the home is judged as the
    /// runtime folders are: ours, and no one else may write it). The home comes from the password
    /// database, not `$HOME`, so that the daemon and every client agree whatever their
    /// environments. `/tmp` stays the last resort, for a user without a home (`nobody`).
    package static func runtimeDirectory(runtime: [UInt8]?, owner: uid_t) -> [UInt8] {
        for candidate in [runtime, Array("/run/user/\(owner)".utf8)] {
            guard let candidate, candidate.first == UInt8(ascii: "/") else { continue }
            if isPrivateFolder(candidate, owner: owner, writable: true) { return candidate + Array("/fsindex".utf8) }
        }
        if let home = homeFolder(owner), isPrivateFolder(home, owner: owner, writable: false) {
            let folder = (home.last == UInt8(ascii: "/") ? Array(home.dropLast()) : home) + Array("/.cache/fsindex/run".utf8)
            // Room for `<16 hex>.find.sock` in a socket address (108 bytes with its NUL).
            if folder.count + 1 + 16 + 10 < 108 { return folder }
        }
        return Array("/tmp/fsindex-\(owner)".utf8)
    }

    /// A real folder of `owner`'s that nobody else can write (and, when asked, that we can).
    static func isPrivateFolder(_ path: [UInt8], owner: uid_t, writable: Bool) -> Bool {
        var st = stat()
        return withCString(path) { c in
            lstat(c, &st) == 0 && st.st_mode & FileType.mask == FileType.directory && st.st_uid == owner
                && st.st_mode & 0o022 == 0 && (!writable || access(c, W_OK | X_OK) == 0)
        }
    }

    /// `owner`'s home folder in the password database, when it has an absolute one
    /// (`getpwuid_r`: clients and fsindexd ask from any thread).
    static func homeFolder(_ owner: uid_t) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: 16384)
        // The entry's strings live in `buffer`: read them while it is held.
        let bytes: [UInt8]? = buffer.withUnsafeMutableBufferPointer { b in
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard let base = b.baseAddress, getpwuid_r(owner, &pw, base, b.count, &result) == 0, result != nil, let dir = pw.pw_dir else { return nil }
            let length = Int(strlen(dir))
            return dir.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
        guard let bytes, bytes.count > 1, bytes.first == UInt8(ascii: "/") else { return nil }
        return bytes
    }

    /// Why the socket folder `path` must not be used, or nil when it is safe: it must be a real
    /// folder (not a symbolic link) that belongs to `owner` and that nobody else can write.
    /// Whoever controls the folder controls which socket answers there, and a client hands the
    /// daemon its terminal, its arguments and its environment; so a client checks this before it
    /// connects, and the peer's user (SO_PEERCRED) after.
    package static func unsafeFolderReason(_ path: [UInt8], owner: uid_t) -> String? {
        var st = stat()
        let found = withCString(path) { lstat($0, &st) == 0 }
        guard found else { return nil }   // no folder: nothing listens there, and nothing is sent
        if st.st_mode & FileType.mask == FileType.symbolicLink { return "it is a symbolic link" }
        guard st.st_mode & FileType.mask == FileType.directory else { return "it is not a folder" }
        guard st.st_uid == owner else { return "it belongs to uid \(st.st_uid), not to you (uid \(owner))" }
        guard st.st_mode & 0o022 == 0 else { return "others can write to it (mode \(String(st.st_mode & 0o7777, radix: 8)))" }
        return nil
    }

    static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { p in p.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }
}

/// The file-type bits of `st_mode` (<sys/stat.h>), spelled out: with both the Glibc module and
/// the C library's headers in scope (CSysShims, for the Embedded Swift build), `S_IFMT` is two
/// declarations of two types.
enum FileType {
    static let mask: mode_t = 0o170000
    static let directory: mode_t = 0o040000
    static let symbolicLink: mode_t = 0o120000
}
