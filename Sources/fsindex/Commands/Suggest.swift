import ArgumentParser
import Attributes
import CommandSupport
import Foundation
import Indexing
import Querying
import SystemCalls
import Glibc

extension FSIndexCommand {
    /// `fsindex suggest`: what you likely want now, without a query (Core Spotlight's
    /// suggestions), each with its reasons.
    struct Suggest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suggest what you likely want now, each with its reasons.",
            discussion: """
                Without a query: files used often (frequent) or lately (recent), used at this
                hour (timeOfDay) or on this weekday (dayOfWeek) before, calendar events that
                start within a day or are under way (eventSoon, from .ics files in the roots,
                repeating events by their next occurrence), and notes (text, Markdown, Org)
                edited in the last week (noteEdited). An item with several reasons ranks
                higher. Uses are those `fsindex used`, `fsindex open` and the desktop's
                recently-used list recorded. Reads the index only; files that are gone or
                unreadable are left out.

                Examples:
                  fsindex suggest
                  fsindex suggest --json --limit 5
                """)

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Print one JSON object per line: path, name, kind, score, reasons.")
        var json = false

        @Option(name: .long, help: ArgumentHelp("Print at most N suggestions (default 10).", valueName: "n"))
        var limit: Int = 10

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        }

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let index = try IndexStore(location: store.location(), readOnly: true)
                let suggestions = try Suggester(now: Date()).suggestions(limit: limit, in: index) { item in
                    Self.readable(ItemIdentifier.split(item.uniqueIdentifier.bytes).file)
                }
                let out = Output.standardOutput
                for s in suggestions {
                    if json {
                        out.write(s.jsonLine(path: ArgumentBytes.encode) + "\n")
                        continue
                    }
                    let (file, key) = ItemIdentifier.split(s.item.uniqueIdentifier.bytes)
                    let place = ByteString.escaped(file, escapeControls: out.isTerminal) + (key.map { " (\($0))" } ?? "")
                    let title = s.item.attributes.title.map { " \"\($0)\"" } ?? ""
                    out.write(place + title + ": " + s.reasons.map(\.description).joined(separator: ", ") + "\n")
                }
                out.flush()
                if suggestions.isEmpty { throw CommandFailure(nil, status: 1) }
            }
        }

        /// A file that is there and this user may read, or an app's donated item.
        static func readable(_ path: [UInt8]) -> Bool {
            guard path.first == UInt8(ascii: "/") else { return true }
            let c = path.map { CChar(bitPattern: $0) } + [0]
            return access(c, R_OK) == 0
        }
    }
}
