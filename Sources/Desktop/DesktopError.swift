/// What went wrong answering the desktop, each with a message a user can act on.
package enum DesktopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The query could not be answered (a bad query, the index missing or damaged).
    case query(String)
    /// A result id that no search of this process returned and that names no item.
    case unknownResult(String)
    /// The item to open is gone from disk, or a donated item has no URL to open.
    case cannotOpen(String)
    /// The opening program could not be started or failed.
    case opener(String)
    /// The session bus could not be used.
    case bus(String)

    package var description: String {
        switch self {
        case .query(let m), .cannotOpen(let m), .opener(let m), .bus(let m): m
        case .unknownResult(let id): "no such result: \(id) (ids come from GetInitialResultSet or Match)"
        }
    }
}
