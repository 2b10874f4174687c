import Configuration
import Controlling
import Crawling
import Desktop
import FindCommand
import Indexing
import Logging
import ServiceLifecycle
import UnixSignals
import SharedIndex
import SystemPackage
import Updating
import Watching

/// Everything fsindexd is made of, built from its settings, and the group that runs it.
///
/// A key design decision: the order of `services()` is the daemon's whole life cycle. The
/// group starts them in that order and, at SIGTERM or when the writer ends, stops them one by
/// one in the reverse order: first what feeds the writer (SIGHUP, the index file monitor, the
/// recently-used list, the mount table), then the writer (at its next file; workers abandoned),
/// then what reads from it (the volumes' daemons, the shared-index feeder), and the control
/// server last, so that a client hears "stopping" and every change the writer published.
package struct DaemonParts: Sendable {
    package let daemon: IndexDaemon
    package let server: ControlServer
    package let feeder: SharedFeeder?
    package let volumes: VolumeIndexer
    package let mountWatcher: MountWatcher?
    package let recentlyUsed: RecentlyUsedMonitor?
    package let monitor: IndexFileMonitor?
    package let logger: Logger

    /// What the parts are made from: the settings, where the index is, and the roots.
    package struct Plan: Sendable {
        package var settings: Settings
        package var location: IndexLocation
        package var roots: [IndexRoot]
        package var rootsFromCommandLine = false
        /// The shared index's URL and this machine's name in it, when one is configured.
        package var shared: (url: String, host: String?)?
        package var environment: [String: String] = [:]

        package init(settings: Settings, location: IndexLocation, roots: [IndexRoot], rootsFromCommandLine: Bool = false,
                     shared: (url: String, host: String?)? = nil, environment: [String: String] = [:]) {
            self.settings = settings
            self.location = location
            self.roots = roots
            self.rootsFromCommandLine = rootsFromCommandLine
            self.shared = shared
            self.environment = environment
        }
    }

    /// Opens the index (moving a damaged one aside), the control socket and the watcher: a
    /// failure here is one message and exit 2.
    package static func make(_ plan: Plan, logger: Logger) throws -> DaemonParts {
        let settings = plan.settings, location = plan.location
        let opened = try IndexStore.openRecovering(location: location, checkIntegrity: true)
        if opened.rebuilt { logger.warning("the index was damaged; it was moved aside and is rebuilt from the files") }
        let source = try InotifyEventSource(pollInterval: .seconds(settings.daemon.pollInterval),
                                            watchLimit: settings.daemon.watchLimit > 0 ? settings.daemon.watchLimit : nil,
                                            onNotice: { logger.warning("\($0)") })
        let daemon = IndexDaemon(store: opened.store, settings: settings, roots: plan.roots, source: source, logger: logger,
                                 rootsFromCommandLine: plan.rootsFromCommandLine)
        // The query socket beside it answers the small fsfind from this warm process.
        let repair = WriterRepair(daemon: daemon)
        let server = try ControlServer(location: ControlLocation.forIndex(directory: location.directory),
                                       handler: DaemonControl(daemon: daemon, searchBox: SearchBoxAnswers(location: location, settings: settings, repair: repair)),
                                       findHandler: FindService(location: location, repair: repair))
        // The shared index, when one is configured: this machine's items go there too.
        var feeder: SharedFeeder?
        if let shared = plan.shared {
            let url = try SharedIndexURL(shared.url)
            let publisher = SharedPublisher(store: opened.store, url: url, host: shared.host)
            // What it watches, and the apps' domains: a root the local index holds but this
            // daemon does not watch would go stale in the shared index (issue 22).
            publisher.publishes = SharedPublisher.watching { [daemon] in daemon.watchedDomains }
            feeder = SharedFeeder(publisher: publisher) { logger.notice("\($0)") }
            logger.info("publishing to the shared index \(url) as host \(publisher.host)")
        }
        daemon.setPublisher { [feeder] changes in
            server.publish(changes)
            feeder?.changed(changes.updated + changes.removed + changes.summarized + changes.prioritized)
        }
        if let feeder { daemon.setCrawlHandler { feeder.requestFullPass() } }
        // Volumes (issue 29): each file system `[volumes]` chooses, indexed while it is mounted,
        // in an index of its own; the mount table wakes the watcher, no timer.
        let volumes = VolumeIndexer(indexDirectory: location.directory, settings: settings, home: plan.environment["HOME"],
                                    logger: logger, publish: { server.publish($0) })
        // A root that is a mount point, unmounted, is awaited; mounting it again makes no inotify
        // event, so the mount table says so.
        let mountWatcher = MountWatcher {
            volumes.refresh()
            source.mountsChanged()
        }
        if mountWatcher == nil { logger.warning("cannot watch /proc/self/mountinfo: volumes mounted from now on are not noticed") }
        // The desktop's list of recently used files: each new visit is a use (`fsindex used`).
        let recentlyUsed = settings.daemon.followRecentlyUsed
            ? RecentlyUsedList.defaultLocation(environment: plan.environment).flatMap { daemon.followRecentlyUsed(file: $0) }
            : nil
        let monitor = IndexFileMonitor(location: location) {
            if let problem = daemon.indexFileProblem() { daemon.submit(.fail(problem)) }
        }
        logger.info("watching \(plan.roots.count) roots; index \(location.directory.string); control \(server.location.socketPath.string)")
        return DaemonParts(daemon: daemon, server: server, feeder: feeder, volumes: volumes, mountWatcher: mountWatcher,
                           recentlyUsed: recentlyUsed, monitor: monitor, logger: logger)
    }

    /// The services in the order they start; they stop in the reverse order (see the type's
    /// comment). The writer's end, however it comes, shuts the group down in that order.
    /// - Parameter readSettings: what SIGHUP reads; nil: SIGHUP is not handled (tests).
    package func services(readSettings: (@Sendable () throws -> Settings)?) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        typealias Part = ServiceGroupConfiguration.ServiceConfiguration
        var parts = [Part(service: UntilShutdown(stop: server.stop), serviceName: "control-server")]
        if let feeder { parts.append(Part(service: FeederService(feeder: feeder), serviceName: "shared-index-feeder")) }
        parts.append(Part(service: VolumesService(volumes: volumes), serviceName: "volumes"))
        parts.append(Part(service: WriterService(daemon: daemon), successTerminationBehavior: .gracefullyShutdownGroup,
                          failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "writer"))
        if let mountWatcher { parts.append(Part(service: UntilShutdown(stop: mountWatcher.stop), serviceName: "mount-table")) }
        if let recentlyUsed { parts.append(Part(service: UntilShutdown(stop: recentlyUsed.stop), serviceName: "recently-used-list")) }
        if let monitor { parts.append(Part(service: UntilShutdown(stop: monitor.stop), serviceName: "index-file-monitor")) }
        if let readSettings {
            parts.append(Part(service: HangupService(readSettings: readSettings, daemon: daemon, volumes: volumes, logger: logger),
                              serviceName: "sighup"))
        }
        return parts
    }

    /// The group: SIGTERM and SIGINT shut it down in order (`signals`), with no deadline: every
    /// part stops at its next step (the writer abandons the files being read), so systemd's
    /// stop timeout is never reached.
    package func group(readSettings: (@Sendable () throws -> Settings)?, signals: Bool = true) -> ServiceGroup {
        ServiceGroup(configuration: ServiceGroupConfiguration(services: services(readSettings: readSettings),
                                                              gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [],
                                                              logger: logger))
    }
}
