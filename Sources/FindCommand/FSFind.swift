import SystemCalls
import Configuration
import Desktop
import ArgumentParser
import Attributes
import CommandSupport
import Controlling
import Foundation
import Indexing
import LocalIndex
import Querying
import SharedIndex
import SharedQuerying
import SystemPackage
import Glibc

/// `fsfind`: find indexed files by words, names, types and any attribute, best first.
///
/// Exit status follows grep: 0 something found, 1 nothing, 2 error.
///
/// The command lives in a library because two programs run it: `fsfind-direct`, which reads the
/// index itself, and fsindexd, which answers the small `fsfind`'s queries over the query socket
/// (`FindService`) into the client's own descriptors, byte for byte the same.
package struct FSFind: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
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
              from:me  author:me  to:me  (me: [agent] me in the config, else
                                         git's user.name and user.email)
              kind:pdf  (image audio video document text code folder archive
                         mail presentation spreadsheet)
              modified:>2026-01-01  modified:2026-01..2026-03  created:today
              modified:<7d  size:>10MB  width:>1000  pages:10..20  ATTR:value
              domain:notes  (an app's items: fsindex donate; they print as
                             their contentURL, or as DOMAIN:ID)
            Spotlight:
              'kMDItemContentType == "public.image" && kMDItemPixelWidth > 2000'
              'kMDItemAuthors == "ada*"cd || InRange(kMDItemFSSize, 1000, 2000)'
              'kMDItemContentModificationDate >= $time.today(-7)'
            Answers:
              fsfind --count kind:pdf
              fsfind --group-by kind       (per month: --group-by modified:month)
              fsfind --stats fileSize kind:image
            Exit status: 0 found, 1 nothing found, 2 error (no index, bad query,
            time limit), 64 bad option.
            """)

    @OptionGroup package var index: IndexOptions

    @Option(name: .long, help: ArgumentHelp("Match this text inside file names only (like mdfind -name).", valueName: "text"))
    var name: String?

    @Option(name: .long, help: ArgumentHelp("Only results inside this folder (repeatable).", valueName: "dir"))
    var onlyin: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only items an app donated to this domain (repeatable; see `fsindex donate`).", valueName: "name"))
    var domain: [String] = []

    @Flag(name: .long, help: "Take the query as plain words: no fields, operators or quotes, and no question stages (every word, as typed).")
    var literal = false

    @Flag(name: .long, help: "Print the parsed query and how it will run (like mdfind -interpret), then stop; for a question, its stages and the stage that found each of the first results.")
    var explain = false

    @Flag(name: .long, help: "Print only the number of matches.")
    var count = false

    @Option(name: .customLong("group-by"), help: ArgumentHelp("Print a table of match counts per value of ATTR (dates: ATTR:day|week|month|year; month alone: per month of change).", valueName: "attr"))
    var groupBy: String?

    @Option(name: .long, help: ArgumentHelp("Print count, sum, min, max and mean of a number or date attribute over the matches.", valueName: "attr"))
    var stats: String?

    @Option(name: .long, help: ArgumentHelp("Order: relevance (default), name, size, modified, created, used (last use; never used last).", valueName: "order"))
    var sort: Querying.SortOrder = .relevance

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

    @Flag(name: .long, help: "Keep running: after the results, print `+ path` when a file starts matching, `- path` when it stops, `~ path` when its summary arrives (needs fsindexd).")
    var live = false

    @Flag(name: .customLong("include-offline"), help: "Also show items of volumes not mounted now (USB drives, disk images), each marked offline with the volume's label.")
    var includeOffline = false

    @Option(name: .long, help: ArgumentHelp("Print at most N results.", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Open the Nth result (from 1) with your default application, like `fsindex open`, and print its path.", valueName: "n"))
    var open: Int?

    @Flag(name: .long, help: "Print completions of the query's last word (words, fields, values), most items first (default --limit 10).")
    var complete = false

    @Option(name: .long, help: ArgumentHelp("Skip the first N results.", valueName: "n"))
    var offset: Int = 0

    @Option(name: .customLong("time-limit"), help: ArgumentHelp("Stop a query after this many seconds (default: [query] time_limit, 10).", valueName: "s"))
    var timeLimit: Double?

    /// The command line as bytes (`ArgumentBytes`: a path that is not UTF-8 keeps its bytes
    /// instead of turning into U+FFFD), rearranged so that the argument parser's cost stays
    /// linear (see `QueryArguments`).
    package static func main() async {
        await main(QueryArguments.arrange(ArgumentBytes.arguments()))
    }

    /// Unrecognized arguments are query text, so that `fsfind budget -draft` excludes "draft"
    /// without quotes; an unknown `--option` is still an error (see `validate`).
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The query (several arguments are joined with spaces).", valueName: "query"))
    var query: [String] = []

    /// The whole query: the arguments joined with spaces (a lone `--` itself dropped).
    var queryText: String {
        var q = query
        if let t = q.firstIndex(of: "--") { q.remove(at: t) }
        return q.joined(separator: " ")
    }

    package func validate() throws {
        // An unknown `--option` is a mistake, unless it comes after a lone `--` (`main` puts
        // the query words there, and unknown options before it).
        if let option = query.prefix(while: { $0 != "--" }).first(where: { $0.hasPrefix("--") && $0.count > 2 }) {
            throw ValidationError("Unknown option '\(option)'. To search for text that starts with --, put it after a lone --: fsfind -- \(option)")
        }
        if complete {
            if queryText.isEmpty { throw ValidationError("--complete needs the text to complete: fsfind --complete 'annual rep'") }
            if live || count || explain || nul || open != nil || groupBy != nil || stats != nil || name != nil || !domain.isEmpty || !onlyin.isEmpty || offset != 0 {
                throw ValidationError("--complete takes only --limit, --json and the index options.")
            }
        }
        if queryText.isEmpty && name == nil && groupBy == nil && stats == nil && domain.isEmpty {
            throw ValidationError("Give a query, --name TEXT, --domain NAME, --group-by ATTR or --stats ATTR.")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more.") }
        if let timeLimit, !(timeLimit > 0 && timeLimit <= 86_400) {
            throw ValidationError("--time-limit takes a number of seconds from 0.001 to 86400.")
        }
        if let name, name.isEmpty { throw ValidationError("--name needs a non-empty text.") }
        if nul && json { throw ValidationError("-0 and --json cannot be combined.") }
        if let open {
            if open < 1 { throw ValidationError("--open takes the number of a result, from 1.") }
            if live || count || groupBy != nil || stats != nil || explain {
                throw ValidationError("--open opens one result; it cannot be combined with --live, --count, --group-by, --stats or --explain.")
            }
        }
        if live && (count || groupBy != nil || stats != nil) { throw ValidationError("--live shows results; it cannot be combined with --count, --group-by or --stats.") }
        if [count, groupBy != nil, stats != nil].filter({ $0 }).count > 1 { throw ValidationError("Choose one of --count, --group-by and --stats.") }
    }

    /// The command line as a pipeline request, with the settings already read.
    func makeRequest(workingDirectory: [UInt8]?, settings all: Settings) throws(QueryError) -> QueryRequest {
        var scopes: [[UInt8]] = []
        for dir in onlyin {
            guard let f = PathArgument.folder(dir, workingDirectory: workingDirectory) else { throw .badValue(attribute: "--onlyin", value: ArgumentBytes.display(dir), reason: "is not a folder (no such folder)") }
            scopes.append(f)
        }
        let settings = all.query
        // `me` needs the identity; the git config files are read only for a query that may say it.
        let identity = queryText.range(of: ":me", options: .caseInsensitive) != nil ? Identity.resolve(configured: all.agent.me) : nil
        let answer: QueryRequest.Answer = if count { .count } else if let groupBy { .table(try GroupKey.parse(groupBy)) }
            else if let stats { .statistic(try AttributeNames.resolveForCommand(stats)) } else { .items }
        var request = QueryRequest(text: queryText, literal: literal, name: name, scopes: scopes, sort: sort,
                            reverse: reverse, limit: limit, offset: offset,
                            fetchAttributes: json ? (attr.isEmpty ? [.name, .kind, .fileSize, .contentModificationDate] : attr.map(Self.attributeKey)) : [],
                            snippet: snippet, onePerFile: !json, answer: answer, ranking: RankingWeights(settings),
                            timeLimit: timeLimit ?? settings.timeLimit, identity: identity)
        request.domains = domain
        request.questions = settings.questions
        request.semantic = settings.semantic
        return request
    }

    /// An `--attr` name: an attribute's own name, else a short name of the query syntax
    /// (`summary` for `textContentSummary`), else the name as given.
    static func attributeKey(_ name: String) -> AttributeKey {
        let key = AttributeKey(name)
        if key.valueType != nil { return key }
        return ShortQueryParser.aliases[name.lowercased()] ?? key
    }

    package func run() async throws {
        let io = FindIO(out: .standardOutput, errors: .standardError)
        // The answer's status is the process's: exiting here, not by throwing `ExitCode`, spares
        // the argument parser building its help text for the exit (0.5 ms of a 13 ms query) and
        // the closing of the index; the output is flushed by then.
        guard live && !explain else { Glibc.exit(answer(io: io, watchdog: AnswerWatchdog(errors: io.errors))) }
        do {
            let (request, pipeline) = try prepare(io: io)
            try await runLive(request, pipeline: pipeline, printer: printer(io))
        } catch let error as QueryError {
            io.errors.report("fsfind", error.description)
            throw ExitCode(2)
        }
    }

    /// Answers a query that is not `--live` into `io`, returning the exit status (0 found,
    /// 1 nothing, 2 error). A `watchdog` (a process of our own only) ends the process if nothing
    /// is answered by the time limit, however the time is spent.
    package func answer(io: FindIO, watchdog: AnswerWatchdog? = nil) -> Int32 {
        if complete { return answerCompletions(io: io) }
        let printer = printer(io)
        defer { watchdog?.standDown() }
        do {
            let (request, pipeline) = try prepare(io: io)
            if let limit = request.timeLimit { watchdog?.arm(limit: limit) }
            if explain {
                let plan = try pipeline.explain(request)
                watchdog?.standDown()
                io.out.write("query: \(queryText)\n" + plan.map { $0 + "\n" }.joined())
                io.out.flush()
                return io.finished(0)
            }
            if let open { return try openResult(open, request: request, pipeline: pipeline, io: io, watchdog: watchdog) }
            var found = false
            try pipeline.run(request) { reply in
                watchdog?.standDown()
                printer.print(reply)
                found = found || reply.foundSomething
            }
            io.out.flush()
            return io.finished(found ? 0 : 1)
        } catch {
            watchdog?.standDown()
            io.errors.report("fsfind", String(describing: error))
            return 2
        }
    }

    /// `--open N`: the Nth result (after `--offset`) opened like `fsindex open`, its path
    /// printed first; status 1 when there are fewer results.
    private func openResult(_ n: Int, request: QueryRequest, pipeline: QueryPipeline, io: FindIO,
                            watchdog: AnswerWatchdog?) throws -> Int32 {
        var request = request
        request.offset = offset + n - 1
        request.limit = 1
        request.answer = .items
        var chosen: FoundItem?
        try pipeline.run(request) { reply in
            watchdog?.standDown()
            if case .items(let items) = reply.content, chosen == nil { chosen = items.first }
        }
        guard let chosen else {
            io.errors.report("fsfind", "no result \(n) to open")
            return io.finished(1)
        }
        let printer = printer(io)
        printer.print(QueryReply(.items([chosen]), isFinal: true))
        io.out.flush()
        let settings = try index.settings()
        let location = indexLocation(workingDirectory: io.workingDirectory, environment: io.environment ?? ProcessInfo.processInfo.environment)
        try ItemOpening.open(chosen.identifier, command: settings.desktop.openCommand, location: location)
        return io.finished(0)
    }

    /// The request and the opened index, a rebuild under way said on `io.errors`.
    func prepare(io: FindIO) throws(QueryError) -> (QueryRequest, QueryPipeline) {
        let settings: Settings
        do { settings = try index.settings() } catch { throw .settings(error) }
        let request = try makeRequest(workingDirectory: io.workingDirectory, settings: settings)
        if let url = sharedURL(settings: settings) {
            let shared: SharedIndexURL
            do { shared = try SharedIndexURL(url) } catch { throw .index(error.description, cause: error) }
            return (request, try QueryPipeline.open(url: shared))
        }
        let location = indexLocation(workingDirectory: io.workingDirectory, environment: io.environment ?? ProcessInfo.processInfo.environment)
        // The volumes mounted now answer with the home index (issue 29), and with
        // --include-offline those unplugged too. A query confined to an app's domain needs none.
        let (pipeline, warning) = try QueryPipeline.open(location: location,
                                                         volumes: includeOffline ? .includingOffline : domain.isEmpty ? .mounted : .none,
                                                         repair: io.repair)
        if let warning { io.errors.report("fsfind", "warning: " + warning) }
        return (request, pipeline)
    }

    private func printer(_ io: FindIO) -> any ReplyPrinter {
        json ? JSONLinesPrinter(out: io.out, withScore: attr.isEmpty || attr.contains("score")) : PathPrinter(out: io.out, nul: nul)
    }

    /// The shared index's URL, when this command queries one: `--index-url`, else `[index] url`
    /// (unless `--index-dir` names a local index).
    package func sharedURL(settings: Settings?) -> String? {
        if let url = index.indexURL { return url }
        guard index.indexDir == nil else { return nil }
        return settings?.index.sharedURL(explicit: nil)
    }

    /// The index this command reads (`--index-dir`, `FSINDEX_INDEX_DIR`, XDG), a relative
    /// folder taken from `workingDirectory` when given.
    package func indexLocation(workingDirectory: [UInt8]? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment) -> IndexLocation {
        index.location(workingDirectory: workingDirectory, environment: environment)
    }

    /// `--live`: the pipeline subscribes to the index's changes first (fsindexd's for the local
    /// index, LISTEN/NOTIFY for the shared one), then prints the results and every difference a
    /// change makes.
    private func runLive(_ request: QueryRequest, pipeline: QueryPipeline, printer: any ReplyPrinter) async throws {
        do {
            try await pipeline.live(request) { printer.print($0) }
        } catch {
            Output.error("fsfind", error.description)
            throw ExitCode(2)
        }
    }
}

/// `--sort`'s values are the orders themselves: the parser lists them in the help and rejects
/// any other with a usage error (exit 64).
extension Querying.SortOrder: ExpressibleByArgument {}
