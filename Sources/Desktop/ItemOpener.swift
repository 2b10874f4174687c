import Attributes
import Configuration
import Foundation
import Indexing
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// Opens an item with the user's default application: a file by its path, a donated item by its
/// `contentURL`, through `[desktop] open_command` (xdg-open, which asks the desktop: GIO,
/// kde-open, or the `mimeapps.list` defaults that `xdg-mime default` sets).
@MemberwiseInit
package struct ItemOpener: Sendable {
    /// What the opening program gets.
    package enum Target: Sendable, Hashable {
        case file([UInt8])
        case url(String)

        /// The program's last argument, as bytes (a path need not be UTF-8).
        package var argument: [UInt8] {
            switch self {
            case .file(let path): path
            case .url(let url): Array(url.utf8)
            }
        }
    }

    package let command: [String]
    package let location: IndexLocation

    /// What opening `identifier` means: its file, which must exist, or a donated item's URL.
    package func target(for identifier: [UInt8]) throws(DesktopError) -> Target {
        let id = ItemIdentifier(bytes: identifier)
        if id.isDonated {
            let item: SearchableItem?
            do { item = try IndexStore(location: location, readOnly: true).item(id) } catch { throw .index(error) }
            guard let item else {
                throw .cannotOpen("\(ResultID.encode(identifier)): no such donated item in the index (DOMAIN:ID, as `fsfind --domain DOMAIN` prints it)")
            }
            guard let url = item.attributes[.contentURL]?.stringValue, !url.isEmpty else {
                throw .cannotOpen("\(ResultID.encode(identifier)): the app donated it without a contentURL, so there is nothing to open")
            }
            // What an app donated is data: opened only when it can do no more than show something.
            // The scheme the app declared as its own when it donated, besides the common ones.
            let appScheme = (try? IndexStore(location: location, readOnly: true).urlScheme(domain: item.domainIdentifier)) ?? nil
            if let why = OpenableURL.refusal(url, appScheme: appScheme) {
                throw .cannotOpen("\(ResultID.encode(identifier)): its contentURL is not opened: \(why)")
            }
            return .url(url)
        }
        // An item inside a file (a message of an mbox) opens as its file.
        let file = ItemIdentifier.split(identifier).file
        var st = stat()
        guard (file + [0]).withUnsafeBufferPointer({ p in p.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &st) } }) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            throw .cannotOpen("\(String(decoding: file, as: UTF8.self)): \(reason); the index will drop it once fsindexd sees the change")
        }
        // A launcher on a stick, named to look like a document, is not run from a search.
        if OpenableURL.isLauncher(file) {
            throw .cannotOpen("\(String(decoding: file, as: UTF8.self)): a .desktop launcher is never opened from a search; open its folder to look at it")
        }
        return .file(file)
    }

    /// Starts the opening program in a session of its own and returns its pid (the caller
    /// waits for it, or lets a thread reap it).
    package func start(_ target: Target) throws(DesktopError) -> pid_t {
        try Self.spawn(command, extra: [target.argument])
    }

    /// Runs `argv` + `extra` (found on PATH), in a new session, its output on ours.
    package static func spawn(_ argv: [String], extra: [[UInt8]]) throws(DesktopError) -> pid_t {
        guard let program = argv.first, let executable = Self.which(program) else {
            throw .opener("\(argv.first ?? "(no command)"): not found on PATH; install it (xdg-utils) or set [desktop] open_command")
        }
        let spawn = Spawn(executable: executable, arguments: argv + extra.map(ArgumentBytes.encode),
                          defaultSignals: [SIGPIPE], newSession: true)
        switch spawn.run() {
        case .success(let pid): return pid
        case .failure(let e): throw .opener("\(program) could not be started: \(e)")
        }
    }

    /// Waits for a started program; an error that names the status when it failed.
    package static func wait(_ pid: pid_t, program: String) throws(DesktopError) {
        var status: Int32 = 0
        // ECHILD: reaped already (SIGCHLD ignored by whoever started us); its status is gone.
        guard case .success = SystemCall.waitpid(pid, status: &status) else { return }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        if exited && code == 0 { return }
        let why = exited ? "exit status \(code)" : "signal \(status & 0x7f)"
        let hint = program.hasSuffix("xdg-open") && code == 3 ? " (no application is set for this type: `xdg-mime default APP.desktop TYPE`)"
            : program.hasSuffix("xdg-open") && code == 4 ? " (the application failed to open it)" : ""
        throw .opener("\(program) failed: \(why)\(hint)")
    }

    /// The program's path: as given when it has a slash, else the first executable on PATH.
    package static func which(_ program: String) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
