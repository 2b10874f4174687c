import Attributes
import Configuration
import Controlling
import Crawling
import Indexing
import Logging
import Synchronization
import SystemCalls
import SystemPackage
import Updating

/// fsindexd's volumes (issue 29): each file system `[volumes]` chooses gets an index of its
/// own, kept in step by an `IndexDaemon` of its own for as long as it is mounted.
///
/// A key design decision: a volume is a root with its own index and its own writer, started when
/// it is mounted and stopped when it is unmounted; everything a root has (the reconcile at
/// start, inotify, the missing-root handling, summaries, OCR) comes with it unchanged. So a
/// volume that returns is reconciled against its index exactly as the home folder is when
/// fsindexd starts: files unchanged are not read again. Its items keep absolute paths, at the
/// mount point of now: when it comes back elsewhere (`/run/media/ada/DISK1` after
/// `/run/media/ada/DISK`), its items are moved to the new place first (`IndexStore.movedItems`,
/// one transaction, nothing extracted again), so that results always name the file where it is.
/// The indexes live in the catalogue (`VolumeCatalogue`), under the home index's folder.
public final class VolumeIndexer: Sendable {
    /// One volume being indexed.
    struct Running: Sendable {
        var volume: Volume
        var daemon: IndexDaemon
        var task: Task<Void, Never>
    }

    public let catalogue: VolumeCatalogue
    let settings: Mutex<Settings>
    let home: String?
    let logger: Logger
    let publish: @Sendable (ItemChanges) -> Void
    let running = Mutex<[String: Running]>([:])
    let refreshes: AsyncStream<Void>
    let refreshInput: AsyncStream<Void>.Continuation
    /// A source of mount tables, and what reads a mount's UUID and label; tests give their own.
    let mounts: @Sendable () -> MountTable
    let identify: @Sendable (MountTable.Entry) -> VolumeIdentity

    /// - Parameters:
    ///   - indexDirectory: the home index's folder; the volumes' are under it (`VolumeCatalogue`).
    ///   - home: the home folder, never a volume under `all`.
    ///   - publish: each volume's item changes, for the query socket's live subscribers.
    public init(indexDirectory: FilePath, settings: Settings, home: String?, logger: Logger,
                mounts: @escaping @Sendable () -> MountTable = { VolumeCatalogue.currentMounts() },
                identify: @escaping @Sendable (MountTable.Entry) -> VolumeIdentity = { VolumeIdentity.read($0) },
                publish: @escaping @Sendable (ItemChanges) -> Void = { _ in }) {
        catalogue = VolumeCatalogue(indexDirectory: indexDirectory)
        self.settings = Mutex(settings)
        self.home = home
        self.logger = logger
        self.mounts = mounts
        self.identify = identify
        self.publish = publish
        (refreshes, refreshInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Looks at the mounts again (a mount or unmount, new settings): safe from any thread. A
    /// burst is looked at once.
    public func refresh() { refreshInput.yield() }

    /// New settings (SIGHUP): the volumes they choose are started, the others stopped.
    public func reload(_ new: Settings) {
        settings.withLock { $0 = new }
        refresh()
    }

    /// Applies the mounts, then each change, until `stop()`; then stops every volume's daemon.
    public func run() async {
        refresh()
        for await _ in refreshes { await apply() }
        for key in running.withLock({ Array($0.keys) }) { await stopVolume(key, reason: "fsindexd is stopping") }
    }

    /// Ends `run()` once the change at hand is applied.
    public func stop() { refreshInput.finish() }

    /// The volumes mounted and indexed now.
    public var mounted: [Volume] { running.withLock { $0.values.map(\.volume) }.sorted { $0.mountPoint < $1.mountPoint } }

    /// Stops the volumes that went (or moved), starts those that came.
    func apply() async {
        let settings = self.settings.withLock { $0 }
        let wanted = settings.volumes.select(mounts(), home: home, identify: identify)
        let byKey = Dictionary(wanted.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let current = running.withLock { $0 }
        for (key, r) in current where byKey[key]?.mountPoint != r.volume.mountPoint {
            await stopVolume(key, reason: byKey[key] == nil ? "unmounted" : "mounted elsewhere")
        }
        for volume in byKey.values.sorted(by: { $0.mountPoint < $1.mountPoint }) where running.withLock({ $0[volume.key] == nil }) {
            do {
                try startVolume(volume, settings: settings)
            } catch {
                logger.error("volume \(volume.name) at \(volume.mountPoint) not indexed: \(error)")
            }
        }
    }

    /// Opens (or makes) the volume's index, moves its items to the mount point of now, and
    /// starts its daemon, which reconciles it with the disk first.
    func startVolume(_ volume: Volume, settings: Settings) throws {
        let location = IndexLocation(directory: catalogue.directory(of: volume.key))
        let before = catalogue.volumes().first { $0.key == volume.key }
        try location.prepare()
        let opened = try IndexStore.openRecovering(location: location, checkIntegrity: true)
        if opened.rebuilt { logger.warning("the index of volume \(volume.name) was damaged; it was moved aside and is rebuilt from the files") }
        let store = opened.store
        let root = FilePath(volume.mountPoint)
        if let before, before.mountPoint != volume.mountPoint {
            let moved = try store.movedItems(from: ItemIdentifier(bytes: FilePath(before.mountPoint).bytes), to: ItemIdentifier(bytes: root.bytes),
                                             domain: IndexUpdater.domainName(root))
            logger.info("volume \(volume.name) is now at \(volume.mountPoint) (was \(before.mountPoint)): \(moved.moved) items moved")
        }
        try catalogue.record(volume)

        var own = settings
        // A volume's items stay while it is away (they are its offline results); its own
        // daemon is stopped at the unmount, before a grace period could matter.
        own.daemon.missingRootGrace = 31_536_000
        // The apps' providers belong to the home index.
        own.providers = []
        // Another file system mounted inside a volume is a volume of its own, or none.
        own.crawl.oneFileSystem = true
        let source: any FileEventSource
        if volume.isNetwork {
            source = RescanningEventSource(interval: .seconds(settings.daemon.pollInterval))
        } else {
            source = try InotifyEventSource(pollInterval: .seconds(settings.daemon.pollInterval),
                                            watchLimit: settings.daemon.watchLimit > 0 ? settings.daemon.watchLimit : nil,
                                            onNotice: { [logger] in logger.warning("\($0)") })
        }
        var log = logger
        log[metadataKey: "volume"] = "\(volume.name)"
        let daemon = IndexDaemon(store: store, settings: own, roots: [IndexRoot(root)], source: source, logger: log,
                                 rootsFromCommandLine: true)
        daemon.setPublisher(publish)
        let task = Task { await daemon.run() }
        running.withLock { $0[volume.key] = Running(volume: volume, daemon: daemon, task: task) }
        logger.info("volume \(volume.name) (\(volume.fileSystemType), \(volume.uuid ?? "no UUID")) mounted at \(volume.mountPoint): \(volume.isNetwork ? "polled every \(settings.daemon.pollInterval) s" : "watched"); index \(location.directory.string)")
    }

    /// Stops a volume's daemon and waits for it: its index is closed, its items stay.
    func stopVolume(_ key: String, reason: String) async {
        guard let r = running.withLock({ $0.removeValue(forKey: key) }) else { return }
        r.daemon.requestStop()
        await r.task.value
        logger.info("volume \(r.volume.name) \(reason): its index is kept at \(catalogue.directory(of: key).string)")
    }
}
