import MemberwiseInit
import TOMLKit

extension Settings {
    /// An app that donates items to a domain, and the command the index runs when it needs
    /// them again (Core Spotlight's `CSIndexExtensionRequestHandler`):
    ///
    ///     [[provider]]
    ///     domain = "notes"
    ///     reindex = ["notes-cli", "reindex"]
    ///     timeout = 300
    ///
    /// The command gets the identifiers to donate again on stdin, one per line (none: all of
    /// them), donates them with `fsindex donate` (or over the socket), and acknowledges by
    /// exiting 0. It runs as the user, never through a shell.
    @MemberwiseInit
    package struct Provider: Sendable, Hashable {
        package var domain: String
        /// The program (found on PATH when it has no slash) and its arguments.
        package var reindex: [String]
        /// Seconds the command may run before it is stopped and counted as failed.
        package var timeoutSeconds: Double = 300
    }
}

extension KeyReader {
    /// `[[provider]]` tables: each a domain and a non-empty command; one provider per domain.
    func providers(_ v: any TOMLValueConvertible) throws(SettingsError) -> [Settings.Provider] {
        guard let array = v.array else { throw bad("provider", "[[provider]] tables, each with domain and reindex") }
        var out: [Settings.Provider] = []
        for element in array {
            guard let t = element.table else { throw bad("provider", "[[provider]] tables, each with domain and reindex") }
            var domain: String?, command: [String]?, timeout = 300.0
            for k in t.keys {
                let value = t[k]!
                let key = "provider." + k
                switch k {
                case "domain":
                    guard let d = value.string, Self.isDomain(d) else {
                        throw bad(key, "a domain name: 1 to 64 letters, digits, '.', '_' or '-'")
                    }
                    domain = d
                case "reindex":
                    let argv = try strings(value, key)
                    guard let first = argv.first, !first.isEmpty else { throw bad(key, "a command as an array, such as [\"notes-cli\", \"reindex\"]") }
                    command = argv
                case "timeout": timeout = try number(value, key, 1...86_400, "a number of seconds from 1 to 86400")
                default: throw unknown(key)
                }
            }
            guard let domain else { throw bad("provider.domain", "a domain in every [[provider]]") }
            guard let command else { throw bad("provider.reindex", "a reindex command in every [[provider]]") }
            guard !out.contains(where: { $0.domain == domain }) else { throw bad("provider.domain", "one [[provider]] per domain (\(domain) is there twice)") }
            out.append(Settings.Provider(domain: domain, reindex: command, timeoutSeconds: timeout))
        }
        return out
    }

    /// The domain names apps may use (as `DonationReader.validate`).
    static func isDomain(_ d: String) -> Bool {
        !d.isEmpty && d.utf8.count <= 64 && d != "." && d != ".." && d.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
    }
}
