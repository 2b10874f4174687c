import Attributes
import Foundation
import MemberwiseInit
import Glibc

/// Where the shared index lives: a PostgreSQL URL in libpq's form,
/// `postgresql://[user[:password]@][host][:port]/database[?host=/run/postgresql&port=5432]`.
///
/// A `host` that starts with `/` (in the authority or as a parameter) is the folder of the
/// server's Unix socket, as with libpq; no host at all means `/run/postgresql`, Debian's socket
/// folder. The user defaults to the login name, as libpq's does, so that peer authentication
/// maps each OS user to the role of the same name (see fsindex(1), SHARED INDEX).
@MemberwiseInit
package struct SharedIndexURL: Sendable, Hashable, CustomStringConvertible {
    package enum Endpoint: Sendable, Hashable {
        case socket(path: String)
        case tcp(host: String, port: Int)
    }
    package var endpoint: Endpoint
    package var user: String
    package var password: String?
    package var database: String
    /// libpq's `requirepeer`: the OS user the server behind a Unix socket must run as. Without
    /// it, the server must run as `postgres` (Debian's), as root, or as this user (a cluster of
    /// one's own); see `PostgresLink.connect`.
    package var requirePeer: String?

    /// Parses `text`; the error says what is wrong with it.
    package init(_ text: String, defaultUser: String? = nil) throws(SharedIndexError) {
        let bad = { (why: String) -> SharedIndexError in .badURL(url: Self.redacted(text), reason: why) }
        var rest: Substring
        if text.hasPrefix("postgresql://") { rest = text.dropFirst("postgresql://".count) }
        else if text.hasPrefix("postgres://") { rest = text.dropFirst("postgres://".count) }
        else { throw bad("it must start with postgresql://") }
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") { query = rest[rest.index(after: q)...]; rest = rest[..<q] }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") { path = rest[rest.index(after: slash)...]; rest = rest[..<slash] }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = try Self.decode(credentials[..<colon], bad)
                password = try Self.decode(credentials[credentials.index(after: colon)...], bad)
            } else {
                user = try Self.decode(credentials, bad)
            }
        }
        var host: String?
        var port = 5432
        if !rest.isEmpty {
            if let colon = rest.lastIndex(of: ":"), !rest.hasPrefix("[") {
                host = try Self.decode(rest[..<colon], bad)
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw bad("the port must be a number from 1 to 65535") }
                port = p
            } else {
                host = try Self.decode(rest, bad)
            }
        }
        var database = try Self.decode(path, bad)
        var requirePeer: String?
        for pair in query.split(separator: "&") where !pair.isEmpty {
            guard let eq = pair.firstIndex(of: "=") else { throw bad("the parameter \(pair) has no value") }
            let key = String(pair[..<eq]), value = try Self.decode(pair[pair.index(after: eq)...], bad)
            switch key {
            case "host": host = value
            case "port":
                guard let p = Int(value), (1...65535).contains(p) else { throw bad("the port must be a number from 1 to 65535") }
                port = p
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "requirepeer":
                guard !value.isEmpty else { throw bad("requirepeer needs a user name") }
                requirePeer = value
            case "sslmode", "connect_timeout", "application_name":
                if key == "sslmode", !["disable", "allow", "prefer"].contains(value) {
                    throw bad("sslmode=\(value) is not supported: FSIndex connects without TLS (use a Unix socket, or a tunnel)")
                }
            default: throw bad("unknown parameter \(key) (known: host, port, user, password, dbname, sslmode, requirepeer)")
            }
        }
        guard let user = user ?? defaultUser ?? Self.loginName() else { throw bad("no user is given and the login name is unknown") }
        if database.isEmpty { database = user }
        self.user = user
        self.password = password
        self.database = database
        self.requirePeer = requirePeer
        let h = host ?? "/run/postgresql"
        endpoint = h.hasPrefix("/") ? .socket(path: h + "/.s.PGSQL.\(port)") : .tcp(host: h, port: port)
    }

    /// The URL with the password hidden, for messages and logs.
    package var description: String {
        let credentials = user + (password == nil ? "" : ":***")
        switch endpoint {
        case .socket(let path):
            let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            let port = path.split(separator: ".").last.map(String.init) ?? "5432"
            return "postgresql://\(credentials)@/\(database)?host=\(folder)&port=\(port)" + (requirePeer.map { "&requirepeer=\($0)" } ?? "")
        case .tcp(let host, let port):
            return "postgresql://\(credentials)@\(host):\(port)/\(database)"
        }
    }

    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://"),
              let colon = text[scheme.upperBound..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    private static func decode(_ s: Substring, _ bad: (String) -> SharedIndexError) throws(SharedIndexError) -> String {
        var bytes: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        while i < u.endIndex {
            let b = u[i]
            if b == UInt8(ascii: "%") {
                let h1 = u.index(after: i)
                guard h1 < u.endIndex, u.index(after: h1) < u.endIndex,
                      let hi = ByteString.hexDigit(u[h1]), let lo = ByteString.hexDigit(u[u.index(after: h1)]) else { throw bad("a % is not followed by two hex digits") }
                bytes.append(hi << 4 | lo)
                i = u.index(h1, offsetBy: 2)
            } else {
                bytes.append(b)
                i = u.index(after: i)
            }
        }
        guard let out = String(validating: bytes, as: UTF8.self) else { throw bad("it is not UTF-8 once decoded") }
        return out
    }

    static func loginName() -> String? {
        if let u = ProcessInfo.processInfo.environment["PGUSER"], !u.isEmpty { return u }
        return AccountNames.name(ofUser: getuid())
    }
}
