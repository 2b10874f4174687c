import Foundation
import Synchronization
import TestSupport
import Testing
import Watching
import Glibc

/// `/proc/self/mountinfo`'s POLLPRI wakes the watcher at a mount and an unmount, and at nothing
/// else (issue 29).
@Suite("MountWatcher", .blocking, .serialized)
struct MountWatcherTests {
    static func tool(_ path: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    @Test("a tmpfs mounted and unmounted wakes it each time", .needsRootToMount)
    func wakesAtMountAndUnmount() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-mount-watcher")
        defer { tree.remove() }
        let point = try tree.createDirectory("point").string
        let wakes = Atomic<Int>(0)
        let watcher = try #require(MountWatcher { wakes.add(1, ordering: .relaxed) })
        defer { watcher.stop() }
        // (Whether it stays asleep while nothing is mounted cannot be told here: other tests of
        // this process mount file systems at the same time; its thread waits in poll(2) with no
        // time-out.)
        let before = wakes.load(ordering: .relaxed)
        try #require(try Self.tool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "fsindex-watch-test", point]) == 0)
        var mounted = true
        defer { if mounted { _ = try? Self.tool("/usr/bin/umount", [point]) } }
        try await waitFor("the mount to be noticed", seconds: 10) { wakes.load(ordering: .relaxed) > before }
        let afterMount = wakes.load(ordering: .relaxed)
        #expect(try Self.tool("/usr/bin/umount", [point]) == 0)
        mounted = false
        try await waitFor("the unmount to be noticed", seconds: 10) { wakes.load(ordering: .relaxed) > afterMount }
    }

    @Test("stop() ends its thread at once, with nothing mounted")
    func stops() throws {
        let watcher = try #require(MountWatcher { })
        let start = Date()
        watcher.stop()
        #expect(Date().timeIntervalSince(start) < 1)
    }
}
