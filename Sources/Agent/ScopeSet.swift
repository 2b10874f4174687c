import Attributes
import CommandSupport
import SystemCalls
import SystemPackage
import Glibc

/// The folders an agent may see (FileSource's sources): absolute, resolved paths. Every path a
/// tool returns or reads is checked against them; a call's own `scopes` can only narrow them.
///
/// Paths cross the protocol as `ArgumentBytes` strings: a name that is not UTF-8 keeps its bytes
/// (as private-use characters) and comes back to `read_text` exactly.
package struct ScopeSet: Sendable, Hashable {
    /// Absolute folder paths, without a trailing slash (but `/` itself), none inside another.
    package let folders: [[UInt8]]

    /// Resolves (`realpath`) and de-duplicates the folders; a folder that does not exist is an
    /// error naming it.
    package init(folders arguments: [String]) throws(AgentError) {
        var resolved: [[UInt8]] = []
        for argument in arguments {
            guard let folder = PathArgument.folder(argument) else {
                throw .options("scope \(ArgumentBytes.display(argument)) is not a folder (no such folder, or it cannot be read)")
            }
            resolved.append(folder)
        }
        self.init(resolved: resolved)
    }

    /// Folders already absolute and resolved (the index's roots).
    package init(resolved: [[UInt8]]) {
        let cleaned = resolved.map(Self.trimmed)
        // Drop folders inside another: they add nothing and would count items twice.
        folders = Array(Set(cleaned)).sorted { $0.lexicographicallyPrecedes($1) }.filter { f in
            !cleaned.contains { other in other != f && Self.isInside(f, folder: other) }
        }
    }

    package var isEmpty: Bool { folders.isEmpty }

    /// The folders as the model reads them.
    package var display: [String] { folders.map(ArgumentBytes.encode) }

    /// Whether `path` is one of the folders or inside one.
    package func contains(_ path: [UInt8]) -> Bool {
        folders.contains { Self.isInside(path, folder: $0) }
    }

    /// The folder holding `path` and the path relative to it (`.` for the folder itself).
    package func relative(_ path: [UInt8]) -> (folder: [UInt8], relative: [UInt8])? {
        // The longest folder first: the most specific.
        for f in folders.sorted(by: { $0.count > $1.count }) where Self.isInside(path, folder: f) {
            if path.count == f.count { return (f, Array(".".utf8)) }
            let start = f == [0x2F] ? 1 : f.count + 1
            return (f, Array(path[start...]))
        }
        return nil
    }

    /// The scopes a call asks for, narrowed to these: a folder inside one of ours stays as it is,
    /// a folder holding some of ours becomes those, and one that is none of these is an error:
    /// a call can narrow the server's scopes, never widen them.
    ///
    /// A folder that is outside (as written, or once its symbolic links are followed) gets the
    /// same answer whether it exists or not, so the answers tell nothing about what is outside.
    package func narrowed(to requested: [String]) throws(AgentError) -> [[UInt8]] {
        guard !requested.isEmpty else { return folders }
        var result: [[UInt8]] = []
        for argument in requested {
            var asked = ArgumentBytes.bytes(of: argument)
            if asked.first != 0x2F { asked = Self.workingDirectory + [0x2F] + asked }
            let lexical = Self.normalized(asked)
            let outside = AgentError.outsideScopes(path: ArgumentBytes.encode(lexical), scopes: display)
            // Before the file system is asked: neither inside a scope nor holding one.
            guard contains(lexical) || folders.contains(where: { Self.isInside($0, folder: lexical) }) else { throw outside }
            guard let folder = PathArgument.folder(argument) else {
                // Missing behind a link out of the scopes is outside too, not "no such folder".
                if contains(lexical) && !admits(lexical) { throw outside }
                throw .notAvailable(path: ArgumentBytes.display(argument), reason: "is not a folder (no such folder, or it cannot be read)")
            }
            if contains(folder) {
                result.append(folder)
            } else {
                let inner = folders.filter { Self.isInside($0, folder: folder) }
                guard !inner.isEmpty else { throw outside }
                result += inner
            }
        }
        return ScopeSet(resolved: result).folders
    }

    /// Whether `path` (absolute, normalized) is in the scopes as the file system sees it: inside
    /// one as written, and its folder, with symbolic links followed, inside one too. A final
    /// symbolic link is an item of its own and is not followed.
    ///
    /// A path outside is refused alike whether it exists or not: the check as written comes
    /// first, without touching the file system; the folder's links are then resolved from the
    /// nearest folder above that exists, so a link out of the scope is outside even where the
    /// rest of the path is missing.
    package func admits(_ path: [UInt8]) -> Bool {
        guard contains(path) else { return false }
        if folders.contains(path) { return true }
        guard let slash = path.lastIndex(of: 0x2F) else { return false }
        var folder = slash == 0 ? [0x2F] : Array(path[..<slash])
        var rest: [UInt8] = []
        while true {
            if let real = PathArgument.folder(ArgumentBytes.encode(folder)) {
                return contains(rest.isEmpty ? real : real == [0x2F] ? rest : real + rest)
            }
            guard folder != [0x2F], let up = folder.lastIndex(of: 0x2F) else { return false }
            rest = Array(folder[up...]) + rest
            folder = up == 0 ? [0x2F] : Array(folder[..<up])
        }
    }

    /// This process's working folder (where a relative scope starts, as `PathArgument.folder`
    /// takes it).
    static var workingDirectory: [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return [0x2F] }
        return FilePath(platformString: buffer).bytes
    }

    /// `path` with `.` and `..` taken lexically and repeated slashes dropped (`..` at the root
    /// stays at the root), as an absolute path.
    package static func normalized(_ path: [UInt8]) -> [UInt8] {
        var parts: [ArraySlice<UInt8>] = []
        for part in path.split(separator: 0x2F, omittingEmptySubsequences: true) {
            if part.elementsEqual([0x2E]) { continue }
            if part.elementsEqual([0x2E, 0x2E]) { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return parts.isEmpty ? [0x2F] : parts.flatMap { [0x2F] + Array($0) }
    }

    static func trimmed(_ p: [UInt8]) -> [UInt8] {
        var p = p
        while p.count > 1, p.last == 0x2F { p.removeLast() }
        return p
    }

    /// `path` is `folder` or below it (by whole components: `/a/bc` is not inside `/a/b`).
    static func isInside(_ path: [UInt8], folder: [UInt8]) -> Bool {
        path == folder || path.isBelow(folder)
    }
}
