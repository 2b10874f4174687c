import Foundation
import SystemCalls
import SystemPackage

/// The user's XDG folders (Desktop, Documents, …) as `xdg-user-dirs` records them in
/// `$XDG_CONFIG_HOME/user-dirs.dirs`: lines such as `XDG_DOCUMENTS_DIR="$HOME/Documents"`.
///
/// For example:
/// ```swift
/// UserDirectories.parse("XDG_MUSIC_DIR=\"$HOME/Musik\"\n", home: "/home/ada")["MUSIC"]   // "/home/ada/Musik"
/// ```
/// The file is shell syntax, but xdg-user-dirs writes (and reads) only one form: a value in
/// double quotes that is `$HOME/…` or an absolute path, `\` escaping the next character. That is
/// what is read here; a line of another form is skipped, as `xdg-user-dir` skips it.
package enum UserDirectories {
    /// The folders the defaults index, in Tracker's order.
    package static let indexed = ["DESKTOP", "DOCUMENTS", "DOWNLOAD", "MUSIC", "PICTURES", "VIDEOS"]

    /// The names the folders have when `user-dirs.dirs` is absent (xdg-user-dirs' own defaults).
    static let fallbackNames = ["DESKTOP": "Desktop", "DOCUMENTS": "Documents", "DOWNLOAD": "Downloads",
                                "MUSIC": "Music", "PICTURES": "Pictures", "VIDEOS": "Videos"]

    /// `user-dirs.dirs`' place: `$XDG_CONFIG_HOME/user-dirs.dirs`, else `~/.config/user-dirs.dirs`.
    package static func filePath(environment: [String: String]) -> String {
        if let x = environment["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x + "/user-dirs.dirs" }
        return (environment["HOME"] ?? "") + "/.config/user-dirs.dirs"
    }

    /// The folders a `user-dirs.dirs` text names, by name without `XDG_` and `_DIR` (`DOCUMENTS`).
    /// A folder equal to `home` means "unset" (xdg-user-dirs' own convention) and is left out.
    package static func parse(_ text: String, home: String) -> [String: String] {
        var out: [String: String] = [:]
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq]
            guard key.hasPrefix("XDG_"), key.hasSuffix("_DIR"), key.count > 8 else { continue }
            let name = String(key.dropFirst(4).dropLast(4))
            var value = line[line.index(after: eq)...]
            // Spaces or a comment after the closing quote are allowed; nothing else.
            guard value.first == "\"" else { continue }
            value = value.dropFirst()
            var text = ""
            var closed = false
            var escaped = false
            for c in value {
                if escaped { text.append(c); escaped = false; continue }
                if c == "\\" { escaped = true; continue }
                if c == "\"" { closed = true; break }
                text.append(c)
            }
            guard closed else { continue }
            let path: String
            if text == "$HOME" {
                path = home
            } else if text.hasPrefix("$HOME/") {
                path = home + text.dropFirst(5)
            } else if text.hasPrefix("/") {
                path = text
            } else {
                continue
            }
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            let homeTrimmed = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
            if trimmed == homeTrimmed { continue }   // "unset"
            out[name] = trimmed
        }
        return out
    }

    /// The folders to index by default, in `indexed`'s order: from `user-dirs.dirs` when it
    /// exists (a folder it leaves out or sets to HOME is not indexed), else `~/Desktop`,
    /// `~/Documents`, `~/Downloads`, `~/Music`, `~/Pictures`, `~/Videos`. Whether they exist is
    /// not checked here.
    package static func defaultFolders(environment: [String: String]) -> [String] {
        guard let home = environment["HOME"], home.hasPrefix("/") else { return [] }
        let homeTrimmed = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        switch SystemCall.readFile(filePath(environment: environment), limit: 1 << 16) {
        case .success(let bytes):
            let dirs = parse(String(decoding: bytes, as: UTF8.self), home: homeTrimmed)
            return indexed.compactMap { dirs[$0] }
        case .failure:
            return indexed.map { homeTrimmed + "/" + fallbackNames[$0]! }
        }
    }
}
