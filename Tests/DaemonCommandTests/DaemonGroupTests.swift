import Configuration
import Controlling
import Crawling
import DaemonCommand
import Foundation
import Indexing
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage
import TestSupport
import Testing
import Updating
import Watching

/// fsindexd's wiring (`DaemonParts`): every part is a service of one group, started in order
/// and stopped in the reverse order, and the writer's end, whatever its reason, ends the group.
/// Signals through the real binary are in CommandTests' DaemonStopTests.
@Suite("fsindexd's services in one group (issue 42)", .blocking, .serialized)
struct DaemonGroupTests {
    /// A temporary root with a file, an index folder, and the group's parts over them.
    struct Fixture {
        let tree: TemporaryTree
        let parts: DaemonParts
        let log = LogRecorder()

        init() throws {
            tree = try TemporaryTree(prefix: "fsindex-group")
            try tree.create("root/notes/kumquat.txt", contents: "kumquat marmalade")
            try tree.createDirectory("index")
            var settings = Settings()
            settings.daemon.followRecentlyUsed = false
            let plan = DaemonParts.Plan(settings: settings, location: IndexLocation(directory: tree.path("index")),
                                        roots: [IndexRoot(tree.path("root"))])
            let recorder = log
            var logger = Logger(label: "fsindexd-test") { _ in recorder }
            logger.logLevel = .debug
            parts = try DaemonParts.make(plan, logger: logger)
        }

        var socket: String { parts.server.location.socketPath.string }

        /// The group (without signals) running as fsindexd runs it, once the first reconcile
        /// is done. On threads of its own: the writer blocks its thread while it crawls, which
        /// fsindexd's overcommit executor allows (`prepareProcess`) and which would hold one
        /// of the test pool's two threads.
        func started() async throws -> (ServiceGroup, Task<Void, any Error>) {
            let group = parts.group(readSettings: nil, signals: false)
            let running = Task(executorPreference: ThreadPerJobExecutor()) { try await group.run() }
            try await waitFor("the first reconcile", seconds: 300) { parts.daemon.status.state == .watching }
            return (group, running)
        }
    }

    @Test("every part is a service; the group stops them in the reverse of their start order, the control server last")
    func stopsInOrder() async throws {
        let f = try Fixture()
        let (group, running) = try await f.started()
        #expect(FileManager.default.fileExists(atPath: f.socket), "the control server listens while the group runs")
        #expect(try f.parts.daemon.store.count() >= 3)
        await group.triggerGracefulShutdown()
        try await running.value
        let started = f.parts.services(readSettings: nil).map(\.serviceName)
        #expect(started.first == "control-server" && started.contains("writer") && started.contains("volumes"))
        #expect(f.log.finished == Array(started.reversed()), "\(f.log.lines)")
        #expect(!FileManager.default.fileExists(atPath: f.socket), "the control server stopped with the group")
        #expect(f.parts.daemon.status.state == .stopping)
    }

    @Test("the writer failing (its database deleted) ends the group in order, and run() throws why")
    func writerFailureEndsTheGroup() async throws {
        let f = try Fixture()
        let (group, running) = try await f.started()
        try FileManager.default.removeItem(atPath: f.parts.daemon.store.location.databasePath.string)
        let thrown: (any Error)? = await {
            do { try await running.value; return nil } catch { return error }
        }()
        let message = thrown.map { "\($0)" } ?? ""
        #expect(message.contains("was deleted"), "\(message)")
        // The writer ended first; the others then stopped in the reverse order, the server last.
        let started = f.parts.services(readSettings: nil).map(\.serviceName)
        #expect(f.log.finished == Array(started.reversed().filter { $0 != "writer" }), "\(f.log.lines)")
        #expect(!FileManager.default.fileExists(atPath: f.socket))
    }

    @Test("the control service turns requests into the writer's commands and its outcomes into responses; a bad request never reaches it")
    func requestsBecomeCommands() async throws {
        let f = try Fixture()
        let (group, running) = try await f.started()
        let client = try ControlClient.connect(f.parts.server.location)
        let refused = try client.request(.used(paths: [], title: nil), timeout: .seconds(60))
        #expect(refused == .error("bad request: used takes one or more absolute paths or DOMAIN:ID of donated items"))
        let badBatch = try ControlClient.connect(f.parts.server.location)
            .request(.donate(domain: "app.notes", clientState: nil, items: [Array("not json".utf8)]), timeout: .seconds(60))
        guard case .error = badBatch else { Issue.record("a malformed item was accepted: \(badBatch)"); return }
        #expect(try !f.parts.daemon.store.domainNames().contains("app.notes"))

        _ = try ControlClient.connect(f.parts.server.location).request(.pause, timeout: .seconds(60))
        #expect(f.parts.daemon.status.state == .paused)
        _ = try ControlClient.connect(f.parts.server.location).request(.resume, timeout: .seconds(60))
        try await waitFor("the writer to resume") { f.parts.daemon.status.state == .watching }
        let file = f.tree.path("root/notes/kumquat.txt").bytes
        let used = try ControlClient.connect(f.parts.server.location).request(.used(paths: [file], title: nil), timeout: .seconds(60))
        #expect(used == .usesRecorded(RecordedUses(paths: [file], useCounts: [1], indexed: [true])))
        let reindexed = try ControlClient.connect(f.parts.server.location).request(.reindex(paths: [file]), timeout: .seconds(30))
        guard case .reindexDone(let summary) = reindexed else { Issue.record("\(reindexed)"); return }
        #expect(summary.problems == 0)
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("a shutdown request on the control socket ends the writer, and with it the group")
    func shutdownRequestEndsTheGroup() async throws {
        let f = try Fixture()
        let (group, running) = try await f.started()
        let reply = try ControlClient.connect(f.parts.server.location).request(.shutdown, timeout: .seconds(60))
        #expect("\(reply)".contains("stopping"))
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: f.socket))
        #expect(f.log.finished.last == "control-server", "\(f.log.lines)")
    }
}

/// Keeps the group's log lines; `finished` lists the services the group saw finish, in order.
final class LogRecorder: LogHandler, @unchecked Sendable {
    private let recorded = Mutex<[(message: String, service: String?)]>([])
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let service = metadata?["sl-service"].map { "\($0)" }
        recorded.withLock { $0.append(("\(message)", service)) }
    }

    var lines: [String] { recorded.withLock { $0.map { "\($0.message) \($0.service ?? "")" } } }
    var finished: [String] { recorded.withLock { $0.compactMap { $0.message == "Service finished" ? $0.service : nil } } }
}
