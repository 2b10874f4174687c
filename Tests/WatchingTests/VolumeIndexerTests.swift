import Attributes
import Configuration
import Crawling
import Foundation
import Indexing
import Logging
import Synchronization
import SystemPackage
import TestSupport
import Testing
@testable import Watching
import Glibc

/// fsindexd's volumes without mounting anything (issue 29): a mount table the test writes, with
/// folders of the temporary tree as mount points. The real mounts are in CommandTests
/// (`VolumeMountTests`, root only).
@Suite("VolumeIndexer: a volume's own index, reused and reconciled, moved with its mount point", .blocking, .serialized)
struct VolumeIndexerTests {
    /// A mount table with at most one entry, which the test changes.
    final class FakeMounts: Sendable {
        let text = Mutex("")
        func mount(_ point: String, source: String = "testdisk", type: String = "ext4") {
            text.withLock { $0 = "50 22 7:9 / \(point) rw - \(type) \(source) rw\n" }
        }
        func unmountAll() { text.withLock { $0 = "" } }
        var table: MountTable { MountTable(text.withLock { $0 }) }
    }

    static func settings(_ toml: String) throws -> Settings {
        var s = Settings()
        try s.apply(toml: toml, file: "test.toml")
        return s
    }

    /// Each reconcile of `root` the daemon logged: indexed, unchanged, removed.
    func reconciles(of root: String, in log: String) -> [[Int]] {
        log.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "reconciled \(root): ")?.upperBound else { return nil }
            return Array(line[start...].split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Int($0) }.prefix(3))
        }
    }

    func paths(_ store: IndexStore, under dir: String) throws -> Set<String> {
        Set(try store.stamps(under: ItemIdentifier(bytes: Array(dir.utf8)), recursive: true).keys
            .map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasSuffix(".txt") })
    }

    @Test("mounted: indexed in <index>/volumes/<uuid>/; unmounted: stopped, index kept; back elsewhere: the same database, items moved, changes reconciled")
    func mountUnmountReturnElsewhere() async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor()) { try await body() }
    }

    func body() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-volume-indexer")
        defer { tree.remove() }
        try tree.create("mnt/DISK/a.txt", contents: "heron on the volume")
        try tree.create("mnt/DISK/b.txt", contents: "egret to be deleted")
        let first = tree.path("mnt/DISK").string, second = tree.path("mnt/DISK2").string
        let mounts = FakeMounts()
        let log = InMemoryLog()
        let uuid = "11111111-2222-4333-8444-555555555555"
        let indexer = VolumeIndexer(indexDirectory: tree.path("index"),
                                    settings: try Self.settings("[[volumes.volume]]\nlabel = \"DISK\"\nindex = true\n"),
                                    home: nil, logger: Logger(label: "test", factory: { _ in log }), mounts: { mounts.table },
                                    identify: { $0.source == "testdisk" ? VolumeIdentity(uuid: uuid.uppercased(), label: "DISK") : VolumeIdentity() },
                                    daemonExecutor: ThreadPerJobExecutor())
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await indexer.run() }
        defer { indexer.stop() }

        let location = IndexLocation(directory: tree.path("index/volumes/" + uuid))
        mounts.mount(first)
        indexer.refresh()
        try await waitFor("the volume's first crawl") {
            location.exists && (try? paths(IndexStore(location: location, readOnly: true), under: first)) == [first + "/a.txt", first + "/b.txt"]
                && !reconciles(of: first, in: log.text).isEmpty
        }
        #expect(indexer.mounted.map(\.mountPoint) == [first])
        #expect(indexer.catalogue.volumes().map(\.label) == ["DISK"])
        var st = stat()
        #expect(stat(location.databasePath.string, &st) == 0)
        let inode = st.st_ino

        // Unplugged: its daemon stops, its index stays.
        mounts.unmountAll()
        indexer.refresh()
        try await waitFor("the volume to be stopped") { indexer.mounted.isEmpty }
        #expect(try paths(IndexStore(location: location, readOnly: true), under: first).count == 2)

        // Changed elsewhere, and back at another mount point.
        #expect(rename(first, second) == 0)
        try tree.create("mnt/DISK2/c.txt", contents: "ibis added meanwhile")
        try tree.remove("mnt/DISK2/b.txt")
        mounts.mount(second)
        indexer.refresh()
        try await waitFor("the volume reconciled at its new mount point") {
            (try? paths(IndexStore(location: location, readOnly: true), under: second)) == [second + "/a.txt", second + "/c.txt"]
                && !reconciles(of: second, in: log.text).isEmpty
        }
        let store = try IndexStore(location: location, readOnly: true)
        #expect(try paths(store, under: first).isEmpty)
        // a.txt was moved with its mount point, not extracted again; b.txt's item went.
        let reports = reconciles(of: second, in: log.text)
        #expect(reports.contains { $0.count == 3 && $0[1] >= 1 && $0[2] >= 1 }, "\(reports): \(log.text)")
        #expect(log.text.contains("is now at \(second) (was \(first))"))
        #expect(stat(location.databasePath.string, &st) == 0 && st.st_ino == inode, "the index was made again instead of reused")
        #expect(indexer.catalogue.volumes().map(\.mountPoint) == [second])
        indexer.stop()
        await running.value
        #expect(indexer.mounted.isEmpty)
    }

    @Test("a network share named in the config is polled (rescanned every poll_interval), not watched; unnamed, it is left alone")
    func networkSharePolled() async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor()) {
            let tree = try TemporaryTree(prefix: "fsindex-volume-share")
            defer { tree.remove() }
            try tree.create("share/one.txt", contents: "cormorant")
            let point = tree.path("share").string
            let mounts = FakeMounts()
            mounts.mount(point, source: "nas:/export", type: "nfs4")
            // Unnamed: nothing, whatever the policy.
            let unnamed = VolumeIndexer(indexDirectory: tree.path("index0"), settings: try Self.settings("[volumes]\nindex = \"all\"\n"),
                                        home: nil, logger: Logger(label: "test"), mounts: { mounts.table })
            await unnamed.apply()
            #expect(unnamed.mounted.isEmpty)

            let indexer = VolumeIndexer(indexDirectory: tree.path("index"),
                                        settings: try Self.settings("[daemon]\npoll_interval = 1\n[[volumes.volume]]\nsource = \"nas:/export\"\nindex = true\n"),
                                        home: nil, logger: Logger(label: "test"), mounts: { mounts.table }, daemonExecutor: ThreadPerJobExecutor())
            let running = Task(executorPreference: ThreadPerJobExecutor()) { await indexer.run() }
            defer { indexer.stop() }
            try await waitFor("the share's first crawl") { indexer.mounted.count == 1 }
            let volume = try #require(indexer.mounted.first)
            #expect(volume.isNetwork && volume.key.hasPrefix("nfs4-"))
            let daemon = try #require(indexer.running.withLock { $0[volume.key]?.daemon })
            #expect(daemon.source is RescanningEventSource)
            let location = IndexLocation(directory: indexer.catalogue.directory(of: volume.key))
            try await waitFor("the first crawl") { (try? paths(IndexStore(location: location, readOnly: true), under: point)) == [point + "/one.txt"] }
            // A change on the share: found by the next rescan (no inotify watch is there).
            try tree.create("share/two.txt", contents: "shag")
            try await waitFor("the next poll", seconds: 30) {
                (try? paths(IndexStore(location: location, readOnly: true), under: point)) == [point + "/one.txt", point + "/two.txt"]
            }
            indexer.stop()
            await running.value
        }
    }
}
