import ArgumentParser
import CommandSupport
import Configuration
import Desktop
import DesktopBus
import FoundationEssentials

extension FSIndexCommand {
    /// `fsindex search-provider`: the desktop's search boxes on the session bus.
    struct SearchProvider: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search-provider",
            abstract: "Answer GNOME Shell's and KRunner's search boxes on the session bus.",
            discussion: """
                Owns org.fsindex.SearchProvider (org.gnome.Shell.SearchProvider2 at
                /org/fsindex/SearchProvider) and org.fsindex.KRunner (org.kde.krunner1 at /runner).
                D-Bus starts it on the first search (the package installs the activation files), and
                it leaves after --idle-exit seconds without a call. Terms are ANDed and ranked as
                fsfind ranks them; [desktop] max_results caps the answer. Each search is answered
                by the fsindexd that keeps the index when it runs, else from the index directly.
                Problems go to stderr (the journal); FSINDEX_TRACE=1 also logs each search's time
                and who answered it.
                """)

        @OptionGroup var store: IndexOptions

        @Option(name: .long, help: ArgumentHelp("Seconds without a call before leaving; 0 stays.", valueName: "seconds"))
        var idleExit: Int = 600

        func validate() throws {
            if idleExit < 0 { throw ValidationError("--idle-exit takes 0 or more seconds.") }
        }

        func run() throws {
            try ToolRun.reporting("fsindex search-provider") {
                let settings = try store.settings()
                let location = store.location()
                let search = DesktopSearch(location: location, settings: settings)
                let trace = ProcessInfo.processInfo.environment["FSINDEX_TRACE"].map { !$0.isEmpty && $0 != "0" } ?? false
                let bus = DesktopBus(search: search, opener: ItemOpener(command: settings.desktop.openCommand, location: location),
                                     trace: trace) {
                    Output.error("fsindex search-provider", $0)
                }
                do throws(DesktopError) {
                    try bus.connect()
                    try bus.run(idleExit: idleExit == 0 ? nil : .seconds(idleExit))
                } catch {
                    throw CommandFailure(error.description)
                }
            }
        }
    }
}
