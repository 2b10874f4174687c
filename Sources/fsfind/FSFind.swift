import ArgumentParser
import Attributes
import CommandSupport
import Controlling
import Foundation
import Indexing
import Querying
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

struct StaleIndex: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `fsfind`: find indexed files by words, names, types and any attribute, best first.
///
/// Exit status follows grep: 0 something found, 1 nothing, 2 error.
@main
struct FSFind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsfind",
        abstract: "Find indexed files by words, name, kind, dates, size or any attribute.",
        discussion: """
            The query is Spotlight's expression language (as mdfind takes it), a
            short form, or both mixed. Short form:
              annual report        both words in name, title or text ("rep" = prefix)
              "annual report"      the exact phrase
              budget -draft        without "draft"
              invoice OR receipt   either
              name:*.tex  ext:md,txt  author:ada  title:x  from:x  to:x  dir:src
              kind:pdf  (image audio video document text code folder archive
                         mail presentation spreadsheet)
              modified:>2026-01-01  modified:2026-01..2026-03  created:today
              modified:<7d  size:>10MB  width:>1000  pages:10..20  ATTR:value
            Spotlight:
              'kMDItemContentType == "public.image" && kMDItemPixelWidth > 2000'
              'kMDItemAuthors == "ada*"cd || InRange(kMDItemFSSize, 1000, 2000)'
              'kMDItemContentModificationDate >= $time.today(-7)'
            Answers:
              fsfind --count kind:pdf
              fsfind --group-by kind       (per month: --group-by modified:month)
              fsfind --stats fileSize kind:image
            Exit status: 0 found, 1 nothing found, 2 error (no index, bad query),
            64 bad option.
            """)

    @Option(name: .customLong("index-dir"), help: ArgumentHelp("Folder of the index (default: $XDG_DATA_HOME/fsindex/default).", valueName: "dir"))
    var indexDir: String?

    @Option(name: .long, help: ArgumentHelp("A config file to read [query] from (default: ~/.config/fsindex/config.toml).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Match this text inside file names only (like mdfind -name).", valueName: "text"))
    var name: String?

    @Option(name: .long, help: ArgumentHelp("Only results inside this folder (repeatable).", valueName: "dir"))
    var onlyin: [String] = []

    @Flag(name: .long, help: "Take the query as plain words: no fields, operators or quotes.")
    var literal = false

    @Flag(name: .long, help: "Print the parsed query and how it will run (like mdfind -interpret), then stop.")
    var explain = false

    @Flag(name: .long, help: "Print only the number of matches.")
    var count = false

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Print a table of match counts per value of ATTR (dates: ATTR:day|week|month|year; month alone: per month of change).", valueName: "attr"))
    var groupBy: String?

    @Option(name: .long, help: ArgumentHelp("Print count, sum, min, max and mean of a number or date attribute over the matches.", valueName: "attr"))
    var stats: String?

    @Option(name: .long, help: ArgumentHelp("Order: relevance (default), name, size, modified, created.", valueName: "order"))
    var sort: String = "relevance"

    @Flag(name: .long, help: "Reverse the order.")
    var reverse = false

    @Flag(name: .long, help: "Show the text around the matched words.")
    var snippet = false

    @Flag(name: .customShort("0"), help: "End each path with NUL instead of a newline (for xargs -0).")
    var nul = false

    @Flag(name: .long, help: "Print one JSON object per line.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("An attribute to include with --json (repeatable; default: name, kind, fileSize, contentModificationDate, score).", valueName: "name"))
    var attr: [String] = []

    @Flag(name: .long, help: "Keep running: after the results, print `+ path` when a file starts matching and `- path` when it stops (needs fsindexd).")
    var live = false

    @Option(name: .long, help: ArgumentHelp("Print at most N results.", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Skip the first N results.", valueName: "n"))
    var offset: Int = 0

    /// Unrecognized arguments are query text, so that `fsfind budget -draft` excludes "draft"
    /// without quotes; an unknown `--option` is still an error (see `validate`).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The query (several arguments are joined with spaces).", valueName: "query"))
    var query: [String] = []

    /// The whole query: the arguments joined with spaces.
    var queryText: String {
        var q = query
        if let t = q.firstIndex(of: "--") { q.remove(at: t) }   // the terminator itself
        return q.joined(separator: " ")
    }

    static let defaultJSONAttributes: [AttributeKey] = [.name, .kind, .fileSize, .contentModificationDate]

    func validate() throws {
        // An unknown `--option` is a mistake, unless it comes after a lone `--`.
        let raw = CommandLine.arguments
        let literal = raw.firstIndex(of: "--").map { Set(raw[($0 + 1)...]) } ?? []
        if let option = query.first(where: { $0.hasPrefix("--") && $0.count > 2 && !literal.contains($0) }) {
            throw ValidationError("Unknown option '\(option)'. To search for text that starts with --, put it after a lone --: fsfind -- \(option)")
        }
        if queryText.isEmpty && name == nil && groupBy == nil && stats == nil {
            throw ValidationError("Give a query, --name TEXT, --group-by ATTR or --stats ATTR.")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more.") }
        if let name, name.isEmpty { throw ValidationError("--name needs a non-empty text.") }
        if nul && json { throw ValidationError("-0 and --json cannot be combined.") }
        if live && (count || groupBy != nil || stats != nil) { throw ValidationError("--live shows results; it cannot be combined with --count, --group-by or --stats.") }
        if [count, groupBy != nil, stats != nil].filter({ $0 }).count > 1 { throw ValidationError("Choose one of --count, --group-by and --stats.") }
        if SortOrder(rawValue: sort) == nil {
            throw ValidationError("--sort takes one of " + SortOrder.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
    }

    /// The high-level query: the command line validated and turned into a `QuerySpec`.
    func makeQuerySpec() throws(QueryError) -> QuerySpec {
        var parts: [ItemPredicate] = []
        var hint: String?
        let text = queryText
        if !text.trimmingCharacters(in: .whitespaces).isEmpty {
            let parsed = try ShortQueryParser.parse(text, literal: literal)
            parts.append(parsed.predicate)
            hint = parsed.nameHint
        }
        if let name {
            parts.append(.nameContains(name))
            hint = name
        }
        var folders: [[UInt8]] = []
        for dir in onlyin {
            guard let f = PathArgument.folder(dir) else {
                throw .badValue(attribute: "--onlyin", value: dir, reason: "is not a folder (no such folder)")
            }
            folders.append(f)
        }
        let ranking: RankingWeights
        do { ranking = try QuerySettings.load(explicit: config, environment: ProcessInfo.processInfo.environment) } catch {
            throw .badValue(attribute: "--config", value: error.file, reason: error.message)
        }
        return QuerySpec(predicate: parts.isEmpty ? .all : (parts.count == 1 ? parts[0] : .and(parts)), onlyIn: folders,
                         exactNameHint: hint, includeAttributes: json, sort: SortOrder(rawValue: sort) ?? .relevance,
                         reverse: reverse, snippet: snippet, ranking: ranking)
    }

    func run() async throws {
        var spec: QuerySpec
        do { spec = try makeQuerySpec() } catch {
            Output.error("fsfind", error.description)
            throw ExitCode(2)
        }
        let location = IndexLocation.resolve(explicit: indexDir)
        let engine: QueryEngine
        do {
            let store = try IndexStore(location: location, readOnly: true)
            try checkNotStale(store, location: location)
            engine = QueryEngine(store: store)
        } catch {
            Output.error("fsfind", "\(error)")
            throw ExitCode(2)
        }
        let out = Output.standardOutput
        if live {
            try await runLive(spec: spec, engine: engine, location: location)
            return
        }
        do {
            if explain {
                out.write("query: \(queryText)\n")
                out.write("parsed: \(spec.predicate.simplified)\n")
                for line in try engine.explain(spec) { out.write(line + "\n") }
                out.flush()
                return
            }
            if count {
                let n = try engine.count(spec)
                out.write("\(n)\n")
                out.flush()
                throw ExitCode(n > 0 ? 0 : 1)
            }
            if let groupBy {
                throw ExitCode(try printGroups(groupBy, spec: spec, engine: engine))
            }
            if let stats {
                throw ExitCode(try printStatistics(stats, spec: spec, engine: engine))
            }
            // Existence is checked while printing, so fetch a few more than asked for, and page
            // after the check so that --offset counts printed results.
            if let limit { spec.limit = offset + limit + 16 }
            let results = try engine.run(spec)
            var printed = 0
            var skipped = 0
            let keys = attr.isEmpty ? Self.defaultJSONAttributes : attr.map { AttributeKey($0) }
            let withScore = attr.isEmpty || attr.contains("score")
            var printedFiles = Set<[UInt8]>()
            var gone: [[UInt8]] = []
            for r in results {
                if let limit, printed >= limit { break }
                // An item inside a file (a message of an mbox) is `file NUL key`: paths print the
                // file once; JSON gives each item, with its key.
                let parts = r.identifier.bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
                let file = Array(parts[0])
                // Never print a file that is gone (the index may lag behind the disk).
                guard exists(file) else {
                    if parts.count == 1 { gone.append(file) }
                    continue
                }
                if !json { guard printedFiles.insert(file).inserted else { continue } }
                if skipped < offset { skipped += 1; continue }
                printed += 1
                if json {
                    var chosen = AttributeSet()
                    for k in keys { chosen[k] = r.attributes[k] }
                    if withScore { chosen["score"] = .double(Self.displayScore(r.score)) }
                    if parts.count > 1 { chosen["item"] = .string(String(decoding: parts[1], as: UTF8.self)) }
                    if let s = r.snippet { chosen["snippet"] = .string(Self.render(snippet: s, color: false)) }
                    out.write(JSONLine.render(path: file, attributes: chosen) + "\n")
                } else {
                    out.writePath(file)
                    out.writeBytes([nul ? 0 : 0x0A])
                    if let s = r.snippet, !nul {
                        out.write("    " + Self.render(snippet: s, color: out.useColor) + "\n")
                    }
                }
            }
            out.flush()
            if !gone.isEmpty { forget(gone, location: location) }
            throw ExitCode(printed > 0 ? 0 : 1)
        } catch let e as QueryError {
            Output.error("fsfind", e.description)
            throw ExitCode(2)
        }
    }

    /// An index that must be rebuilt (after damage or a schema change) would answer with
    /// missing files: say so and stop, unless fsindexd is already rebuilding it, in which case
    /// the answers come with a warning.
    private func checkNotStale(_ store: IndexStore, location: IndexLocation) throws {
        guard let reason = try store.meta("rebuild_required") else { return }
        if let client = try? ControlClient.connect(ControlLocation.forIndex(directory: location.directory)) {
            client.close()
            Output.error("fsfind", "warning: fsindexd is rebuilding the index (\(reason)); results may be incomplete until it is done (see `fsindex status`)")
            return
        }
        throw StaleIndex(message: "the index at \(location.directory.string) must be rebuilt (\(reason)); run `fsindex index` or start fsindexd, which rebuilds it")
    }

    /// Scores as people read them: higher is better (bm25 is negative, lower better).
    static func displayScore(_ bm25: Double) -> Double {
        (-bm25 * 1000).rounded() / 1000 + 0.0   // + 0.0: never print -0
    }

    /// A snippet on one line, the matched words in bold red on a terminal with colour, else
    /// between `**` (also in JSON); control characters become spaces.
    static func render(snippet: String, color: Bool) -> String {
        var out = ""
        for ch in snippet {
            switch String(ch) {
            case QueryEngine.snippetStart: out += color ? "\u{1B}[1;31m" : "**"
            case QueryEngine.snippetEnd: out += color ? "\u{1B}[0m" : "**"
            default:
                if ch.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) {
                    out.append(" ")
                } else {
                    out.append(ch)
                }
            }
        }
        return out
    }

    /// `--group-by ATTR[:period]`: a table of counts, most frequent first.
    private func printGroups(_ text: String, spec: QuerySpec, engine: QueryEngine) throws -> Int32 {
        // `--group-by month` (or day, week, year): by when the file changed.
        let spelled = GroupKey.Period(rawValue: text.lowercased()) != nil ? "modified:" + text : text
        let parts = spelled.split(separator: ":", maxSplits: 1).map(String.init)
        let key = try attributeKey(parts.first ?? spelled)
        var period = GroupKey.Period.month
        if parts.count == 2 {
            guard let p = GroupKey.Period(rawValue: parts[1].lowercased()), key.valueType == .date else {
                throw QueryError.badValue(attribute: "--group-by", value: text, reason: "takes a period (day, week, month, year) only after a date attribute, as modified:month")
            }
            period = p
        }
        let rows = try engine.groupCounts(spec, by: GroupKey(key, period: period))
        let out = Output.standardOutput
        let width = max(5, rows.map { String($0.count).count }.max() ?? 0)
        for row in rows {
            if json {
                let value = row.value.map { "\"" + Self.jsonEscape($0) + "\"" } ?? "null"
                out.write("{\"count\":\(row.count),\"value\":\(value)}\n")
            } else {
                let n = String(row.count)
                out.write(String(repeating: " ", count: width - n.count) + n + "  ")
                out.write(Self.clean(row.value ?? "(none)", escape: out.isTerminal) + "\n")
            }
        }
        out.flush()
        return rows.isEmpty ? 1 : 0
    }

    /// `--stats ATTR`: count, sum, min, max, mean.
    private func printStatistics(_ text: String, spec: QuerySpec, engine: QueryEngine) throws -> Int32 {
        let key = try attributeKey(text)
        let s = try engine.statistics(spec, of: key)
        let out = Output.standardOutput
        let isDate = key.valueType == .date
        func show(_ v: Double?) -> String {
            guard let v else { return json ? "null" : "-" }
            if isDate {
                let d = AttributeValue.iso8601(Date(timeIntervalSince1970: v))
                return json ? "\"" + d + "\"" : d
            }
            return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(format: "%.3f", v)
        }
        if json {
            let sum = isDate ? "null" : show(s.sum)
            out.write("{\"attribute\":\"\(key.rawValue)\",\"matches\":\(s.matches),\"count\":\(s.count),\"sum\":\(sum),\"min\":\(show(s.minimum)),\"max\":\(show(s.maximum)),\"mean\":\(show(s.mean))}\n")
        } else {
            out.write("attribute  \(key.rawValue)\n")
            out.write("matches    \(s.matches)\n")
            out.write("count      \(s.count)   (matches that have it)\n")
            if !isDate { out.write("sum        \(show(s.sum))\n") }
            out.write("min        \(show(s.minimum))\n")
            out.write("max        \(show(s.maximum))\n")
            out.write("mean       \(show(s.mean))\n")
        }
        out.flush()
        return s.count > 0 ? 0 : 1
    }

    /// An attribute named on the command line: ours, Spotlight's or a short alias.
    private func attributeKey(_ name: String) throws(QueryError) -> AttributeKey {
        if let k = ShortQueryParser.aliases[name.lowercased()] { return k }
        do { return try AttributeNames.resolve(name) } catch { throw .unknownAttribute(error) }
    }

    static func clean(_ s: String, escape: Bool) -> String {
        guard escape else { return s }
        return String(s.map { $0.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } ? "?" : $0 })
    }

    static func jsonEscape(_ s: String) -> String {
        let data = (try? JSONEncoder().encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return String(data.dropFirst().dropLast())
    }

    /// Files the index lists but the disk no longer has: the running daemon re-checks them
    /// (and drops them); without one, they are removed from the index here.
    private func forget(_ paths: [[UInt8]], location: IndexLocation) {
        if let client = try? ControlClient.connect(ControlLocation.forIndex(directory: location.directory)) {
            _ = try? client.request(.reindex(paths: paths), timeout: .seconds(2))
            client.close()
            return
        }
        guard let store = try? IndexStore(location: location) else { return }
        _ = try? store.deleteItems(identifiers: paths.map { ItemIdentifier(bytes: $0) })
    }

    /// `--live`: subscribe first (so no change between the query and the subscription is lost),
    /// print the current results, then for every change the daemon publishes, ask the index
    /// which of the changed items match now and print the difference.
    private func runLive(spec: QuerySpec, engine: QueryEngine, location: IndexLocation) async throws {
        let client: ControlClient
        let changes: AsyncStream<ItemChanges>
        do {
            client = try ControlClient.connect(ControlLocation.forIndex(directory: location.directory))
            changes = try client.subscribe()
        } catch {
            if case .noDaemon = error {
                Output.error("fsfind", "--live needs fsindexd running for the index at \(location.directory.string); start it with `fsindexd`")
            } else {
                Output.error("fsfind", error.description)
            }
            throw ExitCode(2)
        }
        let out = Output.standardOutput
        var unlimited = spec
        unlimited.limit = nil
        var matching = Set<[UInt8]>()
        do {
            for r in try engine.run(unlimited) where exists(r.identifier.bytes) {
                matching.insert(r.identifier.bytes)
                printLive(r.identifier.bytes, change: nil)
            }
        } catch {
            Output.error("fsfind", error.description)
            throw ExitCode(2)
        }
        out.flush()
        for await change in changes {
            var narrowed = unlimited
            narrowed.predicate = .and([unlimited.predicate, .identifiers(change.updated)])
            let now: Set<[UInt8]>
            do { now = Set(try engine.run(narrowed).map(\.identifier.bytes)) } catch {
                Output.error("fsfind", error.description)
                throw ExitCode(2)
            }
            for path in change.removed where matching.remove(path) != nil {
                printLive(path, change: "-")
            }
            for path in change.updated {
                if now.contains(path) {
                    if matching.insert(path).inserted { printLive(path, change: "+") }
                } else if matching.remove(path) != nil {
                    printLive(path, change: "-")
                }
            }
            out.flush()
        }
        client.close()
    }

    private func printLive(_ path: [UInt8], change: String?) {
        let out = Output.standardOutput
        if json {
            let extra = ["change": change ?? "="]
            out.write(JSONLine.render(path: path, attributes: AttributeSet(), extra: extra) + "\n")
        } else {
            if let change { out.write(change + " ") }
            out.writePath(path)
            out.writeBytes([nul ? 0 : 0x0A])
        }
    }

    private func exists(_ path: [UInt8]) -> Bool {
        var st = stat()
        let c = path.map { CChar(bitPattern: $0) } + [0]
        return lstat(c, &st) == 0
    }
}

