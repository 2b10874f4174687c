import ArgumentParser
import Attributes
import CommandSupport
import Controlling
import FoundationEssentials
import Indexing
import SystemCalls
import SystemPackage
import Glibc

extension FSIndexCommand {
    /// `fsindex used PATH...`: what donating an `NSUserActivity` is to Core Spotlight.
    struct Used: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that you used files now: they rank higher and `--sort used` lists them first.",
            discussion: """
                Sets each file's lastUsedDate to now and raises its useCount, like donating an
                NSUserActivity to Core Spotlight. Uses are kept apart from the items, so they
                survive a crawl, a reindex and changes to the file; a use of a file not yet
                indexed applies when it is. Goes through fsindexd when it runs, else writes the
                index itself. fsindexd also counts the files the desktop lists as recently used.

                Examples:
                  fsindex used ~/Documents/report.pdf
                  fsindex used notes:n-42             an app's donated item
                  fsindex used --title "Budget review" ~/Documents/budget.ods
                  fsfind --sort used report          most recently used first
                  fsfind 'used:<7d'                  used in the last 7 days
                """)

        @OptionGroup var store: IndexOptions

        @Option(name: .long, help: ArgumentHelp("What you were doing (NSUserActivity's title), kept with the use.", valueName: "text"))
        var title: String?

        @Argument(help: ArgumentHelp("Files or folders that exist, or donated items as DOMAIN:ID.", valueName: "path"))
        var paths: [String]

        func validate() throws {
            if paths.isEmpty { throw ValidationError("Name at least one file: `fsindex used PATH`.") }
            if let title, title.utf8.count > 1024 { throw ValidationError("--title takes at most 1024 bytes.") }
        }

        func run() throws {
            try ToolRun.reporting("fsindex") {
                // A file that exists, or an app's donated item (`DOMAIN:ID`) that the index holds.
                let location = store.location()
                var identifiers: [[UInt8]] = []
                for arg in paths {
                    let id = PathArgument.item(arg)
                    if ItemIdentifier(bytes: id).isDonated {
                        let held = (try? IndexStore(location: location, readOnly: true).item(ItemIdentifier(bytes: id))) ?? nil
                        guard held != nil else {
                            throw CommandFailure("\(ArgumentBytes.display(arg)): no such donated item in the index (DOMAIN:ID, as `fsfind --domain DOMAIN` prints it)")
                        }
                        identifiers.append(id)
                        continue
                    }
                    var st = stat()
                    guard ArgumentBytes.path(arg).withPlatformString({ lstat($0, &st) }) == 0 else {
                        let reason = String(cString: strerror(errno))
                        throw CommandFailure("\(ArgumentBytes.display(arg)): \(reason.lowercased()); `fsindex used` takes paths of existing files and folders, or DOMAIN:ID of donated items")
                    }
                    identifiers.append(id)
                }
                if let client = try connectDaemon(location) {
                    do {
                        switch try client.request(.used(paths: identifiers, title: title), timeout: .seconds(120)) {
                        case .usesRecorded(let r):
                            report(zip(r.paths, zip(r.useCounts, r.indexed)).map { ($0, $1.0, $1.1) })
                            return
                        case .error(let m):
                            throw CommandFailure(m)
                        default:
                            throw CommandFailure("fsindexd gave an unexpected answer; is it the same version as fsindex?")
                        }
                    } catch let e as ControlError {
                        throw CommandFailure(e.description)
                    }
                }
                let (indexStore, _) = try IndexStore.openRecovering(location: location)
                let now = Date()
                let records = try indexStore.recordUses(identifiers.map { ItemUse(identifier: ItemIdentifier(bytes: $0), date: now, title: title) })
                report(records.map { ($0.identifier.bytes, $0.useCount, $0.indexed) })
            }
        }

        private func report(_ records: [(path: [UInt8], useCount: Int64, indexed: Bool)]) {
            let out = Output.standardOutput
            for r in records {
                let times = r.useCount == 1 ? "once" : "\(r.useCount) times"
                out.write(ByteString.escaped(r.path, escapeControls: out.isTerminal) + ": used \(times)"
                          + (r.indexed ? "" : " (not in the index yet; the use applies when it is indexed)") + "\n")
            }
            out.flush()
        }
    }
}
