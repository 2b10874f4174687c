import CommandSupport
import ArgumentParser
import Controlling

extension FSIndexCommand {
    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pause fsindexd's indexing; changes are queued until `fsindex resume`.")
        @OptionGroup var store: IndexOptions
        func run() throws { try ToolRun.reporting("fsindex") { try sendToDaemon(.pause, store: store) } }
    }
}
