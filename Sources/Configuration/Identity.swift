import Attributes
import Foundation
import SystemCalls
import SystemPackage
import Glibc

/// Finding who "me" is (`Identity`, in Attributes).
///
/// It comes from `[agent] me` when the config sets it, and otherwise from what the machine
/// already says about its user: the full name in the passwd entry, and `user.name` /
/// `user.email` in git's config files. For example, with `~/.gitconfig` holding
/// `[user] name = Ada Lovelace` and `email = ada@example.org`,
/// `Identity.resolve(configured: nil)` is `Identity(name: "Ada Lovelace", emails: ["ada@example.org"], source: "git")`.
///
/// A key design decision: git's files are read and parsed here, never by running `git`. The
/// MCP server resolves the identity too, and it must never run a program; reading two small
/// files is also what keeps `fsfind from:me` fast. The cost: `include.path`, `includeIf` and
/// `GIT_CONFIG_GLOBAL` are not followed (set `[agent] me` when they matter).
extension Identity {
    /// The identity to use: `configured` when the config sets one; otherwise the passwd entry's
    /// full name and git's `user.name` and `user.email` (git's name wins over passwd's). Nil
    /// when none of them says anything.
    ///
    /// `environment` gives `HOME` and `XDG_CONFIG_HOME` (git reads
    /// `$XDG_CONFIG_HOME/git/config`, else `~/.config/git/config`, then `~/.gitconfig`, the
    /// later winning); `passwdName` the full name, called only when git gives no name. Tests
    /// pass both; programs take the defaults. Cost: at most two small file reads and one
    /// `getpwuid(3)`; nothing is run.
    package static func resolve(configured: Identity?,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               passwdName: () -> String? = Identity.passwdFullName) -> Identity? {
        if let configured { return configured }
        var git = GitUser()
        for file in gitConfigFiles(environment: environment) {
            guard case .success(let bytes) = SystemCall.readFile(file, limit: maximumGitConfigSize) else { continue }
            git.read(String(decoding: bytes, as: UTF8.self))
        }
        let emails = git.email.map { [$0] } ?? []
        let name = git.name ?? passwdName()
        let fromPasswd = git.name == nil && name != nil
        let fromGit = git.name != nil || !emails.isEmpty
        guard name != nil || !emails.isEmpty else { return nil }
        let source = fromPasswd && fromGit ? "passwd and git" : (fromPasswd ? "passwd" : "git")
        return Identity(name: name, emails: emails, source: source)
    }

    /// git's per-user config files, in the order git reads them (a later value wins).
    static func gitConfigFiles(environment: [String: String]) -> [FilePath] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        var files: [FilePath] = []
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            files.append(FilePath(xdg + "/git/config"))
        } else if let home {
            files.append(FilePath(home + "/.config/git/config"))
        }
        if let home { files.append(FilePath(home + "/.gitconfig")) }
        return files
    }

    /// A git config file is a few hundred bytes; a larger one is not read.
    static let maximumGitConfigSize = 1 << 20

    /// The full name of the user running this process: the GECOS field of its passwd entry up
    /// to the first comma (the rest is office and telephone), with `&` standing for the login
    /// name capitalized, as finger(1) reads it. Nil when the field is empty.
    package static func passwdFullName() -> String? {
        guard let entry = getpwuid(getuid()), let gecos = entry.pointee.pw_gecos else { return nil }
        let login = entry.pointee.pw_name.map { String(cString: $0) } ?? ""
        return fullName(gecos: String(cString: gecos), login: login)
    }

    /// The name in a GECOS field (`Ada Lovelace,Room 12,,` gives "Ada Lovelace").
    static func fullName(gecos: String, login: String) -> String? {
        let first = gecos.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let name = first.replacing("&", with: login.prefix(1).uppercased() + login.dropFirst())
            .trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }
}

/// `user.name` and `user.email` from git's INI-style config files.
///
/// What git's format allows and matters here: sections `[user]` (names ignore case; a
/// subsection such as `[user "x"]` is another section), a key-value pair on the header's line
/// (`[user] name = Ada`), `#` and `;` comments, double-quoted values with `\"`, `\\`, `\t` and
/// `\n` escapes, and the last value of a key winning.
struct GitUser {
    var name: String?
    var email: String?

    mutating func read(_ text: String) {
        var inUser = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            var line = Substring(rawLine).drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                guard let close = line.firstIndex(of: "]") else { inUser = false; continue }
                let header = line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces)
                inUser = header.lowercased() == "user"
                line = line[line.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            }
            guard inUser, let (key, value) = Self.pair(line) else { continue }
            let cleaned = value.trimmingCharacters(in: .whitespaces)
            switch key.lowercased() {
            case "name": name = cleaned.isEmpty ? nil : cleaned
            case "email": email = cleaned.isEmpty ? nil : cleaned
            default: break
            }
        }
    }

    /// `key = value` with the value's quotes, escapes and trailing comment undone; nil for a
    /// comment, a blank line or a key without a value.
    static func pair(_ line: Substring) -> (String, String)? {
        guard let eq = line.firstIndex(of: "="), let first = line.first, first != "#", first != ";" else { return nil }
        let key = line[..<eq].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        var value = ""
        var quoted = false
        var chars = line[line.index(after: eq)...].makeIterator()
        while let c = chars.next() {
            if c == "\\" {
                if let e = chars.next() { value.append(e == "n" ? "\n" : (e == "t" ? "\t" : e)) }
                continue
            }
            if c == "\"" { quoted.toggle(); continue }
            if !quoted, c == "#" || c == ";" { break }
            value.append(c)
        }
        return (key, value)
    }
}
