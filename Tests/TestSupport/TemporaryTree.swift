import Foundation
import SystemPackage

/// A directory tree built inside a test and removed when the value is released.
///
/// Paths are given relative to the root. `createBytes` takes raw name bytes so that tests can
/// make names that are not valid UTF-8.
package final class TemporaryTree: @unchecked Sendable {
    package let root: FilePath
    package var rootBytes: [UInt8] { Array(root.string.utf8) }

    /// A fresh folder in `parent` (default: the temporary folder, usually /tmp).
    package init(prefix: String = "fsindex-test", in parent: String? = nil) throws {
        var template = Array("\(parent ?? NSTemporaryDirectory())/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { throw Errno(rawValue: errno) }
        // Resolve symlinks in the temporary directory so that paths compare with what a crawl sees.
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(made, &resolved) != nil else { throw Errno(rawValue: errno) }
        root = FilePath(platformString: resolved)
    }

    deinit { remove() }

    /// Removes the tree (making every directory writable first so that chmod-000 folders go too).
    package func remove() {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "chmod -R u+rwx \"$1\" 2>/dev/null; rm -rf \"$1\"", "sh", root.string]
        try? p.run()
        p.waitUntilExit()
    }

    package func path(_ relative: String) -> FilePath { root.appending(relative) }

    /// Creates a file with UTF-8 text (directories on the way are created).
    @discardableResult
    package func create(_ relative: String, contents: String = "") throws -> FilePath {
        try create(relative, bytes: Array(contents.utf8))
    }

    @discardableResult
    package func create(_ relative: String, bytes: [UInt8]) throws -> FilePath {
        let p = path(relative)
        try createDirectory(p.removingLastComponent())
        try write(p, bytes)
        return p
    }

    /// Creates a file whose name (last component) is the given raw bytes, inside `directory`.
    @discardableResult
    package func createBytes(directory: String = "", name: [UInt8], contents: [UInt8] = []) throws -> FilePath {
        let dir = directory.isEmpty ? root : path(directory)
        try createDirectory(dir)
        let cname = name.map { CChar(bitPattern: $0) } + [0]
        let component = cname.withUnsafeBufferPointer { FilePath.Component(platformString: $0.baseAddress!) }!
        let p = dir.appending(component)
        try write(p, contents)
        return p
    }

    @discardableResult
    package func createDirectory(_ relative: String) throws -> FilePath {
        let p = path(relative)
        try createDirectory(p)
        return p
    }

    package func createDirectory(_ p: FilePath) throws {
        if p.withPlatformString({ access($0, F_OK) }) == 0 { return }
        if let parent = Optional(p.removingLastComponent()), parent != p, !parent.isEmpty {
            try createDirectory(parent)
        }
        if p.withPlatformString({ mkdir($0, 0o755) }) != 0 && errno != EEXIST { throw Errno(rawValue: errno) }
    }

    package func symlink(_ relative: String, to target: String) throws {
        let p = path(relative)
        try createDirectory(p.removingLastComponent())
        let rc = p.withPlatformString { lp in Foundation.symlink(target, lp) }
        if rc != 0 { throw Errno(rawValue: errno) }
    }

    package func mkfifo(_ relative: String) throws {
        let p = path(relative)
        if p.withPlatformString({ Foundation.mkfifo($0, 0o644) }) != 0 { throw Errno(rawValue: errno) }
    }

    package func chmod(_ relative: String, _ mode: mode_t) throws {
        if path(relative).withPlatformString({ Foundation.chmod($0, mode) }) != 0 { throw Errno(rawValue: errno) }
    }

    package func remove(_ relative: String) throws {
        if path(relative).withPlatformString({ unlink($0) }) != 0 { throw Errno(rawValue: errno) }
    }

    private func write(_ p: FilePath, _ bytes: [UInt8]) throws {
        let fd = try FileDescriptor.open(p, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        defer { try? fd.close() }
        try fd.writeAll(bytes)
    }
}

/// The shared real-document corpus (`../shared/corpus/real` beside the checkout), found from this
/// source file's location so that tests run from any working directory.
package enum RealCorpus {
    /// With symlinks resolved, as a crawl (which resolves its roots) reports the paths.
    package static var root: FilePath {
        let given: FilePath
        if let env = ProcessInfo.processInfo.environment["FSINDEX_REAL_CORPUS"] {
            given = FilePath(env)
        } else {
            // #filePath = <checkout>/Tests/TestSupport/TemporaryTree.swift
            let checkout = FilePath(#filePath).removingLastComponent().removingLastComponent().removingLastComponent()
            given = checkout.removingLastComponent().appending("shared/corpus/real")
        }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(given.string, &resolved) != nil else { return given }
        return FilePath(platformString: resolved)
    }

    package static func file(_ relative: String) -> FilePath { root.appending(relative) }

    package static var isAvailable: Bool { root.withPlatformString { access($0, R_OK) } == 0 }
}
