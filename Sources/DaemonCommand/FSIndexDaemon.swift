import Configuration
import ArgumentParser
import CGlobalExecutor
import CSysShims
import CommandSupport
import Foundation
import Logging
import ServiceLifecycle
import SystemCalls
import SystemPackage
import Updating

/// `fsindexd`: the background watcher. Crawls the roots once, then follows changes with inotify.
/// A library command, run by the `fsindexd` executable and by the multi-call `fsindex` when it
/// is started as `fsindexd`.
package struct FSIndexDaemon: AsyncParsableCommand {
    /// Parses the process's arguments as bytes (`ArgumentBytes`), so a path that is not UTF-8
    /// keeps its bytes instead of turning into U+FFFD.
    package static func main() async {
        prepareProcess()
        await main(ArgumentBytes.arguments())
    }

    /// What the process does before its first `await`, called by every entry point before it
    /// awaits `main()`: Swift's global jobs go to libdispatch's overcommit queue, so that an
    /// idle daemon has no thread that wakes (issue 14; `CGlobalExecutor`); and two malloc
    /// arenas, as `fsindex` (see `SystemCall.limitMallocArenas`). It must come first: `main()`
    /// is a nonisolated async function, so the call from an entry point's main actor already
    /// runs on the global queue, whose first job starts libdispatch's once-a-second monitor.
    package static func prepareProcess() {
        SystemCall.limitMallocArenas(2)
        SystemCall.nameAfterCommand(CommandLine.arguments.first ?? "fsindexd")
        fsindex_install_overcommit_executor()
    }

    package static let configuration = CommandConfiguration(
        commandName: "fsindexd",
        abstract: "Keep the FSIndex index in step with the configured folders.",
        discussion: """
            Watches the config's roots (or --root PATH instead; with none configured, the XDG
            folders and the files directly in HOME) with inotify: files saved, moved or deleted
            are found (or gone) a moment later. On start it reconciles the index with the disk,
            so changes made while it was not running are picked up.

            Signals: SIGTERM stops within 2 s at any point (a first crawl included; the next start
            resumes) and exits 0; SIGHUP reloads the config
            (roots added are crawled, roots removed lose their items; roots given with --root
            stay as they are).
            It follows the desktop's list of recently used files ($XDG_DATA_HOME/recently-used.xbel,
            which GTK and KDE applications write when a file is opened): each new visit of a file
            inside a root is a use, as with `fsindex used` ([daemon] follow_recently_used).
            Control it with `fsindex status`, `fsindex pause`, `fsindex resume`, `fsindex reindex`.
            Under systemd, use the user unit in Config/fsindexd.service.
            """)

    @OptionGroup var index: IndexOptions
    @OptionGroup var host: HostOption

    @Option(name: .customLong("root"), help: ArgumentHelp("A folder to watch instead of the config's roots (repeatable).", valueName: "path"))
    var roots: [String] = []

    @Flag(name: .long, help: "Stay in the foreground (for systemd and terminals). Without it, fsindexd detaches and logs to $XDG_STATE_HOME/fsindex/fsindexd.log.")
    var foreground = false

    package init() {}

    package func run() async throws {
        let (settings, resolved) = try ToolRun.reporting("fsindexd") {
            let settings = try index.settings()
            return (settings, try IndexUpdater.roots(given: roots, settings: settings))
        }
        if !foreground {
            try detach()
            return
        }
        LoggingSystem.bootstrap { label in
            var h = OneLineLogHandler(inner: StreamLogHandler.standardError(label: label))
            h.logLevel = Logger.Level(rawValue: settings.daemon.logLevel.rawValue) ?? .info
            return h
        }
        let logger = Logger(label: "fsindexd")
        if settings.daemon.throttle == .low {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            _ = shim_ioprio_idle()
        }

        let environment = ProcessInfo.processInfo.environment
        let plan = DaemonParts.Plan(settings: settings, location: index.location(), roots: resolved, rootsFromCommandLine: !roots.isEmpty,
                                    shared: settings.index.sharedURL(explicit: index.indexURL).map { ($0, settings.index.hostName(explicit: host.host)) },
                                    environment: environment)
        // Everything the daemon is made of, or one message on what stopped it (exit 2).
        let parts = try ToolRun.reporting("fsindexd") { try DaemonParts.make(plan, logger: logger) }
        do {
            try await parts.group(readSettings: { [index] in try index.settings() }).run()
        } catch {
            logger.critical("stopped: \(error)")
            throw ExitCode(1)
        }
        logger.info("stopped")
    }

    /// The arguments of the `--foreground` process `detach()` starts: every option as it was
    /// parsed (the index's, `--host`, each `--root`), so that the daemon in the background is
    /// the one asked for.
    var foregroundArguments: [String] {
        ["--foreground"] + index.arguments + host.arguments + roots.flatMap { ["--root", $0] }
    }

    /// Starts `fsindexd --foreground` in a new session with its output in the state folder, and
    /// returns once it runs.
    private func detach() throws {
        let env = ProcessInfo.processInfo.environment
        let stateHome = env["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? "/tmp") + "/.local/state")
        let logDir = stateHome + "/fsindex"
        try? FileManager.default.createDirectory(atPath: logDir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let logPath = logDir + "/fsindexd.log"
        let args = [CommandLine.arguments[0]] + foregroundArguments

        // Nothing else of ours goes along (`Spawn` closes descriptors 3 and up): a pipe inherited
        // from whoever started us would stay open for as long as the daemon runs, and a reader
        // waiting for its end would hang.
        let started = Spawn(executable: "/proc/self/exe", arguments: args,
                            actions: [.open(fd: 0, path: "/dev/null", flags: O_RDONLY, mode: 0),
                                      .open(fd: 1, path: logPath, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600),
                                      .dup(1, 2)],
                            newSession: true).run()
        guard case .success(let pid) = started else {
            if case .failure(let e) = started { Output.error("fsindexd", "cannot start in the background: \(String(cString: strerror(e.rawValue)))") }
            throw ExitCode(2)
        }
        Output.standardOutput.write("fsindexd started (pid \(pid)); log: \(logPath)\n")
        Output.standardOutput.flush()
    }
}
