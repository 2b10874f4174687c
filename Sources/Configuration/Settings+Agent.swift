import Attributes
import Foundation
import TOMLKit
import Glibc

// The `[agent]` section's values that need more than a type check: folders, the guidance
// syntax and the `me` table.

extension KeyReader {
    /// An array of folders, each absolute or starting with `~/` (or `~` alone), which becomes
    /// the home folder here, so that every program sees the same absolute paths.
    ///
    /// For example, with HOME=/home/ada, `["~/Documents", "/srv/shared"]` gives
    /// `["/home/ada/Documents", "/srv/shared"]`.
    func folders(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> [String] {
        let expected = "an array of folders, each absolute or under ~ (\"/srv/shared\", \"~/Documents\")"
        guard v.array != nil else { throw bad(key, expected) }
        var out: [String] = []
        for s in try strings(v, key) {
            if s == "~" || s.hasPrefix("~/") {
                guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else {
                    throw bad(key, expected + "; HOME is not set, so \"\(s)\" cannot be expanded")
                }
                out.append(home + s.dropFirst())
            } else if s.hasPrefix("/") {
                out.append(s)
            } else {
                throw bad(key, expected + ", not \"\(s)\"")
            }
        }
        return out
    }

    /// `complete`, `focused:KIND,...` (a non-empty list of kinds) or `dynamic:TECHNIQUE,...`
    /// (techniques from `Settings.Agent.techniques`).
    func guidance(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> String {
        let techniques = Settings.Agent.techniques.joined(separator: ", ")
        let expected = "\"complete\", \"focused:KIND,...\" (such as \"focused:pdf,mail\") or \"dynamic:TECHNIQUE,...\" with techniques from \(techniques)"
        guard let s = v.string else { throw bad(key, expected) }
        if s == "complete" { return s }
        let parts = s.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "focused" || parts[0] == "dynamic" else { throw bad(key, expected) }
        let items = parts[1].split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.contains(where: \.isEmpty) else {
            throw bad(key, "a non-empty comma-separated list after \"\(parts[0]):\", such as \"" + (parts[0] == "focused" ? "focused:pdf,mail" : "dynamic:text,dates") + "\"")
        }
        if parts[0] == "dynamic", let unknown = items.first(where: { !Settings.Agent.techniques.contains($0) }) {
            throw bad(key, "techniques from \(techniques) after \"dynamic:\", not \"\(unknown)\"")
        }
        return s
    }

    /// `me = { name = "Ada Lovelace", emails = ["ada@example.org"] }` (or `email = "..."`, or a
    /// `[agent.me]` table): at least a name or an address.
    func identity(_ v: any TOMLValueConvertible, _ key: String) throws(SettingsError) -> Identity {
        let example = "{ name = \"Ada Lovelace\", emails = [\"ada@example.org\"] }"
        guard let table = v.table else { throw bad(key, "a table such as \(example)") }
        var me = Identity(source: "config")
        // Errors name the inner key and point at the line of `me`, where the table is written.
        func inner(_ k: String, _ expected: String) -> SettingsError {
            .invalid(file: file, line: line(of: key), key: key + "." + k, message: "expected \(expected)")
        }
        for k in table.keys {
            let value = table[k]!
            switch k {
            case "name":
                guard let s = value.string?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { throw inner(k, "a non-empty name") }
                me.name = s
            case "email", "emails":
                var list: [String]
                if let one = value.string { list = [one] } else if let many = value.array {
                    list = []
                    for e in many {
                        guard let s = e.string else { throw inner(k, "e-mail addresses") }
                        list.append(s)
                    }
                } else {
                    throw inner(k, k == "email" ? "an e-mail address" : "an array of e-mail addresses")
                }
                list = list.map { $0.trimmingCharacters(in: .whitespaces) }
                if let wrong = list.first(where: { !$0.contains("@") || $0.contains(where: \.isWhitespace) }) {
                    throw inner(k, "e-mail addresses such as \"ada@example.org\", not \"\(wrong)\"")
                }
                me.emails += list.filter { !me.emails.contains($0) }
            default:
                throw .invalid(file: file, line: line(of: key), key: key + "." + k, message: "unknown setting (me takes name, emails and email)")
            }
        }
        guard !me.isEmpty else { throw bad(key, "a name or an e-mail address: me = \(example)") }
        return me
    }
}
