import CSysShims
import MemberwiseInit
import SystemPackage
import Glibc

/// The one way a process of ours starts another: `posix_spawn` (no fork of a threaded Swift
/// process), with descriptors 3 and up closed in the child (nothing of ours leaks into it: a pipe
/// inherited by a long-lived child would keep its reader waiting), an empty signal mask, and
/// only the descriptor set-up listed in `actions`.
///
/// For example, the extraction worker: `Spawn(executable: path, arguments: [path, "--cpu-seconds", "20"],
/// actions: [.dup(toChild, 0), .dup(fromChild, 1)], defaultSignals: [SIGPIPE]).run()`.
@MemberwiseInit
package struct Spawn {
    package enum Action {
        /// Open `path` as descriptor `fd` in the child.
        case open(fd: Int32, path: String, flags: Int32, mode: mode_t)
        /// Make `from` the child's descriptor `to`.
        case dup(_ from: Int32, _ to: Int32)
    }

    package var executable: String
    /// The whole argument vector, `argv[0]` included. Each goes to the child as
    /// `ArgumentBytes.bytes(of:)`, so an argument we received that is not UTF-8 is passed on
    /// with its bytes (the daemon passes its `--root`s to its detached self).
    package var arguments: [String]
    /// The child's environment; nil for ours.
    package var environment: [String: String]? = nil
    package var actions: [Action] = []
    /// Signals whose handling goes back to the default in the child (ignored ones stay ignored
    /// otherwise: SIGPIPE ignored by us would be ignored by the child too).
    package var defaultSignals: [Int32] = []
    /// Start a new session, as a daemon does (no controlling terminal, own process group).
    package var newSession: Bool = false

    /// Starts the child; its pid, or why it could not start.
    package func run() -> Result<pid_t, Errno> {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        for action in actions {
            switch action {
            case let .open(fd, path, flags, mode): posix_spawn_file_actions_addopen(&fileActions, fd, path, flags, mode)
            case let .dup(from, to): posix_spawn_file_actions_adddup2(&fileActions, from, to)
            }
        }
        shim_spawn_close_from(&fileActions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK)
        if !defaultSignals.isEmpty {
            var dflt = sigset_t()
            sigemptyset(&dflt)
            for s in defaultSignals { sigaddset(&dflt, s) }
            posix_spawnattr_setsigdefault(&attr, &dflt)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF)
        }
        if newSession { flags |= 0x80 }   // POSIX_SPAWN_SETSID, a _GNU_SOURCE macro
        posix_spawnattr_setflags(&attr, Int16(flags))
        let cargs = arguments.map { argument in
            (ArgumentBytes.bytes(of: argument) + [0]).withUnsafeBytes { strdup($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        } + [nil]
        defer { cargs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc: Int32
        if let environment {
            let cenv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { cenv.forEach { free($0) } }
            rc = posix_spawn(&pid, executable, &fileActions, &attr, cargs, cenv)
        } else {
            rc = posix_spawn(&pid, executable, &fileActions, &attr, cargs, environ)
        }
        return rc == 0 ? .success(pid) : .failure(Errno(rawValue: rc))
    }
}
