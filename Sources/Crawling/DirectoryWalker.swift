import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// Options for one walk.
@MemberwiseInit
package struct WalkOptions: Sendable, Hashable {
    package var exclusions: ExclusionRules = ExclusionRules()
    /// Stay on the root's file system (do not descend into mount points), like `find -xdev`.
    package var oneFileSystem: Bool = true
    /// Descend into subfolders; when false, only the root and its direct entries are reported.
    package var recursive: Bool = true
    /// The root is a files-only one (`IndexRoot.Depth.filesOnly`): only it and the entries
    /// directly in it that are not folders are reported, and the watcher watches the root alone.
    package var filesOnly: Bool = false
}

/// A problem met during a walk; the walk goes on.
@MemberwiseInit
package struct WalkProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: FilePath
    package var errno: Errno?
    package var reason: String

    package var description: String { reason }
}

/// Walks a tree from a root and reports every entry's `FileFacts`, keeping names as bytes from
/// end to end (`readdir` names into `FilePath`, never through `String`).
///
/// A key design decision: the walk is iterative over absolute paths, with an explicit stack, so a
/// 10,000-deep tree cannot overflow the call stack or run out of file descriptors (one directory
/// is open at a time). Entries are `statx`ed relative to the open directory, without following
/// symlinks: a symlink is reported as a link and never followed, so loops cannot happen. FIFOs,
/// sockets and devices are reported from their facts and never opened. A folder whose path is
/// longer than `PATH_MAX` is opened in steps (`LongPaths`), so a tree of any depth is listed; a
/// deep file's content is not read (the worker opens by path), which the updater records as that
/// file's extraction failure instead of a problem on every crawl.
///
/// For example:
/// ```swift
/// try DirectoryWalker(root: "/home/ada/Documents").walk { facts in print(facts.path) } problem: { print($0) }
/// ```
@MemberwiseInit
package struct DirectoryWalker: Sendable {
    package let root: FilePath
    package var options: WalkOptions = WalkOptions()

    /// Walks the tree. The root's own facts come first. Throws only if the root itself cannot be
    /// read (missing, not accessible); everything below it is reported through `problem`.
    /// `stop` is asked before each folder and every 1,024 entries: when it says yes the walk
    /// returns early (the caller, who asked, knows the walk is partial).
    package func walk(stop: () -> Bool = { false }, _ visit: (FileFacts) -> Void,
                     problem: (WalkProblem) -> Void) throws(WalkProblem) {
        let rootFacts: FileFacts
        do { rootFacts = try FileFacts.read(root) } catch {
            throw WalkProblem(path: root, errno: error, reason: error.description)
        }
        visit(rootFacts)
        guard rootFacts.type == .directory else { return }
        let rootDevice = rootFacts.device
        var stack: [FilePath] = [root]
        var entries = 0
        while let dir = stack.popLast() {
            if stop() { return }
            let opened = LongPaths.openDirectory(dir.bytes)
            let fd: Int32
            switch opened {
            case .success(let f): fd = f
            case .failure(let e):
                problem(WalkProblem(path: dir, errno: e, reason: "cannot list folder: \(e.description)"))
                continue
            }
            guard let d = fdopendir(fd) else {
                let e = Errno(rawValue: errno)
                SystemCall.close(fd)
                problem(WalkProblem(path: dir, errno: e, reason: "cannot list folder: \(e.description)"))
                continue
            }
            defer { closedir(d) }
            if dir != root, faccessat(fd, options.exclusions.markerFile, F_OK, AT_SYMLINK_NOFOLLOW) == 0 {
                continue    // a .noindex folder: its contents stay out
            }
            var subdirs: [FilePath] = []
            while true {
                entries += 1
                if entries & 1023 == 0 && stop() { return }
                errno = 0
                guard let ent = readdir(d) else {
                    if errno != 0 {
                        let e = Errno(rawValue: errno)
                        problem(WalkProblem(path: dir, errno: e, reason: "error while listing folder: \(e.description)"))
                    }
                    break
                }
                let component: FilePath.Component? = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                    raw.withMemoryRebound(to: CChar.self) { FilePath.Component(platformString: $0.baseAddress!) }
                }
                guard let component, component.kind == .regular else { continue }
                let child = dir.appending(component)
                let excluded = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                    raw.withMemoryRebound(to: CChar.self) { name in
                        child.withPlatformString { options.exclusions.excludes(name: name.baseAddress!, path: $0) }
                    }
                }
                if excluded { continue }
                let stat = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                    raw.withMemoryRebound(to: CChar.self) { SystemCall.statx(at: fd, $0.baseAddress!) }
                }
                switch stat {
                case .failure(let e):
                    if e != .noSuchFileOrDirectory {   // vanished since readdir: nothing to index
                        problem(WalkProblem(path: child, errno: e, reason: "cannot read file facts: \(e.description)"))
                    }
                case .success(let sx):
                    let facts = FileFacts(path: child, sx)
                    // A files-only root's subfolders are not its items (one may be a root of its own).
                    if options.filesOnly && facts.type == .directory { continue }
                    visit(facts)
                    if options.recursive && !options.filesOnly && facts.type == .directory && (!options.oneFileSystem || facts.device == rootDevice) {
                        subdirs.append(child)
                    }
                }
            }
            stack.append(contentsOf: subdirs.reversed())
        }
    }
}
