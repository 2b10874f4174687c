import CommandSupport
import ArgumentParser
import Controlling

extension FSIndexCommand {
    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume fsindexd's indexing, starting with the queued changes.")
        @OptionGroup var store: IndexOptions
        func run() throws { try ToolRun.reporting("fsindex") { try sendToDaemon(.resume, store: store) } }
    }
}
