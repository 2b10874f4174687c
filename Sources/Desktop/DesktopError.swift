import Indexing
import Querying

/// What went wrong answering the desktop, each with a message a user can act on, and the cause
/// kept where there is one.
package enum DesktopError: Error, Sendable, CustomStringConvertible {
    /// The query was refused (no terms, a term that would be an option, too many ids).
    case query(String)
    /// The query could not be answered: the engine's error.
    case search(QueryError)
    /// The index could not be read (missing, damaged, another version).
    case index(IndexError)
    /// A result id that no search of this process returned and that names no item.
    case unknownResult(String)
    /// The item to open is gone from disk, or a donated item has no URL to open.
    case cannotOpen(String)
    /// The opening program could not be started or failed.
    case opener(String)
    /// The use of an opened item was not recorded: why.
    case useNotRecorded(any Error)
    /// The session bus could not be used.
    case bus(String)

    package var description: String {
        switch self {
        case .query(let m), .cannotOpen(let m), .opener(let m), .bus(let m): m
        case .search(let e): e.description
        case .index(let e): "the index cannot be read: \(e)"
        case .useNotRecorded(let e): "recording the use: \(e)"
        case .unknownResult(let id): "no such result: \(id) (ids come from GetInitialResultSet or Match)"
        }
    }
}
