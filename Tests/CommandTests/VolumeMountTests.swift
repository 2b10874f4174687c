import Foundation
import SystemPackage
import TestSupport
import Testing

/// Mounts made by a test, each unmounted (lazily if it must) and each loop device of its
/// images detached, whatever way the test ends.
final class TestMounts: @unchecked Sendable {
    private(set) var points: [String] = []
    var images: [String] = []

    /// `mount ARGS POINT`; records an issue and throws when it fails.
    func mount(_ args: [String], at point: String) throws {
        let r = try run(executable: "/usr/bin/mount", args + [point], timeout: 60)
        guard r.status == 0 else {
            Issue.record("mount \(args.joined(separator: " ")) \(point) failed: \(r.stderr)")
            throw CancellationError()
        }
        points.append(point)
    }

    /// `umount POINT`. A mount is busy for a moment after the last process that held it ended
    /// (a loaded machine closes its files late): a busy mount is tried again for up to 5 s, and
    /// then the issue names who holds it (`fuser -vm`).
    func unmount(_ point: String) throws {
        var r = try run(executable: "/usr/bin/umount", [point], timeout: 60)
        // A real kernel's state, not the daemon's: no clock to inject.
        _ = try eventually(5, every: .milliseconds(250)) {
            guard r.status != 0 && r.stderr.contains("busy") else { return true }
            r = try run(executable: "/usr/bin/umount", [point], timeout: 60)
            return false
        }
        var holders = ""
        if r.status != 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/fuser") {
            holders = (try? run(executable: "/usr/bin/fuser", ["-vm", point], timeout: 60)).map { "; held by: " + $0.out + $0.stderr } ?? ""
        }
        #expect(r.status == 0, "umount \(point): \(r.stderr)\(holders)")
        if r.status == 0 { points.removeAll { $0 == point } }
    }

    /// Everything still mounted, last first; then the images' loop devices.
    func cleanUp() {
        for point in points.reversed() {
            if (try? run(executable: "/usr/bin/umount", [point], timeout: 60))?.status != 0 {
                _ = try? run(executable: "/usr/bin/umount", ["-l", point], timeout: 60)
            }
        }
        points = []
        for image in images {
            guard let r = try? run(executable: "/usr/sbin/losetup", ["-j", image], timeout: 30) else { continue }
            for line in r.lines {
                if let device = line.split(separator: ":").first { _ = try? run(executable: "/usr/sbin/losetup", ["-d", String(device)], timeout: 30) }
            }
        }
    }

    deinit { cleanUp() }
}

/// Issue 29's "Done when": a loop-mounted ext4 image and a tmpfs, each mounted, indexed by
/// fsindexd, found with the home folder's files, unmounted and found offline, changed while
/// away, mounted again and reconciled with the same index, with real mounts (root only).
@Suite("Volumes: real mounts", .blocking, .serialized, .needsRootToMount)
struct VolumeMountTests {
    static func token() -> String {
        String((0..<6).map { _ in "ABCDEFGHJKLMNPQRSTUVWXYZ".randomElement()! })
    }

    /// Each reconcile of `root` the daemon logged: indexed, unchanged, removed.
    static func reconciles(of root: String, in log: String) -> [(indexed: Int, unchanged: Int, removed: Int)] {
        let prefix = "reconciled \(root): "
        return log.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: prefix)?.upperBound else { return nil }
            let numbers = line[start...].split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Int($0) }
            return numbers.count >= 3 ? (numbers[0], numbers[1], numbers[2]) : nil
        }
    }

    static func inode(_ path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    /// `fsindex status --json`'s volumes.
    static func volumes(_ d: DaemonFixture) throws -> [[String: Any]] {
        let r = try d.fsindex("status", "--json")
        let obj = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        return obj?["volumes"] as? [[String: Any]] ?? []
    }

    /// `fsfind --json ARGS`, one object per line.
    static func json(_ d: DaemonFixture, _ args: String...) throws -> [[String: Any]] {
        try run("fsfind", ["--json"] + args, env: d.env).lines.compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("ext4 image (named by label): mounted → indexed and found with home; unmounted → found offline only with --include-offline; changed while away → mounted elsewhere, the same index moved and reconciled",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)"))
    func ext4Image() async throws {
        try await offPool {
            let label = "FSI" + Self.token()
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            let tree = d.tree
            try tree.create("root/kestrel-home.txt", contents: "kestrel in the home folder")
            try tree.create("content/docs/a.txt", contents: "kestrel on the disk")
            try tree.create("content/docs/b.txt", contents: "osprey to be deleted while away")
            let image = tree.path("disk.img").string
            mounts.images.append(image)
            #expect(FileManager.default.createFile(atPath: image, contents: nil) && truncate(image, 32 << 20) == 0)
            let mkfs = try run(executable: "/usr/sbin/mkfs.ext4", ["-q", "-F", "-L", label, "-d", tree.path("content").string, image], timeout: 120)
            try #require(mkfs.status == 0, "mkfs.ext4: \(mkfs.stderr)")
            let first = try tree.createDirectory("mnt/first").string
            let edit = try tree.createDirectory("mnt/edit").string
            let second = try tree.createDirectory("mnt/second").string
            try tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + "[[volumes.volume]]\nlabel = \"\(label)\"\nindex = true\n")
            try d.start()
            let home = d.root + "/kestrel-home.txt"

            // Mounted: noticed, indexed, found with the home folder's file in one answer.
            try mounts.mount(["-o", "loop", image], at: first)
            try d.waitFor("the volume indexed and found with home", seconds: 60) {
                try d.find("kestrel") == [home, first + "/docs/a.txt"] && !Self.reconciles(of: first, in: d.log).isEmpty
            }
            let found = try Self.json(d, "kestrel")
            #expect(found.first { $0["path"] as? String == first + "/docs/a.txt" }?["volume"] as? String == label)
            #expect(found.first { $0["path"] as? String == first + "/docs/a.txt" }?["offline"] as? Bool == false)
            #expect(found.first { $0["path"] as? String == home }?["volume"] == nil)
            let listed = try #require(try Self.volumes(d).first)
            #expect(listed["label"] as? String == label && listed["state"] as? String == "mounted" && listed["mountPoint"] as? String == first)
            #expect((listed["items"] as? Int ?? 0) >= 3)
            let database = try #require(listed["index"] as? String) + "/index.sqlite"
            let inode = try #require(Self.inode(database))
            #expect(database.hasPrefix(tree.path("index/volumes/").string))

            // Unmounted: gone from plain answers, found offline with its label.
            try mounts.unmount(first)
            try d.waitFor("the daemon to let the volume go") { d.log.contains("volume \(label) unmounted") }
            #expect(try d.find("kestrel") == [home])
            #expect(try d.find("--include-offline", "kestrel") == [home, first + "/docs/a.txt  [offline: \(label)]"])
            let offline = try Self.json(d, "--include-offline", "kestrel")
            #expect(offline.first { $0["path"] as? String == first + "/docs/a.txt" }?["offline"] as? Bool == true)
            #expect(offline.first { $0["path"] as? String == first + "/docs/a.txt" }?["volume"] as? String == label)
            #expect(try Self.volumes(d).first?["state"] as? String == "offline")

            // Changed while away, without the daemon: a file added, one deleted.
            #expect(d.stop() == 0)
            // Without a daemon fsfind reads the indexes itself (fsfind-direct): the same answers.
            #expect(Set(try run("fsfind", ["--include-offline", "kestrel"], env: d.env).lines) == [home, first + "/docs/a.txt  [offline: \(label)]"])
            #expect(Set(try run("fsfind", ["kestrel"], env: d.env).lines) == [home])
            try mounts.mount(["-o", "loop", image], at: edit)
            try tree.create("mnt/edit/docs/c.txt", contents: "kestrel added while away")
            try tree.remove("mnt/edit/docs/b.txt")
            try mounts.unmount(edit)
            try d.start()

            // Back, at another mount point: the same index, its items moved, only the changes read.
            try mounts.mount(["-o", "loop", image], at: second)
            try d.waitFor("the volume reconciled at its new place", seconds: 60) {
                try d.find("kestrel") == [home, second + "/docs/a.txt", second + "/docs/c.txt"]
            }
            #expect(try d.find("osprey").isEmpty)
            #expect(try d.find("--include-offline", "kestrel") == [home, second + "/docs/a.txt", second + "/docs/c.txt"])
            #expect(Self.inode(database) == inode, "the volume's index was made again instead of reused")
            #expect(d.log.contains("volume \(label) is now at \(second) (was \(first))"))
            // One reconcile kept the unchanged file and removed the deleted one: not a rebuild.
            try d.waitFor("a reconcile that kept the unchanged file and removed the deleted one") {
                Self.reconciles(of: second, in: d.log).contains { $0.unchanged >= 1 && $0.removed >= 1 }
            }
            try mounts.unmount(second)
            #expect(d.stop() == 0)
        }
    }

    /// Issue 40, A5: a stick's label is whatever its maker wrote in the superblock. One with a
    /// newline went raw into fsindexd's log and made a line that looked like the daemon's own.
    @Test("a volume label with a newline and an escape is escaped in every log line; no line is forged",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)"))
    func hostileLabel() async throws {
        try await offPool {
            let label = "Q\nFORGED\u{1B}[2J"   // 13 bytes: within ext4's 16
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            try d.tree.create("content/a.txt", contents: "ibis on the stick")
            let image = d.tree.path("disk.img").string
            mounts.images.append(image)
            #expect(FileManager.default.createFile(atPath: image, contents: nil) && truncate(image, 32 << 20) == 0)
            let mkfs = try run(executable: "/usr/sbin/mkfs.ext4", ["-q", "-F", "-L", label, "-d", d.tree.path("content").string, image], timeout: 120)
            try #require(mkfs.status == 0, "mkfs.ext4: \(mkfs.stderr)")
            try d.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig
                              + "[[volumes.volume]]\nlabel = \"Q\\nFORGED\\u001B[2J\"\nindex = true\n")
            try d.start()
            let point = try d.tree.createDirectory("mnt/stick").string
            try mounts.mount(["-o", "loop", image], at: point)
            try d.waitFor("the stick indexed", seconds: 90) { try d.find("ibis") == [point + "/a.txt"] }
            try mounts.unmount(point)
            try d.waitFor("the daemon to let the stick go") { d.log.contains("unmounted") }
            let lines = d.log.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(!lines.contains { $0.hasPrefix("FORGED") }, "a forged line:\n\(d.log)")
            #expect(!d.log.contains("\u{1B}"), "a raw escape in the log")
            #expect(d.log.contains("volume Q\\nFORGED\\x1B[2J (ext4"), "\(d.log)")
        }
    }

    @Test("tmpfs (named by mount point): mounted → indexed and found with home; unmounted → offline with its name; mounted again → the same index reconciled at start",
          .timeLimit(.minutes(5)))
    func tmpfs() async throws {
        try await offPool {
            let name = "TMP" + Self.token()
            let source = "fsindex-test-" + name.lowercased()
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            let tree = d.tree
            try tree.create("root/plover-home.txt", contents: "plover in the home folder")
            let point = try tree.createDirectory("mnt/" + name).string
            try tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig + "[[volumes.volume]]\npath = \"\(point)\"\nindex = true\n")
            try d.start()
            let home = d.root + "/plover-home.txt"

            try mounts.mount(["-t", "tmpfs", "-o", "size=8m", source], at: point)
            try d.waitFor("the tmpfs noticed") { d.log.contains("volume \(name) (tmpfs") }
            try tree.create("mnt/\(name)/a.txt", contents: "plover on the tmpfs")
            try tree.create("mnt/\(name)/b.txt", contents: "curlew that will not come back")
            try d.waitFor("the tmpfs's files found with home", seconds: 60) { try d.find("plover") == [home, point + "/a.txt"] }
            #expect(try d.find("curlew") == [point + "/b.txt"])
            let listed = try #require(try Self.volumes(d).first)
            #expect(listed["name"] as? String == name && listed["state"] as? String == "mounted" && listed["uuid"] == nil)
            let database = try #require(listed["index"] as? String) + "/index.sqlite"
            let inode = try #require(Self.inode(database))

            try mounts.unmount(point)
            try d.waitFor("the daemon to let the tmpfs go") { d.log.contains("volume \(name) unmounted") }
            #expect(try d.find("plover") == [home])
            #expect(try d.find("--include-offline", "plover") == [home, point + "/a.txt  [offline: \(name)]"])

            // Mounted again while fsindexd is stopped, with other contents: reconciled at its start.
            #expect(d.stop() == 0)
            try mounts.mount(["-t", "tmpfs", "-o", "size=8m", source], at: point)
            try tree.create("mnt/\(name)/a.txt", contents: "plover on the tmpfs")
            try tree.create("mnt/\(name)/c.txt", contents: "plover arrived while away")
            try d.start()
            try d.waitFor("the tmpfs reconciled", seconds: 60) { try d.find("plover") == [home, point + "/a.txt", point + "/c.txt"] }
            #expect(try d.find("--include-offline", "curlew").isEmpty)
            #expect(Self.inode(database) == inode, "the tmpfs's index was made again instead of reused")
            // The file not written again was removed by a reconcile (a rebuilt index has nothing to remove).
            try d.waitFor("a reconcile that removed the file not written again") {
                Self.reconciles(of: point, in: d.log).contains { $0.removed >= 1 }
            }
            try mounts.unmount(point)
            #expect(d.stop() == 0)
        }
    }
}
