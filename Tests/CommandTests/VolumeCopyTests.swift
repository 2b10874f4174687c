import Foundation
import Indexing
import SystemPackage
import TestSupport
import Testing

/// `[volumes] store_on_volume` (issue 29): a portable copy of a volume's index on the volume, in
/// `.fsindex/`, that never keeps the volume busy; a volume with no index here seeded from it;
/// a hostile copy ignored; nothing written unless allowed and writable. Real mounts (root only).
@Suite("Volumes: the index copy on the volume", .blocking, .serialized, .needsRootToMount)
struct VolumeCopyTests {
    static let hasMkfs = FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4")

    /// An ext4 image with `content`'s files, of a UUID chosen here (so a test can know it before
    /// mounting), and the folders it is mounted at.
    struct Disk {
        let label: String
        let uuid: String
        let image: String

        init(_ d: DaemonFixture, mounts: TestMounts, files: [String: String]) throws {
            label = "FSC" + VolumeMountTests.token()
            uuid = UUID().uuidString.lowercased()
            for (path, text) in files { try d.tree.create("content/" + path, contents: text) }
            image = d.tree.path("disk.img").string
            mounts.images.append(image)
            #expect(FileManager.default.createFile(atPath: image, contents: nil) && truncate(image, 32 << 20) == 0)
            let mkfs = try run(executable: "/usr/sbin/mkfs.ext4", ["-q", "-F", "-L", label, "-U", uuid, "-d", d.tree.path("content").string, image], timeout: 120)
            try #require(mkfs.status == 0, "mkfs.ext4: \(mkfs.stderr)")
        }
    }

    static func config(label: String, store: Bool?) -> String {
        DaemonFixture.baseConfig + "[[volumes.volume]]\nlabel = \"\(label)\"\nindex = true\n" + (store.map { "store_on_volume = \($0)\n" } ?? "")
    }

    /// The files under `mountPoint` the daemon's process has open.
    static func openFiles(_ d: DaemonFixture, under mountPoint: String) -> [String] {
        guard let pid = d.process?.processIdentifier,
              let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return [] }
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
            .filter { $0 == mountPoint || $0.hasPrefix(mountPoint + "/") }
    }

    static func mode(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o7777 : nil
    }

    static func copyWrites(_ d: DaemonFixture, _ label: String) -> Int {
        d.log.components(separatedBy: "volume \(label): index copy written to").count - 1
    }

    @Test("store_on_volume: mounted → indexed → a valid copy and volume.json in .fsindex/ and umount not busy; the local index deleted, mounted elsewhere → seeded from the copy, unchanged files not read again, a file added while away found",
          .enabled(if: hasMkfs, "needs mkfs.ext4 (e2fsprogs)"), .timeLimit(.minutes(5)))
    func copyThenSeed() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            let disk = try Disk(d, mounts: mounts, files: ["docs/a.txt": "heron on the disk", "docs/b.txt": "heron again", "docs/c.txt": "egret too"])
            let first = try d.tree.createDirectory("mnt/first").string
            let edit = try d.tree.createDirectory("mnt/edit").string
            let second = try d.tree.createDirectory("mnt/second").string
            try d.tree.create("config/fsindex/config.toml", contents: Self.config(label: disk.label, store: true))
            try d.start()

            // (1) Indexed, then a copy on the volume: a sound index, its record, nothing left open.
            try mounts.mount(["-o", "loop", disk.image], at: first)
            try d.waitFor("the volume indexed and its copy written", seconds: 90) {
                try d.find("heron") == [first + "/docs/a.txt", first + "/docs/b.txt"] && Self.copyWrites(d, disk.label) >= 1
            }
            let folder = first + "/.fsindex"
            #expect(Self.mode(folder) == 0o700)
            #expect(IndexStore.reasonToRefuseCopy(at: FilePath(folder + "/index.sqlite")) == nil)
            do {
                // Closed at the end of this block: the test's own handle would keep the volume busy.
                let copy = try IndexStore(location: IndexLocation(directory: FilePath(folder)), readOnly: true)
                #expect(try copy.count() >= 3)
            }
            let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/volume.json"))) as? [String: Any])
            #expect(record["uuid"] as? String == disk.uuid && record["label"] as? String == disk.label)
            #expect(record["mountPoint"] as? String == first && record["format"] as? Int == 1 && record["written"] is String)
            #expect(FileManager.default.fileExists(atPath: folder + "/volume.json"))
            #expect((try FileManager.default.contentsOfDirectory(atPath: folder)).sorted() == ["index.sqlite", "volume.json"])
            let listed = try #require(try VolumeMountTests.volumes(d).first)
            #expect(listed["copyWritten"] is String, "fsindex status does not say the volume carries a copy: \(listed)")
            #expect(try d.fsindex("status").out.contains("copy on the volume written"))
            // The searches found it; the volume's own index (not the copy) is the one at work.
            #expect(try d.find("heron").allSatisfy { !$0.contains(".fsindex") })
            #expect(Self.openFiles(d, under: first).isEmpty, "fsindexd holds files open on the volume: \(Self.openFiles(d, under: first))")
            try mounts.unmount(first)   // not "target is busy"
            try d.waitFor("the daemon to let the volume go") { d.log.contains("volume \(disk.label) unmounted") }

            // (2) As on another machine: no index of the volume here. A file added meanwhile.
            #expect(d.stop() == 0)
            let local = d.tree.path("index/volumes/\(disk.uuid)").string
            #expect(FileManager.default.fileExists(atPath: local + "/index.sqlite"))
            try FileManager.default.removeItem(atPath: local)
            try mounts.mount(["-o", "loop", disk.image], at: edit)
            try d.tree.create("mnt/edit/docs/d.txt", contents: "heron added while away")
            try mounts.unmount(edit)
            try d.start()
            try mounts.mount(["-o", "loop", disk.image], at: second)
            try d.waitFor("the volume seeded from its copy and reconciled at its new place", seconds: 90) {
                try d.find("heron") == [second + "/docs/a.txt", second + "/docs/b.txt", second + "/docs/d.txt"]
                    && !VolumeMountTests.reconciles(of: second, in: d.log).isEmpty
            }
            #expect(d.log.contains("volume \(disk.label): index seeded from the copy on the volume (written at \(first)"))
            #expect(d.log.contains("volume \(disk.label) is now at \(second) (was \(first))"))
            // The three files of the copy were not read again; only what changed meanwhile was.
            let reconcile = try #require(VolumeMountTests.reconciles(of: second, in: d.log).first)
            #expect(reconcile.unchanged >= 3 && reconcile.indexed <= 3, "\(reconcile)")
            #expect(try d.find("egret") == [second + "/docs/c.txt"])
            #expect(try d.find("--include-offline", "heron").allSatisfy { $0.hasPrefix(second + "/") })
            try d.waitFor("the copy written again at the new place", seconds: 30) { Self.copyWrites(d, disk.label) >= 1 }
            try mounts.unmount(second)
            #expect(d.stop() == 0)
        }
    }

    @Test("a hostile copy (another uid's, group-writable, garbage bytes) is ignored with its reason and the volume indexed from scratch",
          .enabled(if: hasMkfs, "needs mkfs.ext4 (e2fsprogs)"), .timeLimit(.minutes(6)))
    func hostileCopies() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            let disk = try Disk(d, mounts: mounts, files: ["a.txt": "bittern on the disk", "b.txt": "bittern two"])
            let point = try d.tree.createDirectory("mnt/point").string
            let edit = try d.tree.createDirectory("mnt/edit").string
            try d.tree.create("config/fsindex/config.toml", contents: Self.config(label: disk.label, store: true))
            try d.start()
            let found: Set<String> = [point + "/a.txt", point + "/b.txt"]
            // A sound copy first.
            try mounts.mount(["-o", "loop", disk.image], at: point)
            try d.waitFor("the volume indexed and its copy written", seconds: 90) {
                try d.find("bittern") == found && Self.copyWrites(d, disk.label) >= 1
            }
            try mounts.unmount(point)
            try d.waitFor("the daemon to let the volume go") { d.log.contains("volume \(disk.label) unmounted") }
            let local = d.tree.path("index/volumes/\(disk.uuid)").string

            /// With fsindexd stopped, spoils the copy on the disk and deletes the index here; then
            /// mounts the disk and waits for the reason it gives and an index made from scratch.
            func mountSpoiled(_ reason: String, _ spoil: (String) throws -> Void) throws {
                #expect(d.stop() == 0)
                try mounts.mount(["-o", "loop", disk.image], at: edit)
                try spoil(edit + "/.fsindex")
                try mounts.unmount(edit)
                try FileManager.default.removeItem(atPath: local)
                try d.start()
                try mounts.mount(["-o", "loop", disk.image], at: point)
                try d.waitFor("the copy refused (\(reason)) and the volume indexed from scratch", seconds: 90) {
                    try !VolumeMountTests.reconciles(of: point, in: d.log).isEmpty && d.find("bittern") == found
                }
                #expect(d.log.split(separator: "\n").contains { $0.contains("volume \(disk.label): the index copy on the volume is ignored (") && $0.contains(reason) },
                        "no refusal with '\(reason)' in the log:\n\(d.log)")
                #expect(!d.log.contains("index seeded from the copy"))
                let reconcile = try #require(VolumeMountTests.reconciles(of: point, in: d.log).last)
                #expect(reconcile.unchanged == 0 && reconcile.indexed >= 2, "not indexed from scratch: \(reconcile)")
                try mounts.unmount(point)
                try d.waitFor("the daemon to let the volume go") { d.log.contains("volume \(disk.label) unmounted") }
            }

            try mountSpoiled("owned by uid 65534") { folder in
                for name in ["", "/index.sqlite", "/volume.json"] { #expect(chown(folder + name, 65534, 65534) == 0) }
            }
            try mountSpoiled("writable by its group or others") { folder in
                for name in ["", "/index.sqlite", "/volume.json"] { #expect(chown(folder + name, 0, 0) == 0) }
                #expect(chmod(folder, 0o770) == 0)
            }
            // Issue 40, A2: a copy whose pages are sound but whose schema is not fsindex's: a
            // trigger fsindexd would run (and write back to the stick) is refused by name.
            let database = { (folder: String) in folder + "/index.sqlite" }
            func sqlite(_ folder: String, _ sql: String) throws {
                let r = try run(executable: "/usr/bin/sqlite3", [database(folder), sql], timeout: 60)
                #expect(r.status == 0, "sqlite3: \(r.stderr)")
            }
            try mountSpoiled("its schema is not fsindex's (not made by fsindex: trigger planted") { folder in
                #expect(chmod(folder, 0o700) == 0)
                try sqlite(folder, "CREATE TRIGGER planted AFTER DELETE ON items BEGIN INSERT INTO meta(key, value) VALUES ('planted', 'ran'); END;")
            }
            // A text whose header claims 900 MB: no byte allocated for the claim, the copy set aside.
            try mountSpoiled("a stored text is not one fsindex wrote (fsindex_unzip: not a compressed text of fsindex (its length is out of bounds))") { folder in
                try sqlite(folder, "DROP TRIGGER IF EXISTS planted")
                // item_texts' own triggers call fsindex_unzip, which sqlite3 lacks: set aside, then
                // put back exactly, so the schema is fsindex's and only the text is hostile.
                let names = try run(executable: "/usr/bin/sqlite3", [database(folder), "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'item_texts'"], timeout: 60)
                let rows = try names.lines.map { name in
                    // Each trigger's SQL exactly, newlines and all.
                    let sql = try run(executable: "/usr/bin/sqlite3", [database(folder), "SELECT sql FROM sqlite_master WHERE name = '\(name)'"], timeout: 60)
                    return [name, String(sql.out.dropLast())]
                }
                #expect(!rows.isEmpty, "no triggers on item_texts: \(names.stderr)")
                let zipped = "789c4b040000620062"   // zlib's "a": the header claims 900,000,000 bytes of it
                try sqlite(folder, rows.map { "DROP TRIGGER \($0[0]);" }.joined()
                           + "UPDATE item_texts SET text = X'00E9A435\(zipped)' WHERE id = (SELECT min(id) FROM item_texts);"
                           + rows.map { $0[1] + ";" }.joined())
                let schema = try run(executable: "/usr/bin/sqlite3", [database(folder), "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'item_texts'"], timeout: 60)
                #expect(schema.out.trimmingCharacters(in: .whitespacesAndNewlines) == "\(rows.count)")
            }
            try mountSpoiled("not a readable SQLite database") { folder in
                #expect(chmod(folder, 0o700) == 0)
                // Whatever the copy was, garbage now (the daemon wrote a sound one meanwhile, or not).
                try Data((0..<65536).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: folder + "/index.sqlite"))
                #expect(chmod(folder + "/index.sqlite", 0o600) == 0)
            }
            #expect(d.stop() == 0)
        }
    }

    @Test("store_on_volume off (the default) → nothing written on the volume; a read-only mount → nothing written, one log line",
          .enabled(if: hasMkfs, "needs mkfs.ext4 (e2fsprogs)"), .timeLimit(.minutes(5)))
    func nothingWritten() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let mounts = TestMounts()
            defer { mounts.cleanUp() }
            let disk = try Disk(d, mounts: mounts, files: ["a.txt": "avocet on the disk"])
            let point = try d.tree.createDirectory("mnt/point").string
            try d.tree.create("config/fsindex/config.toml", contents: Self.config(label: disk.label, store: nil))
            try d.start()
            try mounts.mount(["-o", "loop", disk.image], at: point)
            try d.waitFor("the volume indexed", seconds: 90) {
                try d.find("avocet") == [point + "/a.txt"] && !VolumeMountTests.reconciles(of: point, in: d.log).isEmpty
            }
            // Longer than the delay a copy waits for.
            sleep(5)
            #expect(!FileManager.default.fileExists(atPath: point + "/.fsindex"), "store_on_volume is off, yet .fsindex/ was made")
            #expect(Self.copyWrites(d, disk.label) == 0)
            #expect(try VolumeMountTests.volumes(d).first?["copyWritten"] == nil)
            try mounts.unmount(point)
            try d.waitFor("the daemon to let the volume go") { d.log.contains("volume \(disk.label) unmounted") }
            #expect(d.stop() == 0)

            // Allowed, but read-only.
            try d.tree.create("config/fsindex/config.toml", contents: Self.config(label: disk.label, store: true))
            try d.start()
            try mounts.mount(["-o", "loop,ro", disk.image], at: point)
            try d.waitFor("the read-only volume reconciled", seconds: 90) {
                !VolumeMountTests.reconciles(of: point, in: d.log).isEmpty
            }
            sleep(5)
            #expect(!FileManager.default.fileExists(atPath: point + "/.fsindex"))
            let lines = d.log.split(separator: "\n").filter { $0.contains("no index copy written on it") }
            #expect(lines.count == 1 && lines.first?.contains("read-only") == true, "\(lines)")
            #expect(!d.log.split(separator: "\n").contains { $0.contains("volume \(disk.label)") && $0.contains("error") }, "an error was logged")
            #expect(try d.find("avocet") == [point + "/a.txt"])
            try mounts.unmount(point)
            #expect(d.stop() == 0)
        }
    }
}
