import Crawling
import Foundation
import Isolation
import Querying
import SystemPackage
import TOMLKit
#if canImport(Glibc)
import Glibc
#endif

/// FSIndex's settings, read from TOML: the documented defaults in `Config/fsindex.toml` (compiled
/// in as `Settings.defaultsTOML`), then the user's file, which overrides key by key.
public struct Settings: Sendable, Hashable {
    public var roots: [String] = []
    public var includeHidden = false
    public var exclude: [String] = ["*~", "*.swp", "*.tmp", "node_modules", "__pycache__"]
    public var markerFile = ".noindex"
    public var oneFileSystem = true
    public var textCap = 1 << 20
    public var batchSize = 256
    public var threads = 0
    /// fsindexd: log level (trace, debug, info, notice, warning, error, critical).
    public var logLevel = "info"
    /// fsindexd: seconds between looks at folders that cannot be watched (inotify watches exhausted).
    public var pollInterval = 30
    /// fsindexd: "low" runs at nice 10 with idle I/O priority; "normal" leaves priorities alone.
    public var throttle = "low"
    /// The limits of each sandboxed extraction worker (`[extraction]`).
    public var workerLimits = WorkerLimits()
    /// How `fsfind` ranks (`[query]`); `fsfind` reads the table itself, this validates it.
    public var ranking = RankingWeights()

    public init() {}

    public var walkOptions: WalkOptions {
        WalkOptions(exclusions: ExclusionRules(includeHidden: includeHidden, patterns: exclude, markerFile: markerFile),
                    oneFileSystem: oneFileSystem)
    }

    /// The user's config file: `$XDG_CONFIG_HOME/fsindex/config.toml`, else `~/.config/fsindex/config.toml`.
    public static func userConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> FilePath {
        FilePath(QuerySettings.userConfigPath(environment: environment))
    }

    /// Loads the settings: defaults, overridden by `explicit` (which must exist) or else by the
    /// user's config file if there is one.
    public static func load(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SettingsError) -> Settings
    {
        var s = Settings()
        if let explicit {
            guard let text = readFile(explicit) else {
                throw .unreadable(file: explicit, reason: String(cString: strerror(errno)))
            }
            try s.apply(toml: text, file: explicit)
        } else {
            let path = userConfigPath(environment: environment).string
            if let text = readFile(path) { try s.apply(toml: text, file: path) }
        }
        return s
    }

    /// Applies the keys present in `text` on top of these settings.
    public mutating func apply(toml text: String, file: String) throws(SettingsError) {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw .syntax(file: file, line: e.source.begin.line, message: e.description)
        } catch {
            throw .syntax(file: file, line: 0, message: "\(error)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func line(of key: String) -> Int {
            let bare = key.split(separator: ".").last.map(String.init) ?? key
            for (i, l) in lines.enumerated() {
                let t = l.trimmingCharacters(in: .whitespaces)
                if t.hasPrefix(bare + " ") || t.hasPrefix(bare + "=") { return i + 1 }
            }
            return 0
        }
        func bad(_ key: String, _ expected: String) -> SettingsError {
            .invalid(file: file, line: line(of: key), key: key, message: "expected \(expected)")
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
        for key in table.keys {
            let v = table[key]!
            switch key {
            case "roots": roots = try strings(v, key)
            case "query":
                guard let sub = v.table else { throw bad(key, "a table [query]") }
                for k in sub.keys {
                    if let expected = QuerySettings.apply(k, sub[k]!, to: &ranking) {
                        throw .invalid(file: file, line: line(of: "query." + k), key: "query." + k,
                                       message: expected.hasSuffix("(unknown setting)") ? "unknown setting" : "expected \(expected)")
                    }
                }
            case "crawl", "index", "daemon", "extraction":
                guard let sub = v.table else { throw bad(key, "a table [\(key)]") }
                for k in sub.keys {
                    let full = key + "." + k
                    let sv = sub[k]!
                    switch full {
                    case "crawl.include_hidden": guard let b = sv.bool else { throw bad(full, "true or false") }; includeHidden = b
                    case "crawl.exclude": exclude = try strings(sv, full)
                    case "crawl.marker_file":
                        guard let s = sv.string, !s.isEmpty, !s.contains("/") else { throw bad(full, "a file name") }
                        markerFile = s
                    case "crawl.one_file_system": guard let b = sv.bool else { throw bad(full, "true or false") }; oneFileSystem = b
                    case "index.text_cap":
                        guard let i = sv.int, i >= 0 else { throw bad(full, "a number of bytes (0 or more)") }
                        textCap = i
                    case "index.batch_size":
                        guard let i = sv.int, (1...100_000).contains(i) else { throw bad(full, "a number from 1 to 100000") }
                        batchSize = i
                    case "index.threads":
                        guard let i = sv.int, (0...256).contains(i) else { throw bad(full, "a number from 0 to 256") }
                        threads = i
                    case "daemon.log_level":
                        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
                        guard let l = sv.string, levels.contains(l) else { throw bad(full, "one of " + levels.joined(separator: ", ")) }
                        logLevel = l
                    case "daemon.poll_interval":
                        guard let i = sv.int, (1...86_400).contains(i) else { throw bad(full, "a number of seconds from 1 to 86400") }
                        pollInterval = i
                    case "extraction.memory_limit":
                        guard let i = sv.int, (256...65_536).contains(i) else { throw bad(full, "a number of MiB from 256 to 65536") }
                        workerLimits.addressSpaceBytes = UInt64(i) << 20
                    case "extraction.cpu_limit":
                        guard let i = sv.int, (1...3600).contains(i) else { throw bad(full, "a number of seconds from 1 to 3600") }
                        workerLimits.cpuSecondsPerFile = UInt64(i)
                    case "extraction.timeout":
                        guard let d = sv.double ?? sv.int.map(Double.init), d >= 0.1, d <= 3600 else {
                            throw bad(full, "a number of seconds from 0.1 to 3600")
                        }
                        workerLimits.wallSecondsPerFile = d
                    case "daemon.throttle":
                        guard let t = sv.string, ["low", "normal"].contains(t) else { throw bad(full, "\"low\" or \"normal\"") }
                        throttle = t
                    default:
                        throw .invalid(file: file, line: line(of: full), key: full, message: "unknown setting")
                    }
                }
            default:
                throw .invalid(file: file, line: line(of: key), key: key, message: "unknown setting")
            }
        }
    }

    static func readFile(_ path: String) -> String? {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) else { return nil }
        defer { try? fd.close() }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            guard let n = try? buf.withUnsafeMutableBytes({ try fd.read(into: $0) }) else { return nil }
            if n == 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A config file that cannot be used, with where and why.
public enum SettingsError: Error, Sendable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case syntax(file: String, line: Int, message: String)
    case invalid(file: String, line: Int, key: String, message: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): "cannot read config file \(file): \(reason)"
        case let .syntax(file, line, message): "\(file):\(line): TOML syntax error: \(message)"
        case let .invalid(file, line, key, message): "\(file):\(line): \(key): \(message)"
        }
    }
}
