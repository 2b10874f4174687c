import Attributes
import Foundation
import SystemCalls
import SystemPackage
import TOMLKit
import Glibc

/// FSIndex's settings: one TOML file, read by one reader for every program (fsindex, fsindexd,
/// fsfind), in typed sections. The built-in values are the documented defaults of
/// `Config/fsindex.toml` (a test keeps the two equal); the user's file overrides them key by key.
///
/// This module depends on no other of ours: each stage turns its section into its own types
/// (`Updating` makes `WalkOptions` and `WorkerLimits`, `Querying` makes `RankingWeights`), so
/// reading the settings never links a stage it does not need.
package struct Settings: Sendable, Hashable {
    /// Folders indexed when no path is given, and watched by fsindexd, at every depth. nil (the
    /// key absent) with `shallowRoots` nil too: `DefaultRoots`, the user's XDG folders.
    package var roots: [String]? = nil
    /// Folders whose files directly inside are indexed, without their subfolders (the defaults
    /// put the home folder here); nil: the key is absent.
    package var shallowRoots: [String]? = nil
    /// Whether the roots were configured (either key present, even empty): if not, the defaults apply.
    package var rootsConfigured: Bool { roots != nil || shallowRoots != nil }
    package var crawl = Crawl()
    package var index = Index()
    package var extraction = Extraction()
    package var daemon = Daemon()
    package var query = Query()
    /// `[[provider]]`: apps whose donated items the index can ask for again.
    package var providers: [Provider] = []
    package var agent = Agent()
    package var desktop = Desktop()
    package var mail = Mail()
    package var volumes = Volumes()

    /// `[crawl]`: what a crawl enters.
    package struct Crawl: Sendable, Hashable {
        package var includeHidden = false
        package var exclude: [String] = ["*~", "*.swp", "*.tmp", "node_modules", "__pycache__"]
        package var markerFile = ".noindex"
        package var oneFileSystem = true
        package init() {}
    }

    /// `[index]`: how much is kept and how it is written.
    package struct Index: Sendable, Hashable {
        package var textCap = 1 << 20
        package var batchSize = 256
        /// 0: one per CPU core.
        package var threads = 0
        /// The shared PostgreSQL index (`postgresql://…`), or empty for the embedded SQLite one.
        package var url = ""
        /// The name this machine's items carry in the shared index (empty: the host name).
        package var host = ""
        package init() {}

        /// The shared index's URL a command uses: its `--index-url`, else `url`; nil for none.
        package func sharedURL(explicit: String?) -> String? {
            explicit ?? (url.isEmpty ? nil : url)
        }

        /// The host name a watcher publishes under: its `--host`, else `host`; nil: the
        /// machine's own name.
        package func hostName(explicit: String?) -> String? {
            explicit ?? (host.isEmpty ? nil : host)
        }
    }

    /// `[extraction]`: the limits of each sandboxed worker.
    package struct Extraction: Sendable, Hashable {
        package var memoryLimitMiB = 1024
        package var cpuSecondsPerFile = 20
        package var timeoutSeconds = 30.0
        /// The unprivileged user a worker started by root becomes (ignored when not root).
        package var workerUser = "nobody"
        /// Whether pictures and PDFs without text are read by OCR after extraction (issue 28);
        /// in effect only where Tesseract's data is installed (`Settings.recognition()`).
        package var ocr = true
        /// The Tesseract languages OCR reads (`eng`, `deu`, ...); empty: every installed pack.
        package var ocrLanguages: [String] = []
        package init() {}
    }

    /// `[daemon]`: fsindexd.
    package struct Daemon: Sendable, Hashable {
        package var logLevel = LogLevel.info
        /// Seconds between looks at folders that cannot be watched (inotify watches exhausted).
        package var pollInterval = 30
        package var throttle = Throttle.low
        /// Seconds a root that disappeared keeps its items before they are removed (0: at once).
        package var missingRootGrace = 300
        /// At most this many inotify watches (0: as many as `fs.inotify.max_user_watches` allows);
        /// folders beyond it are polled every `pollInterval`.
        package var watchLimit = 0
        /// Whether fsindexd follows the desktop's recently-used list
        /// (`$XDG_DATA_HOME/recently-used.xbel`): each new visit of an indexed file is a use.
        package var followRecentlyUsed = true
        package init() {}
    }

    /// `[query]`: how results with words are ranked, and how long a query may run.
    package struct Query: Sendable, Hashable {
        package var recencyWeight = 0.5
        package var usageWeight = 0.25
        package var decayDays = 30.0
        /// Seconds a query may take before it is stopped with an error naming this limit.
        package var timeLimit = 10.0
        /// Whether plain words that read as a question run in two stages (issue 43): the words
        /// in order, then any of their content words with their other forms, by how many.
        package var questions = true
        /// Whether a question's second stage reorders its best candidates by what they mean
        /// (issue 43): closeness of the sentence model's vectors of the question and of each
        /// file's name, title and description, once the semantic pass has read them.
        package var semantic = true
        package init() {}
    }

    /// `[desktop]`: the desktop's search boxes (GNOME Shell's search provider, KRunner) and
    /// opening results (`fsindex open`, `fsfind --open`).
    package struct Desktop: Sendable, Hashable {
        /// Results per search box query; the Shell shows a few, KRunner more.
        package var maxResults = 20
        /// The program (an argv, found on PATH) that opens a file or URL with the user's default
        /// application; the path or URL is its last argument.
        package var openCommand = ["xdg-open"]
        /// What the search box's "more results" (the Shell's `LaunchSearch`) runs, with the
        /// search terms as its last arguments.
        package var launchSearch = ["x-terminal-emulator", "-e", "fsfind"]
        package init() {}

        /// The most results one search box query may return.
        package static let maximumResults = 200
    }

    /// `[agent]`: fsindex-mcp, the index as a tool for language-model agents.
    package struct Agent: Sendable, Hashable {
        /// The folders the agent may search (`~` expanded like roots are); empty: the index's roots.
        package var scopes: [String] = []
        /// Results per search unless the call asks for fewer; at most 200.
        package var maxResults = 20
        /// `full` or `compact`.
        package var format = "full"
        /// `complete`, `focused:KIND,...` or `dynamic:TECHNIQUE,...` (text, names, dates, numbers, people, places).
        package var guidance = "complete"
        /// Who "me" is (`from:me`, `author:me`, `to:me`); nil: from passwd and git's config.
        package var me: Identity? = nil
        package init() {}

        /// The most results one search may return, whatever the call asks.
        package static let maximumResults = 200
        /// The values of `format`.
        package static let formats = ["full", "compact"]
        /// The techniques `guidance = "dynamic:…"` may name.
        package static let techniques = ["text", "names", "dates", "numbers", "people", "places"]
    }

    /// swift-log's levels, by their names in the file.
    package enum LogLevel: String, Sendable, Hashable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    /// How hard fsindexd may work.
    package enum Throttle: String, Sendable, Hashable, CaseIterable {
        /// nice 10 and idle I/O priority: indexing yields to everything else.
        case low
        /// The priorities it was started with.
        case normal
    }

    package init() {}

    /// The user's config file: `$XDG_CONFIG_HOME/fsindex/config.toml`, else `~/.config/fsindex/config.toml`.
    package static func userConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> FilePath {
        if let x = environment["XDG_CONFIG_HOME"], x.hasPrefix("/") { return FilePath(x + "/fsindex/config.toml") }
        return FilePath((environment["HOME"] ?? "") + "/.config/fsindex/config.toml")
    }

    /// Loads the settings: defaults, overridden by `explicit` (which must exist) or else by the
    /// user's config file if there is one.
    ///
    /// A file that another user owns or that others can write is not read (see
    /// `SettingsFileTrust`): `warn` is told which file and why, and the defaults are used, so a
    /// planted file changes nothing and the tool still works.
    package static func load(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                            warn: (String) -> Void = Settings.warnOnStandardError)
        throws(SettingsError) -> Settings
    {
        var s = Settings()
        // An explicit file comes from a command line: `ArgumentBytes` keeps a name that is not
        // UTF-8 as its bytes, and messages show it escaped.
        let file = explicit.map(ArgumentBytes.path) ?? userConfigPath(environment: environment)
        let path = explicit.map(ArgumentBytes.display) ?? file.string
        let contents: Result<[UInt8], Errno>
        switch SystemCall.open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) {
        case .success(let fd):
            defer { SystemCall.close(fd) }
            if let why = SettingsFileTrust.distrust(fd: fd, path: file) {
                warn("ignoring settings file \(path): \(why); using the defaults")
                return s
            }
            contents = SystemCall.readAll(fd, limit: maximumFileSize)
        case .failure(let e):
            contents = .failure(e)
        }
        switch contents {
        case .success(let bytes):
            try s.apply(toml: String(decoding: bytes, as: UTF8.self), file: path)
        case .failure(.noSuchFileOrDirectory) where explicit == nil:
            break   // no file of the user's: the defaults
        case .failure(.fileTooLarge):
            throw .unreadable(file: path, reason: "larger than \(maximumFileSize >> 20) MiB; is it the right file?")
        case .failure(let e):
            // An unreadable file of the user's is an error too, never silently the defaults.
            throw .unreadable(file: path, reason: String(cString: strerror(e.rawValue)))
        }
        return s
    }

    /// `load`'s default for a file it will not read: a line on standard error, as every tool
    /// prints its warnings (fsindexd's goes to its log).
    package static func warnOnStandardError(_ message: String) {
        let line = Array("\(ProcessInfo.processInfo.processName): warning: \(message)\n".utf8)
        line.withUnsafeBytes { _ = SystemCall.write(2, $0) }
    }

    /// Applies the keys present in `text` on top of these settings.
    package mutating func apply(toml text: String, file: String) throws(SettingsError) {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw .syntax(file: file, line: e.source.begin.line, message: e.description)
        } catch {
            throw .syntax(file: file, line: 0, message: "\(error)")
        }
        let reader = KeyReader(file: file, text: text)
        for key in table.keys {
            let v = table[key]!
            if key == "roots" { roots = try reader.roots(v, key); continue }
            if key == "shallow_roots" { shallowRoots = try reader.roots(v, key); continue }
            if key == "provider" { providers = try reader.providers(v); continue }
            guard ["crawl", "index", "extraction", "daemon", "query", "agent", "desktop", "mail", "volumes"].contains(key) else { throw reader.unknown(key) }
            guard let sub = v.table else { throw reader.bad(key, "a table [\(key)]") }
            for k in sub.keys {
                try apply(section: key, key: k, value: sub[k]!, reader)
            }
        }
    }

    private mutating func apply(section: String, key k: String, value v: any TOMLValueConvertible, _ r: KeyReader) throws(SettingsError) {
        let full = section + "." + k
        if try applyMail(full, v, r) { return }
        if try applyVolumes(full, v, r) { return }
        switch full {
        case "crawl.include_hidden": crawl.includeHidden = try r.bool(v, full)
        case "crawl.exclude": crawl.exclude = try r.strings(v, full)
        case "crawl.marker_file":
            guard let s = v.string, !s.isEmpty, !s.contains("/") else { throw r.bad(full, "a file name") }
            crawl.markerFile = s
        case "crawl.one_file_system": crawl.oneFileSystem = try r.bool(v, full)
        case "index.text_cap": index.textCap = try r.int(v, full, 0...Int.max, "a number of bytes (0 or more)")
        case "index.batch_size": index.batchSize = try r.int(v, full, 1...100_000, "a number from 1 to 100000")
        case "index.threads": index.threads = try r.int(v, full, 0...256, "a number from 0 to 256")
        case "index.url":
            guard let u = v.string, u.isEmpty || u.hasPrefix("postgresql://") || u.hasPrefix("postgres://") else {
                throw r.bad(full, "a PostgreSQL URL (postgresql://user@/database?host=/run/postgresql), or \"\" for the embedded index")
            }
            index.url = u
        case "index.host":
            guard let h = v.string, h.utf8.count <= 255, !h.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                throw r.bad(full, "a host name without spaces or slashes, or \"\" for this machine's name")
            }
            index.host = h
        case "extraction.memory_limit":
            extraction.memoryLimitMiB = try r.int(v, full, 256...65_536, "a number of MiB from 256 to 65536")
        case "extraction.cpu_limit":
            extraction.cpuSecondsPerFile = try r.int(v, full, 1...3600, "a number of seconds from 1 to 3600")
        case "extraction.timeout":
            extraction.timeoutSeconds = try r.number(v, full, 0.1...3600, "a number of seconds from 0.1 to 3600")
        case "extraction.worker_user":
            // Checked here, where the line is known, rather than by every worker as it starts.
            guard let name = v.string, !name.isEmpty, let entry = name.withCString({ getpwnam($0) }) else {
                throw r.bad(full, "the name of an existing unprivileged user (such as \"nobody\")")
            }
            guard entry.pointee.pw_uid != 0 else { throw r.bad(full, "an unprivileged user, not one with uid 0") }
            extraction.workerUser = name
        case "extraction.ocr": extraction.ocr = try r.bool(v, full)
        case "extraction.ocr_languages":
            // Tesseract's own spelling, "eng+deu"; each name is checked against the installed
            // packs when OCR starts (`Settings.recognition()`), where a missing one can be named.
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+")
            guard let list = v.string, list.allSatisfy(allowed.contains) else {
                throw r.bad(full, "Tesseract language names joined by +, such as \"eng+deu\" (\"\": every installed pack)")
            }
            extraction.ocrLanguages = list.split(separator: "+").map(String.init)
        case "daemon.log_level": daemon.logLevel = try r.choice(v, full)
        case "daemon.poll_interval": daemon.pollInterval = try r.int(v, full, 1...86_400, "a number of seconds from 1 to 86400")
        case "daemon.throttle": daemon.throttle = try r.choice(v, full)
        case "daemon.watch_limit":
            daemon.watchLimit = try r.int(v, full, 0...100_000_000, "a number of watches from 0 (the system's limit) to 100000000")
        case "daemon.follow_recently_used": daemon.followRecentlyUsed = try r.bool(v, full)
        case "daemon.missing_root_grace":
            daemon.missingRootGrace = try r.int(v, full, 0...31_536_000, "a number of seconds from 0 to 31536000")
        case "query.recency_weight": query.recencyWeight = try r.number(v, full, 0...10, "a number from 0 to 10")
        case "query.usage_weight": query.usageWeight = try r.number(v, full, 0...10, "a number from 0 to 10")
        case "query.decay_days": query.decayDays = try r.number(v, full, 0.001...3650, "a number of days from 1 to 3650")
        case "query.questions": query.questions = try r.bool(v, full)
        case "query.semantic": query.semantic = try r.bool(v, full)
        case "query.time_limit": query.timeLimit = try r.number(v, full, 0.001...86_400, "a number of seconds from 0.001 to 86400")
        case "agent.scopes": agent.scopes = try r.folders(v, full)
        case "agent.max_results":
            agent.maxResults = try r.int(v, full, 1...Agent.maximumResults, "a number of results from 1 to \(Agent.maximumResults) (the most one search returns)")
        case "agent.format":
            guard let s = v.string, Agent.formats.contains(s) else {
                throw r.bad(full, "one of " + Agent.formats.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            agent.format = s
        case "agent.guidance": agent.guidance = try r.guidance(v, full)
        case "agent.me": agent.me = try r.identity(v, full)
        case "desktop.max_results":
            desktop.maxResults = try r.int(v, full, 1...Desktop.maximumResults, "a number of results from 1 to \(Desktop.maximumResults)")
        case "desktop.open_command": desktop.openCommand = try r.command(v, full)
        case "desktop.launch_search": desktop.launchSearch = try r.command(v, full)
        default: throw r.unknown(full)
        }
    }

    /// A config file is a few KiB; anything past this is refused, not read.
    package static let maximumFileSize = 1 << 20
}

/// Reads typed values, and makes errors that name the file, the line of the key and the key.
struct KeyReader {
    let file: String
    let lines: [Substring]

    init(file: String, text: String) {
        self.file = file
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The line of `section.key` (or a top-level key): inside its `[section]`, so the same name
    /// in two sections is told apart; 0 when not found.
    func line(of key: String) -> Int {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        let (section, bare) = parts.count == 2 ? (parts[0], parts[1]) : ("", parts[0])
        var current = ""
        for (i, l) in lines.enumerated() {
            let t = l.drop { $0 == " " || $0 == "\t" }
            if t.hasPrefix("[") {
                current = String(t.dropFirst().prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                if current == key { return i + 1 }
                continue
            }
            if current == section, t.hasPrefix(bare), t.dropFirst(bare.count).drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("=") {
                return i + 1
            }
        }
        return 0
    }

    func bad(_ key: String, _ expected: String) -> SettingsError {
        .invalid(file: file, line: line(of: key), key: key, message: "expected \(expected)")
    }

    func unknown(_ key: String) -> SettingsError {
        .invalid(file: file, line: line(of: key), key: key, message: "unknown setting")
    }

    func bool(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> Bool {
        guard let b = v.bool else { throw bad(key, "true or false") }
        return b
    }

    func int(_ v: any TOMLValueConvertible, _ key: String, _ range: ClosedRange<Int>, _ expected: String) throws(SettingsError) -> Int {
        guard let i = v.int, range.contains(i) else { throw bad(key, expected) }
        return i
    }

    func number(_ v: any TOMLValueConvertible, _ key: String, _ range: ClosedRange<Double>, _ expected: String) throws(SettingsError) -> Double {
        guard let d = v.double ?? v.int.map(Double.init), range.contains(d) else { throw bad(key, expected) }
        return d
    }

    func strings(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> [String] {
        guard let a = v.array else { throw bad(key, "an array of strings") }
        var out: [String] = []
        for e in a {
            guard let s = e.string else { throw bad(key, "an array of strings") }
            out.append(s)
        }
        return out
    }

    /// A command as an argv: a non-empty array whose first string names the program.
    func command(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> [String] {
        let expected = "a command as an array, such as [\"xdg-open\"]"
        guard v.array != nil else { throw bad(key, expected) }
        let argv = try strings(v, key)
        guard let first = argv.first, !first.isEmpty else { throw bad(key, expected) }
        return argv
    }

    /// `roots` and `shallow_roots`: an array of paths, a leading `~` (alone or `~/…`) standing
    /// for HOME, as in agent scopes. Other paths are kept as written (they are resolved, and
    /// must exist, when a command uses them).
    func roots(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> [String] {
        var out: [String] = []
        for s in try strings(v, key) {
            guard s == "~" || s.hasPrefix("~/") else { out.append(s); continue }
            guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else {
                throw bad(key, "an array of folders; HOME is not set, so \"\(s)\" cannot be expanded")
            }
            out.append(home + s.dropFirst())
        }
        return out
    }

    func choice<E: RawRepresentable & CaseIterable>(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> E
        where E.RawValue == String {
        guard let s = v.string, let e = E(rawValue: s) else {
            throw bad(key, "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        return e
    }
}

/// A config file that cannot be used, with where and why.
package enum SettingsError: Error, Sendable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case syntax(file: String, line: Int, message: String)
    case invalid(file: String, line: Int, key: String, message: String)

    package var description: String {
        switch self {
        case let .unreadable(file, reason): "cannot read config file \(file): \(reason)"
        case let .syntax(file, line, message): "\(file):\(line): TOML syntax error: \(message)"
        case let .invalid(file, line, key, message): "\(file):\(line): \(key): \(message)"
        }
    }
}
