import ArgumentParser
import CommandSupport
import Indexing
import SystemPackage

extension FSIndexCommand {
    struct Erase: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the index (like mdutil -E). The files themselves are not touched.")

        @OptionGroup var store: StoreOptions

        func run() throws {
            let location = IndexLocation.resolve(explicit: store.indexDir)
            do {
                if try location.erase() {
                    Output.standardOutput.write("removed the index at \(location.directory.string)\n")
                } else {
                    Output.standardOutput.write("no index at \(location.directory.string); nothing to remove\n")
                }
            } catch {
                Output.error("fsindex", error.description)
                throw ExitCode(2)
            }
            Output.standardOutput.flush()
        }
    }
}
