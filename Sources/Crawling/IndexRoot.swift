import SystemPackage

/// A folder to index, and how deep: the one value that carries a root from the settings to the
/// crawler, the watcher and the daemon.
///
/// For example, the defaults without a config file (see `Configuration.DefaultRoots`):
/// ```swift
/// [IndexRoot("/home/ada/Documents"), IndexRoot("/home/ada", depth: .filesOnly)]
/// ```
/// A key design decision: a files-only root (`shallow_roots`, Tracker's
/// index-single-directories) holds the root and the entries directly in it that are not folders.
/// Its subfolders are neither entered nor listed as items nor watched, so a folder that is a root
/// of its own (`~/Documents` under a files-only `~`) has its items in its own domain only, as
/// with no files-only root at all.
package struct IndexRoot: Sendable, Hashable, CustomStringConvertible {
    package var path: FilePath
    package var depth: Depth

    /// How much of the tree below the root is indexed.
    package enum Depth: String, Sendable, Hashable, CaseIterable {
        /// Every folder below the root, at any depth.
        case recursive
        /// The files directly in the root: no subfolder.
        case filesOnly = "files-only"
    }

    package init(_ path: FilePath, depth: Depth = .recursive) {
        self.path = path
        self.depth = depth
    }

    package var isFilesOnly: Bool { depth == .filesOnly }

    package var description: String { "\(path.string) (\(depth.rawValue))" }
}
