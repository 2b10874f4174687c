/// What can go wrong with the index, each with a message that names the fix.
package enum IndexError: Error, Sendable, CustomStringConvertible {
    /// The database was written by a newer fsindex.
    case schemaTooNew(path: String, unknownMigrations: [String])
    /// The database was written by an older fsindex and a reader cannot upgrade it.
    case schemaTooOld(path: String)
    /// There is no index at this location.
    case missing(path: String)
    /// The disk (or the configured size limit) is full; the batch was rolled back.
    case diskFull(path: String)
    /// The database file is damaged.
    case corrupt(path: String, detail: String)
    /// Another process holds the write lock for longer than we waited.
    case locked(path: String)
    /// A client state larger than Core Spotlight's 250-byte limit.
    case clientStateTooLarge(size: Int)
    /// The index directory could not be created or secured.
    case directory(path: String, errno: Int32, message: String)
    /// Any other SQLite failure, with SQLite's own words kept for `--verbose` logs only.
    case database(path: String, code: Int32, message: String)

    package var description: String {
        switch self {
        case let .schemaTooNew(path, unknown):
            "the index at \(path) was written by a newer fsindex (it has \(unknown.joined(separator: ", "))); upgrade fsindex, or run `fsindex erase` and index again"
        case let .schemaTooOld(path):
            "the index at \(path) was written by an older fsindex; run `fsindex index` (or restart fsindexd) to upgrade it"
        case let .missing(path):
            "no index at \(path); run `fsindex index PATH` first"
        case let .diskFull(path):
            "the disk holding \(path) is full; the last batch was rolled back and the index is unchanged. Free some space and run `fsindex index` again"
        case let .corrupt(path, detail):
            "the index at \(path) is damaged (\(detail)); run `fsindex erase` and index again"
        case let .locked(path):
            "the index at \(path) is locked by another fsindex; wait for it to finish"
        case let .clientStateTooLarge(size):
            "a client state holds at most 250 bytes (got \(size))"
        case let .directory(path, _, message):
            "cannot use the index directory \(path): \(message)"
        case let .database(path, code, message):
            "the index at \(path) failed (SQLite error \(code): \(message))"
        }
    }
}
