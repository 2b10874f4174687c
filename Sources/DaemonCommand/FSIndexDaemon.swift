import Desktop
import Configuration
import ArgumentParser
import CGlobalExecutor
import CSysShims
import CommandSupport
import Controlling
import FindCommand
import Crawling
import Dispatch
import Foundation
import Indexing
import SharedIndex
import Logging
import SystemCalls
import SystemPackage
import Updating
import Watching

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

        let location = index.location()
        // Everything the daemon is made of, or one message on what stopped it (exit 2).
        let (daemon, server, feeder) = try ToolRun.reporting("fsindexd") { () throws -> (IndexDaemon, ControlServer, SharedFeeder?) in
            let opened = try IndexStore.openRecovering(location: location, checkIntegrity: true)
            if opened.rebuilt { logger.warning("the index was damaged; it was moved aside and is rebuilt from the files") }
            let source = try InotifyEventSource(pollInterval: .seconds(settings.daemon.pollInterval),
                                                watchLimit: settings.daemon.watchLimit > 0 ? settings.daemon.watchLimit : nil,
                                                onNotice: { logger.warning("\($0)") })
            let daemon = IndexDaemon(store: opened.store, settings: settings, roots: resolved, source: source, logger: logger,
                                     rootsFromCommandLine: !roots.isEmpty)
            // The query socket beside it answers the small fsfind from this warm process.
            let server = try ControlServer(location: ControlLocation.forIndex(directory: location.directory),
                                           handler: DaemonControl(daemon: daemon, searchBox: SearchBoxAnswers(location: location, settings: settings,
                                                                                                              repair: WriterRepair(daemon: daemon))),
                                           findHandler: FindService(location: location, repair: WriterRepair(daemon: daemon)))
            // The shared index, when one is configured: this machine's items go there too.
            var feeder: SharedFeeder?
            if let sharedURL = settings.index.sharedURL(explicit: index.indexURL) {
                let url = try SharedIndexURL(sharedURL)
                let publisher = SharedPublisher(store: opened.store, url: url, host: settings.index.hostName(explicit: host.host))
                // What it watches, and the apps' domains: a root the local index holds but this
                // daemon does not watch would go stale in the shared index (issue 22).
                publisher.publishes = SharedPublisher.watching { [daemon] in daemon.watchedDomains }
                feeder = SharedFeeder(publisher: publisher) { logger.notice("\($0)") }
                logger.info("publishing to the shared index \(url) as host \(publisher.host)")
            }
            return (daemon, server, feeder)
        }
        daemon.setPublisher { [feeder] changes in
            server.publish(changes)
            feeder?.changed(changes.updated + changes.removed + changes.summarized + changes.prioritized)
        }
        if let feeder { daemon.setCrawlHandler { feeder.requestFullPass() } }
        let feederTask = feeder.map { feeder in Task { await feeder.run(clock: TimerClock()) } }
        let monitor = IndexFileMonitor(location: location) {
            if let problem = daemon.indexFileProblem() { daemon.submit(.fail(problem)) }
        }
        // The desktop's list of recently used files: each new visit is a use (`fsindex used`).
        let recentlyUsed = settings.daemon.followRecentlyUsed
            ? RecentlyUsedList.defaultLocation(environment: ProcessInfo.processInfo.environment).flatMap { daemon.followRecentlyUsed(file: $0) }
            : nil
        // Volumes (issue 29): each file system `[volumes]` chooses, indexed while it is mounted,
        // in an index of its own; the mount table wakes the watcher, no timer.
        let volumes = VolumeIndexer(indexDirectory: location.directory, settings: settings,
                                    home: ProcessInfo.processInfo.environment["HOME"], logger: logger,
                                    publish: { server.publish($0) })
        let mountWatcher = MountWatcher { volumes.refresh() }
        if mountWatcher == nil { logger.warning("cannot watch /proc/self/mountinfo: volumes mounted from now on are not noticed") }
        let volumesTask = Task { await volumes.run() }
        logger.info("watching \(resolved.count) roots; index \(location.directory.string); control \(server.location.socketPath.string)")

        // Signals become work for the single writer. Their handlers run on a queue of their own:
        // the global queue's threads can all be busy extracting (one per core), and a SIGTERM
        // handler waiting behind them would make stopping as slow as the crawl.
        let signalQueue = DispatchQueue(label: "fsindexd.signals")
        let signals = [SIGTERM, SIGINT, SIGHUP].map { sig -> any DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            s.setEventHandler { [index] in
                if sig == SIGHUP {
                    do {
                        let settings = try index.settings()
                        daemon.submit(.reload(settings))
                        volumes.reload(settings)
                    } catch {
                        logger.error("config not reloaded: \(error)")
                    }
                } else {
                    daemon.requestStop()
                    volumes.stop()
                    // The work at hand stops at its next file or batch; should one file's
                    // extraction or a database step still hold it, it does not hold the exit:
                    // every batch is a transaction, so exiting mid-way leaves the index
                    // consistent, and systemd never has to SIGKILL.
                    signalQueue.asyncAfter(deadline: .now() + .milliseconds(1800)) {
                        logger.warning("not stopped within 1.8 s of the signal; exiting now (the index is consistent; the next start resumes)")
                        _exit(0)
                    }
                }
            }
            s.resume()
            return s
        }
        await daemon.run()
        mountWatcher?.stop()
        volumes.stop()
        await volumesTask.value
        monitor?.stop()
        recentlyUsed?.stop()
        signals.forEach { $0.cancel() }
        // Not awaited: a publish pass under way ends on its own thread, and the exit does not
        // wait for a server (each batch is a transaction; the next start compares everything).
        feederTask?.cancel()
        server.stop()
        if let failure = daemon.failure {
            logger.critical("stopped: \(failure)")
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
