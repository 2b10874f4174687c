import Foundation
import SystemPackage
import TestSupport
import Testing
@testable import Controlling

@Suite("Control location")
struct ControlLocationTests {
    @Test("the socket name is the first 16 hex digits of FNV-1a of the index directory")
    func naming() {
        // Published FNV-1a 64 test vectors.
        #expect(ControlLocation.socketName(forIndexDirectory: FilePath("")) == "cbf29ce484222325")
        #expect(ControlLocation.socketName(forIndexDirectory: FilePath("a")) == "af63dc4c8601ec8c")
        let a = ControlLocation.socketName(forIndexDirectory: FilePath("/home/ada/.local/share/fsindex/default"))
        let b = ControlLocation.socketName(forIndexDirectory: FilePath("/home/ada/.local/share/fsindex/work"))
        #expect(a.count == 16 && b.count == 16 && a != b)
        #expect(a == ControlLocation.socketName(forIndexDirectory: FilePath("/home/ada/.local/share/fsindex/default")))
    }

    @Test("XDG_RUNTIME_DIR when usable, else the home's ~/.cache/fsindex/run; /tmp/fsindex-<uid> for a user without a home of its own")
    func runtimeDirectory() throws {
        let tree = try TemporaryTree(prefix: "fsctl-xdg")
        let index = FilePath("/srv/index")
        let uid = geteuid()
        let xdg = ControlLocation.forIndex(directory: index, environment: ["XDG_RUNTIME_DIR": tree.root.string])
        #expect(xdg.directory == tree.root.appending("fsindex"))
        #expect(xdg.socketPath.lastComponent?.string == "\(ControlLocation.socketName(forIndexDirectory: index)).sock")
        // Without a runtime folder: the user's home (from the password database), never /tmp
        // while there is one (issue 40: another user could make /tmp/fsindex-<uid> first).
        let home = String(cString: getpwuid(uid).pointee.pw_dir)
        let fallback = FilePath(home + "/.cache/fsindex/run")
        #expect(ControlLocation.forIndex(directory: index, environment: [:]).directory == fallback)
        #expect(ControlLocation.forIndex(directory: index, environment: ["XDG_RUNTIME_DIR": "relative/run"]).directory == fallback)
        #expect(ControlLocation.forIndex(directory: index, environment: ["XDG_RUNTIME_DIR": tree.path("missing").string]).directory == fallback)
        // A runtime folder that belongs to someone else is not used.
        #expect(ControlLocation.forIndex(directory: index, environment: ["XDG_RUNTIME_DIR": tree.root.string],
                                         owner: uid + 1).directory == FilePath("/tmp/fsindex-\(uid + 1)"))
    }

    @Test("a folder of another owner is refused with a clear error")
    func foreignFolderRefused() throws {
        let tree = try TemporaryTree(prefix: "fsctl")
        try tree.createDirectory("theirs")
        try tree.chmod("theirs", 0o700)
        let location = ControlLocation(directory: tree.path("theirs"), name: "x", owner: geteuid() + 1)
        #expect {
            try location.prepareDirectory()
        } throws: { error in
            guard let error = error as? ControlError, case let .unsafeDirectory(_, reason) = error else { return false }
            return reason.contains("belongs to uid \(geteuid())") && error.description.contains("refusing")
        }
        #expect {
            _ = try ControlServer(location: location, handler: ScriptedHandler())
        } throws: { error in
            if case .unsafeDirectory? = error as? ControlError { return true } else { return false }
        }
    }

    @Test("a symlink or a folder others can write is refused; a wider private mode is narrowed")
    func unsafeFolders() throws {
        let tree = try TemporaryTree(prefix: "fsctl")
        try tree.createDirectory("real")
        try tree.symlink("link", to: tree.path("real").string)
        #expect(throws: ControlError.unsafeDirectory(path: tree.path("link").string, reason: "it is a symbolic link")) {
            try ControlLocation(directory: tree.path("link"), name: "x").prepareDirectory()
        }
        try tree.createDirectory("open")
        try tree.chmod("open", 0o777)
        #expect(throws: ControlError.unsafeDirectory(path: tree.path("open").string,
                                                     reason: "others can write to it (mode 777)")) {
            try ControlLocation(directory: tree.path("open"), name: "x").prepareDirectory()
        }
        try tree.createDirectory("wide")
        try tree.chmod("wide", 0o755)
        try ControlLocation(directory: tree.path("wide"), name: "x").prepareDirectory()
        #expect(fileMode(tree.path("wide").string).map { $0 & 0o7777 } == 0o700)
    }

    @Test("a socket path longer than sun_path allows is a clear error")
    func tooLong() throws {
        let tree = try TemporaryTree(prefix: "fsctl")
        let location = ControlLocation(directory: tree.path(String(repeating: "d", count: 120)), name: "x")
        #expect {
            _ = try ControlServer(location: location, handler: ScriptedHandler())
        } throws: { error in
            if case .pathTooLong(_, 107)? = error as? ControlError { return true } else { return false }
        }
        #expect {
            _ = try ControlClient.connect(location)
        } throws: { error in
            if case .pathTooLong? = error as? ControlError { return true } else { return false }
        }
    }
}
