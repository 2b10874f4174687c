import Attributes
import CommandSupport
import Configuration
import Controlling
import Foundation
import Indexing
import LocalIndex
import MCP
import Querying
import SharedIndex
import SharedQuerying
import Synchronization
import SystemCalls
import Glibc

/// The tools over one index, for one client: every call is read-only, bounded by
/// `AgentOptions`, and answered through the same `QueryPipeline` as fsfind (so a query means the
/// same in both, and a file that is gone or unreadable is never shown).
///
/// The MCP server (`AgentServer`) only routes calls here; the tools' logic is testable without
/// a transport.
package final class AgentSession: Sendable {
    package let options: AgentOptions
    package let location: IndexLocation
    let catalog: ToolCatalog

    /// The opened index (opened on the first call that needs it, so that a server started
    /// before the first `fsindex index` answers once the index exists), and the call counter.
    private let state = Mutex<State>(State())
    private struct State {
        var opened: QueryPipeline?
        var calls = 0
        /// The files of the latest search, which `resources/list` offers.
        var latest: [FoundItem] = []
    }

    package init(options: AgentOptions, location: IndexLocation) {
        self.options = options
        self.location = location
        self.catalog = ToolCatalog(options: options)
    }

    /// The tools offered under the guidance in force.
    package var tools: [Tool] { catalog.tools }

    /// Answers one tool call. Every failure is an `AgentError` (a tool error for the model).
    package func call(_ name: String, arguments: [String: Value]?, progress: ProgressReporter = .none) async throws(AgentError) -> ToolReply {
        guard catalog.offers(name) else {
            throw .badArgument(name: "name", reason: "\"\(name)\" is not a tool of this server; its tools are \(catalog.names.joined(separator: ", "))")
        }
        switch name {
        case "search": return try await search(arguments, progress: progress)
        case "count": return try count(arguments)
        case "table": return try table(arguments)
        case "statistic": return try statistic(arguments)
        case "read_text": return try readText(arguments)
        case "describe": return try describe(arguments)
        case "suggest": return try suggest(arguments)
        default: throw .badArgument(name: "name", reason: "\"\(name)\" is not a tool of this server")
        }
    }

    // MARK: - What the tools share

    func pipeline() throws(AgentError) -> QueryPipeline {
        try state.withLock { (state) throws(AgentError) -> QueryPipeline in
            if let opened = state.opened { return opened }
            let p = try openPipeline()
            state.opened = p
            return p
        }
    }

    private func openPipeline() throws(AgentError) -> QueryPipeline {
        if let shared = options.sharedURL {
            // The shared index decides who sees what itself (row-level security).
            do {
                return try QueryPipeline.open(url: try SharedIndexURL(shared))
            } catch {
                throw .failed(error)
            }
        }
        do {
            let base = try QueryPipeline.open(location: location).pipeline
            // Readable files only, and no writes: a gone file is reported to fsindexd (if it
            // runs), never deleted from the index here.
            return QueryPipeline(engine: base.engine, fileCheck: Self.readable, repair: DaemonOrIndexRepair(location: location, deletesWithoutDaemon: false))
        } catch {
            throw .failed(error)
        }
    }

    /// The next stage token of a query.
    func status(query: String, scopes: [[UInt8]], isFinal: Bool, total: Int?) -> ReplyStatus {
        let n = state.withLock { state in
            state.calls += 1
            return state.calls
        }
        var key = Array(query.utf8)
        for s in scopes { key += [0] + s }
        let token = Self.token(key)
        return ReplyStatus(queryToken: token, stageToken: "\(token).\(n)", isFinal: isFinal, total: total)
    }

    /// `q` and 12 hex digits of FNV-1a: short, and the same for the same query in any session.
    static func token(_ bytes: [UInt8], prefix: String = "q") -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return prefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex.prefix(12)
    }

    /// A request as fsfind would make it, within these scopes, with the server's limits.
    func request(_ text: String, scopes: [[UInt8]], answer: QueryRequest.Answer) -> QueryRequest {
        var r = QueryRequest(text: text, scopes: scopes, onePerFile: true, answer: answer, ranking: options.ranking,
                             timeLimit: options.timeLimit)
        if let kinds = options.guidance.kinds { r.restriction = KindWords.predicate(kinds) }
        r.identity = options.identity
        r.questions = options.questions
        r.semantic = options.semantic
        return r
    }

    func run(_ request: QueryRequest) throws(AgentError) -> QueryReply.Content {
        let p = try pipeline()
        var content: QueryReply.Content?
        do {
            try p.run(request) { content = $0.content }
        } catch {
            throw .failed(error)
        }
        guard let content else { throw .query("the index gave no answer") }
        return content
    }

    func remember(_ items: [FoundItem]) {
        state.withLock { $0.latest = items }
    }

    /// The files of the latest search (`resources/list`).
    package var latestItems: [FoundItem] {
        state.withLock { $0.latest }
    }

    /// A file the model may be shown: there, inside the scopes, and readable by this user.
    /// `path` is absolute and normalized (`ScopeSet.normalized`). Whatever is outside the scopes
    /// gets one answer, there or not (`ScopeSet.admits`): the answers are no oracle for the
    /// files outside.
    package func available(_ path: [UInt8]) throws(AgentError) {
        guard options.scopes.admits(path) else {
            throw .outsideScopes(path: ReplyValues.path(path), scopes: options.scopes.display)
        }
        switch Self.readable.state(of: path) {
        case .exists: return
        case .gone: throw .notAvailable(path: ReplyValues.path(path), reason: "no such file")
        case .inaccessible: throw .notAvailable(path: ReplyValues.path(path), reason: "cannot be read by this user")
        }
    }

    /// There (`lstat`) and readable by the user running the server (`access`), as the disk says
    /// now: the index may hold files another user indexed, or that changed mode since.
    static let readable = FileCheck { path in
        var st = stat()
        let c = path.map { CChar(bitPattern: $0) } + [0]
        guard lstat(c, &st) == 0 else { return errno == ENOENT || errno == ENOTDIR ? .gone : .inaccessible }
        // A symbolic link is shown as itself (its own name and facts), not its target.
        if (st.st_mode & S_IFMT) == S_IFLNK { return .exists }
        return access(c, R_OK) == 0 ? .exists : .inaccessible
    }
}

/// Where progress goes: MCP progress notifications when the client asked for them, nowhere
/// otherwise.
package struct ProgressReporter: Sendable {
    let send: @Sendable (_ progress: Double, _ total: Double?, _ message: String) async -> Void

    package init(_ send: @escaping @Sendable (Double, Double?, String) async -> Void) { self.send = send }

    package static let none = ProgressReporter { _, _, _ in }

    func report(_ progress: Double, of total: Double?, _ message: String) async { await send(progress, total, message) }
}
