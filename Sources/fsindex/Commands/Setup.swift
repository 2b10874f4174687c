import ArgumentParser
import CommandSupport
import Configuration
import Controlling
import Crawling
import FoundationEssentials
import Indexing
import SystemCalls
import SystemPackage
import Updating
import Glibc

extension FSIndexCommand {
    /// `fsindex setup`: from a fresh install to a running index in one command, and back with
    /// `--undo`.
    ///
    /// A key design decision: setup writes the resolved defaults into the user's config as plain
    /// `roots` and `shallow_roots`, so what is indexed is written down where the user edits it,
    /// instead of being recomputed at every start (a USB disk plugged in at the wrong moment
    /// would otherwise change the roots). What it writes carries a marker and a hash of its text
    /// on its first line: `--undo` removes only files it wrote and nobody changed since.
    struct Setup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set up indexing: write the config with the default roots, start fsindexd.",
            discussion: """
                Writes $XDG_CONFIG_HOME/fsindex/config.toml (unless one exists: it is left as it
                is) with the default roots written out: the XDG folders of user-dirs.dirs
                (Desktop, Documents, Downloads, Music, Pictures, Videos) that exist, at every
                depth, and the files directly in HOME (shallow_roots). Folders on network file
                systems or removable devices are left out, with the reason.

                Then it enables and starts the systemd user unit fsindexd.service (the package's,
                or one it writes to $XDG_CONFIG_HOME/systemd/user/ for the fsindexd beside this
                fsindex). Without a systemd user manager (containers, CI) it starts fsindexd in
                the background and says how to start it at login.

                `fsindex setup --undo` stops and disables the unit (or stops the running
                fsindexd), and removes the unit and config it wrote if they are unchanged. The
                index stays: `fsindex erase` deletes it.

                Examples:
                  fsindex setup            set up and start indexing; prints the roots
                  fsindex setup --json     the same, the outcome as one JSON object
                  fsindex setup --undo     stop indexing, remove what setup wrote
                """)

        @Flag(name: .long, help: "Stop indexing and remove the unit and config setup wrote (the index stays).")
        var undo = false

        @Flag(name: .long, help: "Print the outcome as one JSON object.")
        var json = false

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let environment = ProcessInfo.processInfo.environment
                if undo {
                    let report = try SetupUndo(environment: environment).run()
                    show(report)
                } else {
                    let report = try SetupRun(environment: environment).run()
                    show(report)
                }
            }
        }

        private func show(_ report: SetupReport) {
            if json {
                Output.standardOutput.writeJSONLine(report)
            } else {
                Output.standardOutput.write(report.text)
            }
            Output.standardOutput.flush()
        }
    }
}

/// What `fsindex setup` (or `--undo`) did, for the user or a script (`--json`).
struct SetupReport: Codable, Sendable {
    struct Root: Codable, Sendable {
        var path: String
        /// `recursive` or `files-only`.
        var depth: String
    }

    var config: String
    /// `written`, `kept` (it existed), `removed`, `left` (not ours, or changed since).
    var configAction: String
    var roots: [Root] = []
    var leftOut: [DefaultRoots.LeftOut] = []
    /// `systemd` or `none`.
    var manager: String
    /// The unit used (setup) or removed (undo), when systemd manages fsindexd.
    var unit: String?
    /// The pid of fsindexd when setup started it or found it running, or undo stopped it.
    var pid: Int32?
    /// What happened, one line each, in order.
    var steps: [String] = []
    var index: String

    /// The first step (the config), the roots and what was left out, then the other steps.
    var text: String {
        var out = ""
        if let first = steps.first { out += first + "\n" }
        if !roots.isEmpty {
            out += "indexed:\n"
            for r in roots { out += "  \(r.path)  (\(r.depth == IndexRoot.Depth.filesOnly.rawValue ? "files directly inside, no subfolders" : "recursive"))\n" }
        }
        if !leftOut.isEmpty {
            out += "left out:\n"
            for l in leftOut { out += "  \(l.path): \(l.reason)\n" }
        }
        for step in steps.dropFirst() { out += step + "\n" }
        return out
    }
}

/// Where setup's files go, and how it recognizes them later.
enum SetupFiles {
    /// The first line of every file setup writes: the marker, and the hash of what follows it.
    static func markerLine(for body: String) -> String {
        "# Written by `fsindex setup` (fnv1a64 \(hash(body))); `fsindex setup --undo` removes it while it is unchanged.\n"
    }

    /// FNV-1a, 64 bits, in hex: enough to tell a file the user edited from the one written.
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What a file setup may have written is: ours and unchanged, ours and changed, or not ours.
    enum Ownership { case unchanged, changed, notOurs, absent }

    static func ownership(of path: String) -> Ownership {
        guard case .success(let bytes) = SystemCall.readFile(path, limit: 1 << 20) else { return .absent }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("# Written by `fsindex setup` (fnv1a64 "), let newline = text.firstIndex(of: "\n") else { return .notOurs }
        let body = String(text[text.index(after: newline)...])
        return markerLine(for: body) == String(text[...newline]) ? .unchanged : .changed
    }

    /// Writes `body` under the marker to `path` (a temp file renamed into place), creating the
    /// folders above it.
    static func write(_ body: String, to path: String) throws(CommandFailure) {
        try makeDirectories(FilePath(path).removingLastComponent().string)
        let text = markerLine(for: body) + body
        let temp = path + ".tmp-\(getpid())"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CommandFailure("cannot write \(temp): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { SystemCall.write(fd, $0) }
        let synced = fsync(fd) == 0
        SystemCall.close(fd)
        guard case .success(let n) = written, n == bytes.count, synced, rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw CommandFailure("cannot write \(path): \(reason)")
        }
    }

    static func makeDirectories(_ path: String) throws(CommandFailure) {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw CommandFailure("cannot make the folder \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// `$XDG_CONFIG_HOME/systemd/user/fsindexd.service`: where a user's own unit goes.
    static func userUnitPath(environment: [String: String]) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? "") + "/.config")
        return base + "/systemd/user/fsindexd.service"
    }

    /// The package's unit: used as it is when it exists.
    static let packagedUnitPath = "/usr/lib/systemd/user/fsindexd.service"

    /// The config text with the roots written out: `roots` and `shallow_roots` as TOML arrays,
    /// and the folders left out as comments.
    static func configText(_ defaults: DefaultRoots) -> String {
        func array(_ paths: [String]) -> String {
            paths.isEmpty ? "[]" : "[\n" + paths.map { "    \(tomlString($0)),\n" }.joined() + "]"
        }
        var text = """
            # The roots fsindex found for you (the XDG folders that exist, and the files directly in
            # your home folder). Edit them freely, then: systemctl --user reload fsindexd
            # Every other setting and its default: /usr/share/doc/fsindex/fsindex.toml or `man fsindex.toml`.

            # Folders indexed at every depth.
            roots = \(array(defaults.recursive))

            # Folders whose files directly inside are indexed, without their subfolders.
            shallow_roots = \(array(defaults.filesOnly))

            """
        if !defaults.leftOut.isEmpty {
            text += "# Left out:\n" + defaults.leftOut.map { "#   \($0.path): \($0.reason)\n" }.joined()
        }
        return text
    }

    static func tomlString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
