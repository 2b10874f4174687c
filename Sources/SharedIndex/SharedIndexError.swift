import Indexing

/// What can go wrong with the shared PostgreSQL index, each with a message that names the fix.
package enum SharedIndexError: Error, Sendable, CustomStringConvertible {
    case badURL(url: String, reason: String)
    /// The server cannot be reached (not running, wrong socket or port, refused).
    case unreachable(url: String, detail: String)
    /// The connection was lost during a request; nothing of an unfinished batch was committed.
    case connectionLost(url: String, detail: String)
    /// The server refused our role or database.
    case refused(url: String, detail: String)
    /// The process behind the Unix socket is not the server's user: nothing was sent to it.
    case untrustedServer(url: String, detail: String)
    /// The server is older than PostgreSQL 15, or lacks pg_trgm.
    case unsupportedServer(url: String, detail: String)
    /// The database was set up by a newer fsindex.
    case schemaTooNew(url: String, unknownMigrations: [String])
    /// Another watcher publishes this domain of this host.
    case domainOwned(host: String, domain: String, watcher: String)
    /// Any other error the server reported, with its SQLSTATE.
    case server(url: String, code: String, message: String)
    /// The local index could not be read: its error.
    case local(IndexError)

    package var description: String {
        switch self {
        case let .badURL(url, reason):
            "the index URL \(url) is not usable: \(reason); the form is postgresql://user@/database?host=/run/postgresql&port=5432"
        case let .unreachable(url, detail):
            "cannot reach the PostgreSQL server of \(url) (\(detail)); check that it runs and that the socket folder or host and port are right"
        case let .connectionLost(url, detail):
            "the connection to \(url) was lost (\(detail)); the unfinished batch was not committed"
        case let .refused(url, detail):
            "the PostgreSQL server of \(url) refused the connection (\(detail)); check the role, the database and pg_hba.conf"
        case let .untrustedServer(url, detail):
            "refused to talk to the socket of \(url): \(detail); nothing was sent to it"
        case let .unsupportedServer(url, detail):
            "the PostgreSQL server of \(url) cannot hold the index: \(detail)"
        case let .schemaTooNew(url, unknown):
            "the index at \(url) was set up by a newer fsindex (it has \(unknown.joined(separator: ", "))); upgrade fsindex"
        case let .domainOwned(host, domain, watcher):
            "the domain \(domain) of host \(host) is published by another watcher (\(watcher)); stop it, or run `fsindex forget --host \(host)` to release the host's items"
        case let .server(url, code, message):
            "the index at \(url) failed (PostgreSQL \(code): \(message))"
        case let .local(error):
            "the local index could not be read: \(error)"
        }
    }

    /// Whether retrying later may succeed: the server went away or is not up yet.
    package var isTransient: Bool {
        switch self {
        case .unreachable, .connectionLost: true
        case .server(_, let code, _): code.hasPrefix("57P") || code.hasPrefix("08") || code == "40001" || code == "40P01" || code == "53300"
        default: false
        }
    }
}
