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
/// The indexes live in the catalogue (`VolumeCatalogue`), under the home index's folder; with
/// `store_on_volume`, a copy of each travels with the volume (`VolumePortableCopy`).
package final class VolumeIndexer: Sendable {
    /// One volume being indexed.
    struct Running: Sendable {
        var volume: Volume
        var daemon: IndexDaemon
        var task: Task<Void, Never>
        var store: IndexStore
        /// Whether a copy of its index is kept on it (`store_on_volume`).
        var keepsCopy: Bool
        /// Its mount's `MAJ:MIN` when started: a copy is written only onto that file system.
        var device: String?
    }

    package let catalogue: VolumeCatalogue
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
    /// How long a volume's index must go without a commit before its copy is written again.
    let copyDelay: Duration
    /// The waits' clock (the copy's delay, each volume's daemon); tests give one they move.
    let clock: any Clock<Duration>
    /// Per volume: a count of the commits seen, so that only the last one's delay writes the copy.
    let copyGenerations = Mutex<[String: Int]>([:])
    /// The volumes whose copy is older than their index.
    let copiesDue = Mutex<Set<String>>([])
    /// Why a copy was not written, once per volume and reason (a full volume says so once).
    let copyRefusalsLogged = Mutex<Set<String>>([])
    /// One copy at a time (a copy is a whole database written out).
    let copying = Mutex<Void>(())
    /// Where each volume's daemon runs: nil, Swift's shared pool (fsindexd); a test gives an
    /// executor of its own, because its suite's blocking tests can hold the pool's two threads
    /// for minutes, and a daemon started inside would wait that long for its first step.
    let daemonExecutor: (any TaskExecutor)?

    /// - Parameters:
    ///   - indexDirectory: the home index's folder; the volumes' are under it (`VolumeCatalogue`).
    ///   - home: the home folder, never a volume under `all`.
    ///   - publish: each volume's item changes, for the query socket's live subscribers.
    package init(indexDirectory: FilePath, settings: Settings, home: String?, logger: Logger,
                mounts: @escaping @Sendable () -> MountTable = { VolumeCatalogue.currentMounts() },
                identify: @escaping @Sendable (MountTable.Entry) -> VolumeIdentity = { VolumeIdentity.read($0) },
                publish: @escaping @Sendable (ItemChanges) -> Void = { _ in }, copyDelay: Duration = .seconds(3),
                daemonExecutor: (any TaskExecutor)? = nil, clock: any Clock<Duration> = TimerClock()) {
        catalogue = VolumeCatalogue(indexDirectory: indexDirectory)
        self.settings = Mutex(settings)
        self.home = home
        self.logger = logger
        self.mounts = mounts
        self.identify = identify
        self.publish = publish
        self.copyDelay = copyDelay
        self.daemonExecutor = daemonExecutor
        self.clock = clock
        (refreshes, refreshInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Looks at the mounts again (a mount or unmount, new settings): safe from any thread. A
    /// burst is looked at once.
    package func refresh() { refreshInput.yield() }

    /// New settings (SIGHUP): the volumes they choose are started, the others stopped.
    package func reload(_ new: Settings) {
        settings.withLock { $0 = new }
        refresh()
    }

    /// Applies the mounts, then each change, until `stop()`; then stops every volume's daemon.
    package func run() async {
        refresh()
        for await _ in refreshes { await apply() }
        for key in running.withLock({ Array($0.keys) }) { await stopVolume(key, reason: "fsindexd is stopping", writingCopy: true) }
    }

    /// Ends `run()` once the change at hand is applied.
    package func stop() { refreshInput.finish() }

    /// The volumes mounted and indexed now.
    package var mounted: [Volume] { running.withLock { $0.values.map(\.volume) }.sorted { $0.mountPoint < $1.mountPoint } }

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
                logger.error("volume \(volume.shownName) at \(volume.shownMountPoint) not indexed: \(error)")
            }
        }
    }

    /// Opens (or makes) the volume's index, moves its items to the mount point of now, and
    /// starts its daemon, which reconciles it with the disk first.
    func startVolume(_ volume: Volume, settings: Settings) throws {
        let location = IndexLocation(directory: catalogue.directory(of: volume.key))
        var before = catalogue.volumes().first { $0.key == volume.key }
        try location.prepare()
        let keepsCopy = settings.volumes.storesOnVolume(volume)
        var seeded = false
        // No index of it here (another machine's drive, or the index deleted): its own copy, if
        // it carries a sound one, saves reading every file again; the reconcile does the rest.
        if keepsCopy && !location.exists {
            switch VolumePortableCopy.seed(volume, into: location) {
            case nil:
                break
            case .success(let record):
                seeded = true
                var was = volume
                was.mountPoint = record.mountPoint
                before = was
                logger.info("volume \(volume.shownName): index seeded from the copy on the volume (written at \(ByteString.escaped(Array(record.mountPoint.utf8), escapeControls: true)), \(record.written)); reconciling it")
            case .failure(let why):
                logger.warning("volume \(volume.shownName): the index copy on the volume is ignored (\(why)); indexing it from scratch")
            }
        }
        let opened = try IndexStore.openRecovering(location: location, checkIntegrity: true)
        if opened.rebuilt { logger.warning("the index of volume \(volume.shownName) was damaged; it was moved aside and is rebuilt from the files") }
        let store = opened.store
        let root = FilePath(volume.mountPoint)
        if let before, before.mountPoint != volume.mountPoint {
            let moved = try store.movedItems(from: ItemIdentifier(bytes: FilePath(before.mountPoint).bytes), to: ItemIdentifier(bytes: root.bytes),
                                             domain: IndexUpdater.domainName(root))
            logger.info("volume \(volume.shownName) is now at \(volume.shownMountPoint) (was \(before.shownMountPoint)): \(moved.moved) items moved")
        }
        if seeded {
            // A copy from outside may hold items of other places (a home folder's, made up):
            // only the volume's own domain is kept; the reconcile checks every item in it.
            let own = IndexUpdater.domainName(root)
            let others = try store.domainNames().filter { $0 != own }
            if !others.isEmpty { _ = try store.deleteItems(domains: others) }
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
        // The volume's index copy is never an item of it (with include_hidden too).
        own.crawl.exclude.append(VolumeCopyRecord.folderName)
        let source: any FileEventSource
        if volume.isNetwork {
            source = RescanningEventSource(interval: .seconds(settings.daemon.pollInterval))
        } else {
            source = try InotifyEventSource(pollInterval: .seconds(settings.daemon.pollInterval),
                                            watchLimit: settings.daemon.watchLimit > 0 ? settings.daemon.watchLimit : nil,
                                            onNotice: { [logger] in logger.warning("\($0)") })
        }
        var log = logger
        log[metadataKey: "volume"] = "\(volume.shownName)"
        let daemon = IndexDaemon(store: store, settings: own, roots: [IndexRoot(root)], source: source, logger: log,
                                 rootsFromCommandLine: true, clock: clock)
        let key = volume.key
        daemon.setPublisher { [publish, weak self] changes in
            publish(changes)
            self?.copyLater(key)
        }
        // After the reconcile: a copy now, even when it found nothing to change.
        daemon.setCrawlHandler { [weak self] in self?.copyLater(key) }
        let device = mounts().entries.last { $0.mountPoint == volume.mountPoint }?.device
        let task = Task(executorPreference: daemonExecutor) { await daemon.run() }
        running.withLock { $0[volume.key] = Running(volume: volume, daemon: daemon, task: task, store: store, keepsCopy: keepsCopy, device: device) }
        logger.info("volume \(volume.shownName) (\(volume.fileSystemType), \(volume.uuid ?? "no UUID")) mounted at \(volume.shownMountPoint): \(volume.isNetwork ? "polled every \(settings.daemon.pollInterval) s" : "watched"); index \(location.directory.string)")
    }

    /// Stops a volume's daemon and waits for it: its index is closed, its items stay. On a clean
    /// stop (`writingCopy`, the volume still mounted) a copy older than the index is written first.
    func stopVolume(_ key: String, reason: String, writingCopy: Bool = false) async {
        if writingCopy && copiesDue.withLock({ $0.contains(key) }) { writeCopy(key) }
        guard let r = running.withLock({ $0.removeValue(forKey: key) }) else { return }
        r.daemon.requestStop()
        await r.task.value
        copiesDue.withLock { _ = $0.remove(key) }
        logger.info("volume \(r.volume.shownName) \(reason): its index is kept at \(catalogue.directory(of: key).string)")
    }
}


// The portable copy's timing: after each reconcile, and once the commits of a burst settle.
extension VolumeIndexer {
    /// The volume's index changed (or was reconciled): its copy is written `copyDelay` after the
    /// last such call, when the volume keeps one.
    func copyLater(_ key: String) {
        guard running.withLock({ $0[key]?.keepsCopy }) == true else { return }
        copiesDue.withLock { _ = $0.insert(key) }
        let generation = copyGenerations.withLock { g -> Int in
            g[key, default: 0] += 1
            return g[key]!
        }
        Task { [weak self, copyDelay, clock] in
            do { try await clock.sleep(for: copyDelay) } catch { return }
            guard let self, self.copyGenerations.withLock({ $0[key] }) == generation else { return }
            self.writeCopy(key)
        }
    }

    /// Writes the volume's copy now, if it is still mounted where it was started.
    func writeCopy(_ key: String) {
        copying.withLock { _ in
            guard let r = running.withLock({ $0[key] }), r.keepsCopy else { return }
            // Unmounted meanwhile (its daemon not stopped yet): nothing is written on the folder left.
            guard mounts().entries.last(where: { $0.mountPoint == r.volume.mountPoint })?.device == r.device else { return }
            copiesDue.withLock { _ = $0.remove(key) }
            let started = ContinuousClock.now
            do throws(VolumeCopyRefusal) {
                try VolumePortableCopy.write(r.store, volume: r.volume, device: r.device)
                copyRefusalsLogged.withLock { logged in logged = logged.filter { !$0.hasPrefix(key + "\0") } }
                logger.info("volume \(r.volume.shownName): index copy written to \(r.volume.shownMountPoint)/\(VolumeCopyRecord.folderName) in \(ContinuousClock.now - started)")
            } catch {
                if copyRefusalsLogged.withLock({ $0.insert(key + "\0" + "\(error)").inserted }) {
                    logger.notice("volume \(r.volume.shownName): no index copy written on it: \(error)")
                }
            }
        }
    }
}
