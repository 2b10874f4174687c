import ArgumentParser
import CommandSupport
import Controlling
import Indexing
import SystemPackage

extension FSIndexCommand {
    struct Erase: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the index (like mdutil -E). The files themselves are not touched.")

        @OptionGroup var store: IndexOptions

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                // A running daemon would go on writing to the deleted database (it notices and stops,
                // but then it has stopped): the user decides, knowing which process it is.
                if let client = try connectDaemon(location) {
                    var who = "fsindexd"
                    if case .status(let d)? = try? client.request(.status, timeout: .seconds(5)) { who += " (pid \(d.pid))" }
                    throw CommandFailure("\(who) is using the index at \(location.directory.string); stop it first "
                                         + "(`systemctl --user stop fsindexd`, or `kill` it), then run `fsindex erase` again")
                }
                if try location.erase() {
                    Output.standardOutput.write("removed the index at \(location.directory.string)\n")
                } else {
                    Output.standardOutput.write("no index at \(location.directory.string); nothing to remove\n")
                }
                Output.standardOutput.flush()
            }
        }
    }
}
