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

/// `fsindex setup`: the config, then the service (systemd's user unit, or fsindexd started here).
struct SetupRun {
    let environment: [String: String]

    func run() throws(CommandFailure) -> SetupReport {
        let configPath = Settings.userConfigPath(environment: environment).string
        let location = IndexLocation.resolve(explicit: nil, environment: environment, workingDirectory: nil)
        var report = SetupReport(config: configPath, configAction: "", manager: "none", index: location.directory.string)

        // 1. The config: the defaults written out, unless the user has one.
        if access(configPath, F_OK) == 0 {
            report.configAction = "kept"
            report.steps.append("config: \(configPath) exists; left as it is")
        } else {
            let defaults = DefaultRoots.resolve(environment: environment)
            guard !defaults.isEmpty else {
                let why = defaults.leftOut.map { "\($0.path): \($0.reason)" }.joined(separator: "; ")
                throw CommandFailure("no default folder can be indexed (\(why)); name folders in \(configPath) "
                                     + "(roots = [\"/path/to/folder\"]) and run `fsindex setup` again")
            }
            try SetupFiles.write(SetupFiles.configText(defaults), to: configPath)
            report.configAction = "written"
            report.steps.append("config: wrote \(configPath) with the default roots")
        }
        let settings: Settings
        do { settings = try Settings.load(explicit: nil, environment: environment) } catch { throw CommandFailure(error.description) }
        if !settings.rootsConfigured || report.configAction == "written" {
            report.leftOut = DefaultRoots.resolve(environment: environment).leftOut
        }
        let roots: [IndexRoot]
        do { roots = try IndexUpdater.roots(given: [], settings: settings, environment: environment) } catch {
            throw CommandFailure("\(error.description) (config: \(configPath))")
        }
        report.roots = roots.map { SetupReport.Root(path: $0.path.string, depth: $0.depth.rawValue) }

        // 2. The service.
        let daemon = try DaemonExecutable.locate(environment: environment)
        switch ServiceManager.detect(environment: environment) {
        case .systemd(let systemctl):
            report.manager = "systemd"
            var unit = SetupFiles.packagedUnitPath
            if access(unit, F_OK) != 0 {
                unit = SetupFiles.userUnitPath(environment: environment)
                if SetupFiles.ownership(of: unit) == .absent {
                    try SetupFiles.write(ServiceUnit.text(daemon: daemon), to: unit)
                    report.steps.append("unit: wrote \(unit) (ExecStart=\(daemon) --foreground)")
                } else {
                    report.steps.append("unit: \(unit) exists; used as it is")
                }
                _ = ServiceManager.run(systemctl, ["--user", "daemon-reload"])
            }
            let enabled = ServiceManager.run(systemctl, ["--user", "enable", "--now", "fsindexd.service"])
            guard enabled.status == 0 else {
                throw CommandFailure("systemctl --user enable --now fsindexd.service failed: \(enabled.output.trimmed); "
                                     + "see `journalctl --user -u fsindexd`")
            }
            report.unit = unit
            report.steps.append("fsindexd.service enabled and started (\(unit)); it starts at every login")
        case .unavailable(let reason):
            report.steps.append("no systemd user manager (\(reason)): starting fsindexd here, in the background")
            if let pid = runningDaemonPID(location) {
                report.pid = pid
                report.steps.append("fsindexd already runs for \(location.directory.string) (pid \(pid))")
            } else {
                let started = ServiceManager.run(daemon, [])
                guard started.status == 0 else {
                    throw CommandFailure("cannot start \(daemon): \(started.output.trimmed)")
                }
                report.pid = started.output.split(separator: "(pid ").last?.split(separator: ")").first.flatMap { Int32($0) }
                report.steps.append(started.output.trimmed)
                try awaitDaemon(report.pid, location: location)
            }
            report.steps.append("to start it at login, run `\(daemon)` from your session's startup programs "
                                + "(such as ~/.config/autostart/fsindexd.desktop with Exec=\(daemon)), "
                                + "or run `fsindex setup` again where systemd runs")
        }
        report.steps.append("fsfind WORDS searches; `fsindex status` shows progress; `fsindex setup --undo` reverses this")
        return report
    }
}

/// Waits (up to 30 s) until the fsindexd just started answers on its control socket, so that
/// what setup reports running does run (and `--undo` right after finds it).
private func awaitDaemon(_ pid: Int32?, location: IndexLocation) throws(CommandFailure) {
    for _ in 0..<300 {
        if runningDaemonPID(location) != nil { return }
        if let pid, case .failure(.noSuchProcess) = SystemCall.kill(pid, 0) { break }
        usleep(100_000)   // a real process starting, which answers when it is ready: no clock to inject
    }
    throw CommandFailure("fsindexd\(pid.map { " (pid \($0))" } ?? "") does not answer on its control socket; "
                         + "its log ($XDG_STATE_HOME/fsindex/fsindexd.log) says why")
}

/// `fsindex setup --undo`: the service stopped, setup's files removed while unchanged, the index kept.
struct SetupUndo {
    let environment: [String: String]

    func run() throws(CommandFailure) -> SetupReport {
        let configPath = Settings.userConfigPath(environment: environment).string
        let location = IndexLocation.resolve(explicit: nil, environment: environment, workingDirectory: nil)
        var report = SetupReport(config: configPath, configAction: "", manager: "none", index: location.directory.string)
        let userUnit = SetupFiles.userUnitPath(environment: environment)

        if case .systemd(let systemctl) = ServiceManager.detect(environment: environment) {
            report.manager = "systemd"
            let enabled = ServiceManager.run(systemctl, ["--user", "is-enabled", "--quiet", "fsindexd.service"]).status == 0
            let active = ServiceManager.run(systemctl, ["--user", "is-active", "--quiet", "fsindexd.service"]).status == 0
            if enabled || active {
                let r = ServiceManager.run(systemctl, ["--user", "disable", "--now", "fsindexd.service"])
                guard r.status == 0 else { throw CommandFailure("systemctl --user disable --now fsindexd.service failed: \(r.output.trimmed)") }
                report.steps.append("fsindexd.service stopped and disabled")
            } else {
                report.steps.append("fsindexd.service was neither enabled nor running")
            }
        }
        switch SetupFiles.ownership(of: userUnit) {
        case .unchanged:
            guard unlink(userUnit) == 0 else { throw CommandFailure("cannot remove \(userUnit): \(String(cString: strerror(errno)))") }
            report.unit = userUnit
            report.steps.append("removed \(userUnit)")
            if case .systemd(let systemctl) = ServiceManager.detect(environment: environment) {
                _ = ServiceManager.run(systemctl, ["--user", "daemon-reload"])
            }
        case .changed:
            report.steps.append("left \(userUnit): changed since setup wrote it")
        case .notOurs, .absent:
            break
        }

        // A daemon still serving the index (the one setup started without systemd, or by hand).
        if let pid = runningDaemonPID(location) {
            try stop(pid)
            report.pid = pid
            report.steps.append("stopped fsindexd (pid \(pid))")
        } else if report.manager == "none" {
            report.steps.append("no fsindexd was running for \(location.directory.string)")
        }

        switch SetupFiles.ownership(of: configPath) {
        case .unchanged:
            guard unlink(configPath) == 0 else { throw CommandFailure("cannot remove \(configPath): \(String(cString: strerror(errno)))") }
            report.configAction = "removed"
            report.steps.append("removed \(configPath)")
        case .changed:
            report.configAction = "left"
            report.steps.append("left \(configPath): changed since setup wrote it")
        case .notOurs:
            report.configAction = "left"
            report.steps.append("left \(configPath): not written by fsindex setup")
        case .absent:
            report.configAction = "absent"
        }
        report.steps.append("the index stays in \(location.directory.string); `fsindex erase` deletes it")
        return report
    }

    /// SIGTERM, then waits (up to 30 s) until the process is gone or a zombie nobody reaped yet.
    private func stop(_ pid: Int32) throws(CommandFailure) {
        guard case .success = SystemCall.kill(pid, SIGTERM) else {
            throw CommandFailure("cannot stop fsindexd (pid \(pid)): \(String(cString: strerror(errno)))")
        }
        if SystemCall.awaitExit(pid, milliseconds: 30_000) { return }
        throw CommandFailure("fsindexd (pid \(pid)) did not stop within 30 s of SIGTERM; `kill -9 \(pid)` ends it (the index stays consistent)")
    }
}

/// The pid of the fsindexd serving `location`, if one answers on its control socket.
func runningDaemonPID(_ location: IndexLocation) -> Int32? {
    guard let client = try? connectDaemon(location) else { return nil }
    defer { client.close() }
    return client.daemon.pid
}

/// Whether a systemd user manager runs for us, and its `systemctl`.
enum ServiceManager {
    case systemd(systemctl: String)
    case unavailable(reason: String)

    /// `systemctl --user show-environment` answers only when the user manager runs (it does not
    /// in most containers and CI jobs, nor over a bare `su`).
    static func detect(environment: [String: String]) -> ServiceManager {
        guard let systemctl = DaemonExecutable.search("systemctl", environment: environment) else {
            return .unavailable(reason: "systemctl is not installed")
        }
        let probe = run(systemctl, ["--user", "show-environment"])
        guard probe.status == 0 else {
            let said = probe.output.split(separator: "\n").first.map(String.init) ?? "exit status \(probe.status)"
            return .unavailable(reason: "`systemctl --user` failed: \(said)")
        }
        return .systemd(systemctl: systemctl)
    }

    /// Runs `executable` to its end; its exit status (127 when it could not start) and what it
    /// printed on stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        guard case .success(let pipe) = SystemCall.pipe() else { return (127, "cannot make a pipe") }
        let spawned = Spawn(executable: executable, arguments: [executable] + arguments,
                            actions: [.open(fd: 0, path: "/dev/null", flags: O_RDONLY, mode: 0), .dup(pipe.write, 1), .dup(pipe.write, 2)],
                            defaultSignals: [SIGPIPE]).run()
        SystemCall.close(pipe.write)
        defer { SystemCall.close(pipe.read) }
        guard case .success(let pid) = spawned else {
            if case .failure(let e) = spawned { return (127, "cannot run \(executable): \(e.description)") }
            return (127, "cannot run \(executable)")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { SystemCall.read(pipe.read, into: $0) }
            guard case .success(let count) = n, count > 0 else { break }
            if output.count < 1 << 20 { output += buffer[0..<count] }
        }
        var status: Int32 = 0
        _ = SystemCall.waitpid(pid, status: &status)
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, String(decoding: output, as: UTF8.self))
    }
}

/// The fsindexd to run: beside this fsindex.
enum DaemonExecutable {
    /// `fsindexd` in the folder of the path this fsindex was invoked by (which may be a symlink,
    /// such as /usr/bin/fsindex beside /usr/bin/fsindexd), else in the folder of the resolved
    /// executable (`/proc/self/exe`).
    static func locate(environment: [String: String]) throws(CommandFailure) -> String {
        var folders: [String] = []
        let invoked = CommandLine.arguments.first ?? ""
        if invoked.contains("/") {
            var absolute = invoked
            if !invoked.hasPrefix("/") {
                var cwd = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                if getcwd(&cwd, cwd.count) != nil { absolute = String(decoding: cwd.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + invoked }
            }
            folders.append(FilePath(absolute).removingLastComponent().string)
        } else if let found = search(invoked, environment: environment) {
            folders.append(FilePath(found).removingLastComponent().string)
        }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if realpath("/proc/self/exe", &resolved) != nil {
            folders.append(FilePath(platformString: resolved).removingLastComponent().string)
        }
        for folder in folders {
            let candidate = folder + "/fsindexd"
            var st = stat()
            if stat(candidate, &st) == 0, st.st_mode & S_IFMT == S_IFREG, SystemCall.isExecutable(candidate) { return candidate }
        }
        throw CommandFailure("no executable fsindexd beside this fsindex (looked in \(folders.joined(separator: ", "))); install fsindexd there")
    }

    /// `name` in `PATH`, as the shell finds it.
    static func search(_ name: String, environment: [String: String]) -> String? {
        guard !name.isEmpty, !name.contains("/") else { return nil }
        for dir in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where dir.hasPrefix("/") {
            let candidate = dir + "/" + name
            if SystemCall.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}

extension String {
    fileprivate var trimmed: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
