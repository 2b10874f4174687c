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
        throw CommandFailure(error.description)
    }
}

/// Sends one request to the running fsindexd and prints its answer (pause, resume).
func sendToDaemon(_ request: ControlRequest, store: IndexOptions) throws {
    let location = store.location()
    guard let client = try connectDaemon(location) else {
        throw CommandFailure("fsindexd is not running for the index at \(location.directory.string); start it with `fsindexd`")
    }
    do {
        switch try client.request(request, timeout: .seconds(10)) {
        case .ok(let message): Output.standardOutput.write("fsindexd: \(Output.field(message))\n")
        case .error(let message):
            throw CommandFailure(message)
        default: break
        }
    } catch let e as ControlError {
        throw CommandFailure(e.description)
    }
    Output.standardOutput.flush()
}
