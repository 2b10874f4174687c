import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A value bound to a statement's `$n`: user text only ever reaches PostgreSQL this way.
package enum SQLValue: Sendable, Hashable {
    case text(String?)
    case int(Int64?)
    case double(Double?)
    case bytes([UInt8]?)
    case bool(Bool)
    case texts([String])
    case ints([Int32])
    case byteArrays([[UInt8]])
}

/// One connection to the shared index, used synchronously: FSIndex's stages are synchronous
/// and run on threads of their own, so each request waits on its future; NIO's event loop does
/// the work, and no Swift concurrency thread is ever blocked waiting for another.
package final class PostgresLink: @unchecked Sendable {
    package let url: SharedIndexURL
    let connection: PostgresConnection
    let logger: Logger
    /// Held for one request at a time: the connection answers requests in order, and two
    /// threads' requests must not interleave.
    private let lock = Mutex<Void>(())

    private init(url: SharedIndexURL, connection: PostgresConnection, logger: Logger) {
        self.url = url
        self.connection = connection
        self.logger = logger
    }

    /// Connects; the error says whether the server is missing, refused us, or failed otherwise.
    package static func connect(_ url: SharedIndexURL, timeout: Double = 10) throws(SharedIndexError) -> PostgresLink {
        var logger = Logger(label: "fsindex.postgres")
        logger.logLevel = .critical
        // One loop for the socket's channel and the connection: PostgresNIO adds its handlers on it.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let configuration: PostgresConnection.Configuration
        switch url.endpoint {
        case .socket(let path):
            // The socket is connected and its server's user checked before a byte is sent (our
            // role's name, a password): a socket folder in /tmp, or any that another user can
            // write, may hold their socket instead of the server's.
            let channel = try ServerPeer.connect(path: path, url: url, on: loop)
            configuration = .init(establishedChannel: channel, username: url.user, password: url.password, database: url.database)
        case .tcp(let host, let port):
            configuration = .init(host: host, port: port, username: url.user, password: url.password, database: url.database, tls: .disable)
        }
        var config = configuration
        config.options.connectTimeout = .milliseconds(Int64(timeout * 1000))
        do {
            let connection = try PostgresConnection.connect(on: loop, configuration: config, id: 1, logger: logger).wait()
            return PostgresLink(url: url, connection: connection, logger: logger)
        } catch {
            throw map(error, url: url, connecting: true)
        }
    }

    /// Runs one statement with bound values and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ values: [SQLValue] = []) throws(SharedIndexError) -> [PostgresRow] {
        var binds = PostgresBindings(capacity: values.count)
        for v in values {
            switch v {
            case .text(let s): binds.append(s)
            case .int(let i): binds.append(i)
            case .double(let d): binds.append(d)
            case .bytes(let b): if let b { binds.append(ByteBuffer(bytes: b)) } else { binds.appendNull() }
            case .bool(let b): binds.append(b)
            case .texts(let a): binds.append(a)
            case .ints(let a): binds.append(a)
            case .byteArrays(let a): binds.append(a.map { ByteBuffer(bytes: $0) })
            }
        }
        return try lock.withLock { _ throws(SharedIndexError) -> [PostgresRow] in
            do {
                try checkOpen()
                return try bounded(connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)).rows
            } catch {
                throw Self.map(error, url: url, connecting: false)
            }
        }
    }

    /// Runs statements without bound values (several, separated by `;`): the schema's.
    package func execute(_ sql: String) throws(SharedIndexError) {
        try lock.withLock { _ throws(SharedIndexError) in
            do {
                try checkOpen()
                _ = try bounded(connection.simpleQuery(sql))
            } catch {
                throw Self.map(error, url: url, connecting: false)
            }
        }
    }

    /// Runs `body` in one transaction: committed whole, or (an error, a lost connection) not at all.
    package func transaction<T>(_ body: () throws(SharedIndexError) -> T) throws(SharedIndexError) -> T {
        try execute("BEGIN")
        do {
            let out = try body()
            try execute("COMMIT")
            return out
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Calls `handler` with each notification's payload on `channel` until `close`.
    package func listen(_ channel: String, handler: @escaping @Sendable (String) -> Void) throws(SharedIndexError) {
        connection.addListener(channel: channel) { _, message in handler(message.payload) }
        try execute("LISTEN " + channel)
    }

    package var isClosed: Bool { connection.isClosed }

    /// Longest wait for one request: past it the connection is taken for lost (a server that
    /// vanished without closing the socket), and closed.
    package static let requestTimeout: TimeAmount = .seconds(300)

    private func checkOpen() throws {
        if connection.isClosed { throw PostgresError.connectionClosed }
    }

    /// Waits for `future`, at most `requestTimeout`.
    private func bounded<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        let timer = future.eventLoop.scheduleTask(in: Self.requestTimeout) {
            promise.fail(PostgresError.connectionClosed)
        }
        future.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        do {
            return try promise.futureResult.wait()
        } catch {
            if case PostgresError.connectionClosed = error { connection.close().whenComplete { _ in } }
            throw error
        }
    }

    package func close() {
        try? connection.close().wait()
    }

    deinit {
        // PostgresNIO requires a closed connection before it goes away (debug builds assert).
        if !connection.isClosed { try? connection.close().wait() }
    }

    /// PostgreSQL's and NIO's errors as `SharedIndexError`s.
    static func map(_ error: any Error, url: SharedIndexURL, connecting: Bool) -> SharedIndexError {
        let u = url.description
        if let legacy = error as? PostgresError {
            switch legacy {
            case .server(let m):
                let code = m.fields[.sqlState] ?? "XX000"
                let message = m.fields[.message] ?? "no message"
                if code.hasPrefix("57P") || code.hasPrefix("08") { return .connectionLost(url: u, detail: message) }
                return .server(url: u, code: code, message: message)
            case .protocol(let m): return .connectionLost(url: u, detail: m)
            case .connectionClosed: return .connectionLost(url: u, detail: "the server closed the connection")
            }
        }
        guard let e = error as? PSQLError else {
            let text = "\(error)"
            return connecting ? .unreachable(url: u, detail: text) : .connectionLost(url: u, detail: text)
        }
        if let info = e.serverInfo {
            let code = info[.sqlState] ?? "XX000"
            let message = info[.message] ?? "no message"
            if code == "28000" || code == "28P01" || code == "3D000" || code == "42501" && connecting {
                return .refused(url: u, detail: message)
            }
            if code.hasPrefix("57P") || code.hasPrefix("08") {
                return .connectionLost(url: u, detail: message)
            }
            return .server(url: u, code: code, message: message)
        }
        let detail = e.underlying.map { "\($0)" } ?? "\(e.code)"
        if connecting { return .unreachable(url: u, detail: detail) }
        return .connectionLost(url: u, detail: detail)
    }
}

extension PostgresRow {
    /// The column's value, or nil when it is NULL or of another type.
    package func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) -> T? {
        try? makeRandomAccess()[column].decode(T.self)
    }

    /// A bytea column's bytes.
    package func bytes(_ column: String) -> [UInt8]? {
        guard let buffer = try? makeRandomAccess()[column].decode(ByteBuffer.self) else { return nil }
        return Array(buffer.readableBytesView)
    }
}
