import ArgumentParser
import Attributes
import CommandSupport
import Controlling
import FoundationEssentials
import Indexing
import Querying
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `fsfind`: find indexed files by words, name and folder, best first.
///
/// Exit status follows grep: 0 something found, 1 nothing, 2 error.
@main
struct FSFind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fsfind",
        abstract: "Find indexed files whose name or text contains all the words.",
        discussion: """
            The last word also matches as a prefix ("rep" finds "report"). Results are ranked:
            an exact name first, then name matches above title and body matches.

            Examples:
              fsfind annual report                 files with both words
              fsfind --name invoice --onlyin ~/Documents
              fsfind -0 budget | xargs -0 ls -l
              fsfind --json --attr kind --attr fileSize thesis

            Exit status: 0 found, 1 nothing found, 2 error (no index, bad option).
            """)

    @Option(name: .customLong("index-dir"), help: ArgumentHelp("Folder of the index (default: $XDG_DATA_HOME/fsindex/default).", valueName: "dir"))
    var indexDir: String?

    @Option(name: .long, help: ArgumentHelp("Match this text inside file names only (like mdfind -name).", valueName: "text"))
    var name: String?

    @Option(name: .long, help: ArgumentHelp("Only results inside this folder (repeatable).", valueName: "dir"))
    var onlyin: [String] = []

    @Flag(name: .long, help: "Print only the number of matches.")
    var count = false

    @Flag(name: .customShort("0"), help: "End each path with NUL instead of a newline (for xargs -0).")
    var nul = false

    @Flag(name: .long, help: "Print one JSON object per line.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("An attribute to include with --json (repeatable).", valueName: "name"))
    var attr: [String] = []

    @Flag(name: .long, help: "Keep running: after the results, print `+ path` when a file starts matching and `- path` when it stops (needs fsindexd).")
    var live = false

    @Option(name: .long, help: ArgumentHelp("Print at most N results.", valueName: "n"))
    var limit: Int?

    @Argument(help: ArgumentHelp("Words that must all occur in the name or the text.", valueName: "word"))
    var words: [String] = []

    func validate() throws {
        if words.isEmpty && name == nil { throw ValidationError("Give words to search for, or --name TEXT.") }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        if let name, name.isEmpty { throw ValidationError("--name needs a non-empty text.") }
        if nul && json { throw ValidationError("-0 and --json cannot be combined.") }
        if live && count { throw ValidationError("--live and --count cannot be combined.") }
    }

    /// The high-level query: the command line validated and turned into a `QuerySpec`.
    func makeQuerySpec() throws(FindError) -> QuerySpec {
        var parts: [ItemPredicate] = []
        if !words.isEmpty {
            guard let pattern = SearchPattern(words: words) else {
                throw .usage("the words \"\(words.joined(separator: " "))\" hold no letters or digits to search for")
            }
            parts.append(.text(pattern))
        }
        if let name { parts.append(.nameContains(name)) }
        var folders: [[UInt8]] = []
        for dir in onlyin {
            guard let f = PathArgument.folder(dir) else { throw .usage("--onlyin \(dir): no such folder") }
            folders.append(f)
        }
        let hint = name ?? words.joined(separator: " ")
        // Existence is checked while printing, so fetch a few more than asked for.
        return QuerySpec(predicate: parts.count == 1 ? parts[0] : .and(parts), onlyIn: folders,
                         limit: limit.map { $0 + 16 }, exactNameHint: hint, includeAttributes: json)
    }

    func run() async throws {
        let spec: QuerySpec
        do { spec = try makeQuerySpec() } catch {
            Output.error("fsfind", error.description)
            throw ExitCode(2)
        }
        let location = IndexLocation.resolve(explicit: indexDir)
        let engine: QueryEngine
        do { engine = QueryEngine(store: try IndexStore(location: location, readOnly: true)) } catch {
            Output.error("fsfind", error.description)
            throw ExitCode(2)
        }
        let out = Output.standardOutput
        if live {
            try await runLive(spec: spec, engine: engine, location: location)
            return
        }
        do {
            if count {
                let n = try engine.count(spec)
                out.write("\(n)\n")
                out.flush()
                throw ExitCode(n > 0 ? 0 : 1)
            }
            let results = try engine.run(spec)
            var printed = 0
            let keys = attr.map { AttributeKey($0) }
            var printedFiles = Set<[UInt8]>()
            for r in results {
                if let limit, printed >= limit { break }
                // An item inside a file (a message of an mbox) is `file NUL key`: paths print the
                // file once; JSON gives each item, with its key.
                let parts = r.identifier.bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
                let file = Array(parts[0])
                // Never print a file that is gone (the index may lag behind the disk).
                guard exists(file) else { continue }
                if json {
                    printed += 1
                    var chosen = AttributeSet()
                    for k in keys { chosen[k] = r.attributes[k] }
                    if parts.count > 1 { chosen["item"] = .string(String(decoding: parts[1], as: UTF8.self)) }
                    out.write(JSONLine.render(path: file, attributes: chosen) + "\n")
                } else {
                    guard printedFiles.insert(file).inserted else { continue }
                    printed += 1
                    out.writePath(file)
                    out.writeBytes([nul ? 0 : 0x0A])
                }
            }
            out.flush()
            throw ExitCode(printed > 0 ? 0 : 1)
        } catch let e as QueryError {
            Output.error("fsfind", e.description)
            throw ExitCode(2)
        }
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

enum FindError: Error, CustomStringConvertible {
    case usage(String)
    var description: String {
        switch self { case .usage(let m): m }
    }
}
