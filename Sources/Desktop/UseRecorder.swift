import Attributes
import Controlling
import Foundation
import Indexing

/// Records that items were used now: through fsindexd when it runs (it owns the index's
/// writes), else in the index directly. What `fsindex used` does, shared with `fsindex open`
/// and the search boxes, so that opening a result teaches the ranking.
package enum UseRecorder {
    package struct Recorded: Sendable, Hashable {
        package var identifier: [UInt8]
        package var useCount: Int64
        /// False when the item is not indexed yet (the use applies when it is).
        package var indexed: Bool
    }

    package static func record(_ identifiers: [[UInt8]], title: String? = nil, location: IndexLocation,
                              now: Date = Date()) throws(DesktopError) -> [Recorded] {
        let client: ControlClient?
        do {
            client = try ControlClient.connect(ControlLocation.forIndex(directory: location.directory))
        } catch {
            guard case .noDaemon = error else {
                if case .unsafeDirectory = error { return try direct(identifiers, title: title, location: location, now: now) }
                throw .useNotRecorded(error)
            }
            client = nil
        }
        guard let client else { return try direct(identifiers, title: title, location: location, now: now) }
        defer { client.close() }
        do {
            switch try client.request(.used(paths: identifiers, title: title), timeout: .seconds(30)) {
            case .usesRecorded(let r):
                return (0..<r.paths.count).map { Recorded(identifier: r.paths[$0], useCount: r.useCounts[$0], indexed: r.indexed[$0]) }
            case .error(let m): throw DesktopError.useNotRecorded(DaemonRefusal(message: m))
            default: throw DesktopError.useNotRecorded(DaemonRefusal(message: "fsindexd gave an unexpected answer; is it the same version as fsindex?"))
            }
        } catch let e as DesktopError {
            throw e
        } catch {
            throw .useNotRecorded(error)
        }
    }

    private static func direct(_ identifiers: [[UInt8]], title: String?, location: IndexLocation, now: Date) throws(DesktopError) -> [Recorded] {
        do {
            let (store, _) = try IndexStore.openRecovering(location: location)
            return try store.recordUses(identifiers.map { ItemUse(identifier: ItemIdentifier(bytes: $0), date: now, title: title) })
                .map { Recorded(identifier: $0.identifier.bytes, useCount: $0.useCount, indexed: $0.indexed) }
        } catch {
            throw .useNotRecorded(error)
        }
    }
}

/// What fsindexd answered instead of doing what was asked.
struct DaemonRefusal: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
