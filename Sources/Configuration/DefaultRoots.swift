import Foundation
import MemberwiseInit
import SystemPackage
import Glibc

/// The roots used when none are configured (no `roots` or `shallow_roots` in the config, no
/// PATH or `--root` given), as Tracker chooses them: the user's XDG folders (Desktop, Documents,
/// Downloads, Music, Pictures, Videos, from `user-dirs.dirs`) at every depth, and the files
/// directly in the home folder.
///
/// For example, for a user with the usual folders, of which only Documents and Pictures exist:
/// ```swift
/// DefaultRoots.resolve()
/// // recursive: ["/home/ada/Documents", "/home/ada/Pictures"], filesOnly: ["/home/ada"],
/// // leftOut: [Desktop: does not exist, …]
/// ```
/// A folder that does not exist, or is on a network file system or a removable device
/// (`MountFacts.exclusion`), is left out with its reason, which `fsindex setup` prints.
@MemberwiseInit
package struct DefaultRoots: Sendable, Hashable {
    /// Folders indexed at every depth.
    package var recursive: [String] = []
    /// Folders whose files directly inside are indexed (the home folder).
    package var filesOnly: [String] = []
    /// Folders the defaults would have had, and why each is not among them.
    package var leftOut: [LeftOut] = []

    @MemberwiseInit
    package struct LeftOut: Sendable, Hashable, Codable {
        package var path: String
        package var reason: String
    }

    package var isEmpty: Bool { recursive.isEmpty && filesOnly.isEmpty }

    /// The defaults for the user `environment` describes (HOME, XDG_CONFIG_HOME).
    ///
    /// - Parameter mountFacts: how a folder's mount is found; the real one reads
    ///   `/proc/self/mountinfo` and sysfs.
    package static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment,
                               mountFacts: (String) -> MountFacts? = { MountFacts.of($0) }) -> DefaultRoots {
        var out = DefaultRoots()
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            out.leftOut.append(LeftOut(path: "~", reason: "HOME is not set (or not absolute), so there is no home folder"))
            return out
        }
        let homeTrimmed = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        func admit(_ path: String) -> Bool {
            var st = stat()
            guard stat(path, &st) == 0 else {
                out.leftOut.append(LeftOut(path: path, reason: "does not exist"))
                return false
            }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                out.leftOut.append(LeftOut(path: path, reason: "is not a folder"))
                return false
            }
            if let reason = mountFacts(path)?.exclusion {
                out.leftOut.append(LeftOut(path: path, reason: reason + "; name it in `roots` to index it"))
                return false
            }
            return true
        }
        for folder in UserDirectories.defaultFolders(environment: environment) where !out.recursive.contains(folder) {
            if admit(folder) { out.recursive.append(folder) }
        }
        if admit(homeTrimmed) { out.filesOnly.append(homeTrimmed) }
        return out
    }
}
