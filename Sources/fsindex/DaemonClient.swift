import ArgumentParser
import CommandSupport
import Controlling
import FoundationEssentials
import Indexing
import SystemPackage

/// Connects to the fsindexd serving this index, or returns nil when none runs.
func connectDaemon(_ location: IndexLocation) throws -> ControlClient? {
    do {
        return try ControlClient.connect(ControlLocation.forIndex(directory: location.directory))
    } catch {
        if case .noDaemon = error { return nil }
        // A socket folder that is not ours alone (another user made /tmp/fsindex-<uid> first):
        // no fsindexd of ours can serve there, so the work is done here, and the user is told.
        if case .unsafeDirectory = error {
            Output.error("fsindex", "warning: not talking to fsindexd: \(error.description)")
            return nil
        }
        Output.error("fsindex", error.description)
        throw ExitCode(2)
    }
}

/// Sends one request to the running fsindexd and prints its answer (pause, resume).
func sendToDaemon(_ request: ControlRequest, store: StoreOptions) throws {
    let location = IndexLocation.resolve(explicit: store.indexDir)
    guard let client = try connectDaemon(location) else {
        Output.error("fsindex", "fsindexd is not running for the index at \(location.directory.string); start it with `fsindexd`")
        throw ExitCode(2)
    }
    do {
        switch try client.request(request, timeout: .seconds(10)) {
        case .ok(let message): Output.standardOutput.write("fsindexd: \(Output.field(message))\n")
        case .error(let message):
            Output.error("fsindex", message)
            throw ExitCode(2)
        default: break
        }
    } catch let e as ControlError {
        Output.error("fsindex", e.description)
        throw ExitCode(2)
    }
    Output.standardOutput.flush()
}
