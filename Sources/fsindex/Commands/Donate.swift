import ArgumentParser
import Attributes
import CommandSupport
import Controlling
import Donating
import Foundation
import Indexing
import SharedIndex
import SystemCalls
import SystemPackage
import Updating

extension FSIndexCommand {
    struct Donate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put an app's items into the index (Core Spotlight's indexSearchableItems), in one batch.",
            discussion: """
                Reads one JSON object per line from FILE (or stdin, or -):
                  {"uniqueIdentifier": "n-42", "attributes": {"title": "Budget", "textContent": "…",
                   "contentURL": "https://notes.example/n/42", "keywords": ["work"],
                   "contentCreationDate": "2026-11-01T09:00:00Z", "expirationDate": "2027-01-01T00:00:00Z"}}
                and writes them all, with the client state, in one transaction: all or nothing. Any
                attribute name of FSIndex's may be given; limits: 256 KiB of text and 64 attributes
                per item. With fsindexd running, the batch goes through it (its one writer).
                fsfind finds the items like files: fsfind --domain notes budget, or domain:notes.

                With a shared index (--index-url, or [index] url in the settings), the domain is
                then published to it as `fsindex publish` sends it, as host --host (else [index]
                host, else the host name; give fsindexd's when it feeds the same index). The
                server is not waited for: when it cannot be reached, the local index keeps the
                donation (exit 2), and `fsindex publish` sends it later.

                Examples:
                  notes-export | fsindex donate --domain notes --client-state 2026-11-24T10:00
                  fsindex donate --domain notes --last-client-state
                  fsindex donate --domain notes --index-url 'postgresql://fsindex@/fsindex?host=/run/postgresql' notes.jsonl
                """)

        @OptionGroup var store: IndexOptions
        @OptionGroup var host: HostOption

        @Option(name: .long, help: ArgumentHelp("The app's domain: letters, digits, '.', '_', '-' (such as notes or org.example.mail).", valueName: "name"))
        var domain: String

        @Option(name: .customLong("client-state"), help: ArgumentHelp("Stored with the batch when it commits (at most 250 bytes).", valueName: "state"))
        var clientState: String?

        @Option(name: .customLong("url-scheme"), help: ArgumentHelp("The app's own URL scheme: its items' contentURLs may use it besides file, http, https and mailto (fsindex open, the search boxes).", valueName: "scheme"))
        var urlScheme: String?

        @Flag(name: .customLong("last-client-state"), help: "Print the client state of the domain's last committed batch, and write nothing.")
        var lastClientState = false

        @Argument(help: ArgumentHelp("The items, JSON lines (default: stdin).", valueName: "file"))
        var file: String?

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                try DonationReader.validate(domain: domain)
                if lastClientState {
                    let state = try IndexStore(location: location, readOnly: true).fetchLastClientState(domain: domain)
                    guard let state else {
                        Output.error("fsindex", "the domain \(domain) has no committed batch")
                        throw ExitCode(1)
                    }
                    Output.standardOutput.writeBytes(state + [0x0A])
                    Output.standardOutput.flush()
                    return
                }
                if let clientState, clientState.utf8.count > DonationReader.maximumClientStateBytes {
                    throw DonationError.clientStateTooLarge(size: clientState.utf8.count, limit: DonationReader.maximumClientStateBytes)
                }
                if let urlScheme { try DonationReader.validate(urlScheme: urlScheme) }
                // A URL that cannot be used is said before anything is written.
                _ = try store.sharedURL()
                let text = try readInput()
                // Read here first: a bad line is reported with its number, and nothing is sent.
                let items = try DonationReader.read(text, domain: domain)
                if let client = try connectDaemon(location) {
                    defer { client.close() }
                    // The lines as they are: fsindexd reads the very bytes read above.
                    let objects = try DonationReader.lines(text).map(\.text)
                    switch try client.request(.donate(domain: domain, clientState: clientState, items: objects, urlScheme: urlScheme), timeout: .seconds(600)) {
                    case .ok(let message): Output.standardOutput.write("fsindexd: \(Output.field(message))\n")
                    case .error(let message):
                        throw CommandFailure(message)
                    default: break
                    }
                } else {
                    let s = try IndexStore(location: location)
                    try s.donate(items, domain: domain, clientState: clientState.map { Array($0.utf8) }, urlScheme: urlScheme)
                    // Summaries of the long texts, as after `fsindex index` (fsindexd makes its own).
                    _ = try SummaryPass(store: s).runAll(threads: 1)
                    Output.standardOutput.write("donated \(items.count) items to \(Output.field(domain))" + (clientState.map { " (client state \($0))" } ?? "") + "\n")
                }
                Output.standardOutput.flush()
                try PublishAfterward.run(store, host: host, domains: [domain], quiet: false)
            }
        }

        func readInput() throws -> [UInt8] {
            if let file, file != "-" {
                guard let data = FileManager.default.contents(atPath: ArgumentBytes.path(file).string) else {
                    throw ValidationError("cannot read \(ArgumentBytes.display(file))")
                }
                return Array(data)
            }
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an app's items: by identifier, or the whole domain (Core Spotlight's deleteSearchableItems).",
            discussion: """
                Examples:
                  fsindex forget --domain notes --id n-42 --id n-43
                  fsindex forget --domain notes          every item of the domain, and its client state
                  fsindex forget --host lab-3 --index-url URL   every item of a host in the shared index
                """)

        @OptionGroup var store: IndexOptions
        @OptionGroup var host: HostOption

        @Option(name: .long, help: ArgumentHelp("The app's domain.", valueName: "name"))
        var domain: String?

        @Option(name: .customLong("id"), help: ArgumentHelp("An item's uniqueIdentifier (repeatable); none: the whole domain.", valueName: "id"))
        var ids: [String] = []

        func validate() throws {
            if (domain == nil) == (host.host == nil) {
                throw ValidationError("give --domain NAME (an app's items) or --host NAME (a host's items in the shared index)")
            }
        }

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                guard let domain else {
                    guard let url = try store.sharedURL() else {
                        throw CommandFailure("forget --host needs the shared index: give --index-url postgresql://… or set [index] url")
                    }
                    let link = try PostgresLink.connect(url)
                    defer { link.close() }
                    let n = try SharedIndexHosts.forget(host: host.host!, link)
                    Output.standardOutput.write("forgot \(n) items of host \(host.host!) in \(url)\n")
                    Output.standardOutput.flush()
                    return
                }
                try DonationReader.validate(domain: domain)
                if let client = try connectDaemon(location) {
                    defer { client.close() }
                    switch try client.request(.forget(domain: domain, ids: ids.isEmpty ? nil : ids), timeout: .seconds(600)) {
                    case .ok(let message): Output.standardOutput.write("fsindexd: \(Output.field(message))\n")
                    case .error(let message):
                        throw CommandFailure(message)
                    default: break
                    }
                } else {
                    let gone = try IndexStore(location: location).forget(domain: domain, ids: ids.isEmpty ? nil : ids)
                    Output.standardOutput.write("forgot \(gone.count) items of \(Output.field(domain))\n")
                }
                Output.standardOutput.flush()
            }
        }
    }
}
