import ArgumentParser
import CommandSupport
import Configuration
import Desktop
import FoundationEssentials

extension FSIndexCommand {
    /// `fsindex open PATH|DOMAIN:ID`: what double-clicking a result does.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a file, or an app's donated item, with your default application, and record the use.",
            discussion: """
                A file opens through [desktop] open_command (xdg-open: your desktop's default
                application for its type, which `xdg-mime default APP.desktop TYPE` sets); an app's
                donated item opens its contentURL. Each open is recorded as a use, like
                `fsindex used`, so the ranking learns what you open. Waits for the opening program,
                and fails with its status when it fails.

                Examples:
                  fsindex open ~/Documents/report.pdf
                  fsindex open notes:n-42            an app's item: its contentURL
                  fsfind --open 1 budget             the first result of a query
                """)

        @OptionGroup var store: IndexOptions

        @Argument(help: ArgumentHelp("A file or folder, or a donated item as DOMAIN:ID.", valueName: "item"))
        var item: String

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let settings = try store.settings()
                let location = store.location()
                try ItemOpening.open(PathArgument.item(item), command: settings.desktop.openCommand, location: location)
            }
        }
    }
}
