import Configuration
import ArgumentParser
import SystemCalls
import Attributes
import CommandSupport
import Controlling
import Crawling
import FoundationEssentials
import Indexing
import SystemPackage
import Updating

extension FSIndexCommand {
    struct Reindex: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read items again from the files: everything, or the named files and folders.",
            discussion: """
                Asks fsindexd when it runs (and waits for its acknowledgement), else does the work
                itself. Unlike `fsindex index`, unchanged files are read again too: use it after
                changing extraction settings, or when the index looks wrong.

                With --domain, the app that donates that domain is asked for its items again:
                its [[provider]] reindex command runs, gets the identifiers on stdin (none:
                all), donates them and acknowledges by exiting 0.

                Examples:
                  fsindex reindex                        everything
                  fsindex reindex ~/Documents/report.pdf one file
                  fsindex reindex --domain notes --id n-42
                """)

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Print the summary as JSON.")
        var json = false

        @Option(name: .long, help: ArgumentHelp("Ask the provider of this app domain for its items again.", valueName: "name"))
        var domain: String?

        @Option(name: .customLong("id"), help: ArgumentHelp("With --domain: only this item (repeatable).", valueName: "id"))
        var ids: [String] = []

        @Argument(help: ArgumentHelp("Files or folders inside indexed roots.", valueName: "path"))
        var paths: [String] = []

        func validate() throws {
            if domain != nil && !paths.isEmpty { throw ValidationError("Give paths or --domain, not both.") }
            if domain == nil && !ids.isEmpty { throw ValidationError("--id needs --domain.") }
            // A provider reads the identifiers one per line: one with a line break would reach it
            // as two (issue 22, F18); donations refuse them too.
            if let id = ids.first(where: { $0.contains("\n") || $0.contains("\r") }) {
                throw ValidationError("--id \(ArgumentBytes.display(id).debugDescription) holds a line break; a provider gets identifiers one per line, and donations never hold one")
            }
        }

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                if let domain { return try reindexDomain(domain, location: location) }
                let identifiers = paths.map { PathArgument.absolute($0) }
                if let client = try connectDaemon(location) {
                    do {
                        try client.send(.reindex(paths: identifiers))
                        while true {
                            guard let reply = try client.next(timeout: .seconds(86_400)) else { continue }
                            switch reply {
                            case .reindexDone(let s):
                                print(summary: ReindexSummaryView(indexed: s.indexed, removed: s.removed, unchanged: s.unchanged,
                                                                  seconds: s.seconds, problems: s.problems), via: "fsindexd")
                                if s.problems > 0 { throw ExitCode(2) }
                                return
                            case .error(let m):
                                throw CommandFailure(m)
                            default:
                                continue
                            }
                        }
                    } catch let e as ControlError {
                        throw CommandFailure(e.description)
                    }
                }
                // No daemon: run the reindex handler here.
                let settings = try store.settings()
                let (indexStore, _) = try IndexStore.openRecovering(location: location)
                let domains = try indexStore.domains()
                guard !domains.isEmpty else {
                    throw CommandFailure("the index at \(location.directory.string) has no roots; run `fsindex index PATH` first")
                }
                let live = LiveIndexer(updater: IndexUpdater(store: indexStore, settings: settings, problem: { _ in }),
                                       roots: domains.map { FilePath(bytes: $0.root) })
                for (arg, ident) in zip(paths, identifiers) where live.root(of: FilePath(bytes: ident)) == nil {
                    throw CommandFailure("\(ArgumentBytes.display(arg)) is not inside an indexed root (\(domains.map(\.name).joined(separator: ", ")))")
                }
                let handler = Reindexer(updater: IndexUpdater(store: indexStore, settings: settings, problem: { p in
                    Output.error("fsindex", p.description)
                }))
                if identifiers.isEmpty {
                    try handler.reindexAllSearchableItems(acknowledgementHandler: {})
                } else {
                    try handler.reindexSearchableItems(withIdentifiers: identifiers.map { ItemIdentifier(bytes: $0) },
                                                       acknowledgementHandler: {})
                }
                // The summaries of the texts read again, before returning (as `fsindex index`).
                _ = try SummaryPass(store: indexStore).runAll(threads: settings.index.threads)
                let r = handler.lastReport
                print(summary: ReindexSummaryView(indexed: r.indexed, removed: r.removed, unchanged: r.unchanged,
                                                  seconds: r.seconds, problems: r.problems), via: nil)
                if r.problems > 0 { throw ExitCode(2) }
            }
        }

        struct ReindexSummaryView: Encodable {
            var indexed: Int, removed: Int, unchanged: Int, seconds: Double, problems: Int
        }

        private func print(summary s: ReindexSummaryView, via: String?) {
            if json {
                Output.standardOutput.writeJSONLine(s)
            } else {
                Output.standardOutput.write("reindexed\(via.map { " by \($0)" } ?? ""): \(s.indexed) read, \(s.removed) removed, "
                                            + "\(s.problems) problems in \(format1(s.seconds)) s\n")
            }
            Output.standardOutput.flush()
        }
    }
}

extension FSIndexCommand.Reindex {
    /// Runs the domain's provider now (Core Spotlight's reindexSearchableItems(withIdentifiers:)).
    func reindexDomain(_ domain: String, location: IndexLocation) throws {
        let settings = try store.settings()
        guard let provider = settings.providers.first(where: { $0.domain == domain }) else {
            throw CommandFailure("no [[provider]] for the domain \(domain) in the config; add one with domain = \"\(domain)\" and its reindex command")
        }
        let s = try IndexStore(location: location)
        try s.requestReindex(domain: domain, ids: ids.isEmpty ? nil : ids)
        let requests = ProviderRequests(store: s, providers: [provider], indexDirectory: location.directory)
        let results = try requests.runDue()
        guard let result = results.first(where: { $0.domain == domain }) else { return }
        if let error = result.error {
            throw CommandFailure("\(domain): \(error); the request is kept and tried again later (see `fsindex status`)")
        }
        Output.standardOutput.write("\(domain): its provider acknowledged " + (ids.isEmpty ? "a reindex of all its items" : "\(ids.count) items") + "\n")
        Output.standardOutput.flush()
    }
}
