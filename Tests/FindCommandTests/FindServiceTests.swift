import Attributes
import Controlling
import FindCommand
import Foundation
import Indexing
import QueryWire
import Querying
import Synchronization
import SystemCalls
import SystemPackage
import TestSupport
import Testing

/// fsindexd's side of the small fsfind, called directly: what it declines (nothing written,
/// `start` never called) and what it answers into the descriptors it was given.
@Suite("FindService: what fsindexd answers for fsfind, and what it declines")
struct FindServiceTests {
    /// A request as the small fsfind makes it in this process: its environment and groups.
    static func request(_ arguments: [String], cwd: String = "/", environment overrides: [String: String?] = [:],
                        groups: [UInt32]? = nil) -> FindWire.Request {
        var env: [String: String] = [:]
        for key in FindWire.environmentKeys { if let v = ProcessInfo.processInfo.environment[key] { env[key] = v } }
        for (k, v) in overrides { env[k] = v }
        var list = [gid_t](repeating: 0, count: 1024)
        let n = getgroups(Int32(list.count), &list)
        return FindWire.Request(arguments: arguments.map { Array($0.utf8) }, workingDirectory: Array(cwd.utf8),
                                environment: env.map { Array("\($0.key)=\($0.value)".utf8) },
                                groups: groups ?? ([getgid(), getegid()] + (n > 0 ? Array(list[..<Int(n)]) : [])))
    }

    /// Runs `answer` with two pipes; returns the reply, whether `start` was called, and what was
    /// written to each.
    static func answer(_ service: FindService, _ request: FindWire.Request) -> (FindWire.Reply, started: Bool, out: String, err: String) {
        var o: [Int32] = [0, 0], e: [Int32] = [0, 0]
        _ = pipe(&o); _ = pipe(&e)
        var started = false
        let reply = service.answer(request, output: o[1], errors: e[1], peer: PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid()),
                                   start: { started = true; return true }, abandoned: { false })
        close(o[1]); close(e[1])
        func drain(_ fd: Int32) -> String {
            var data: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                data += chunk[..<n]
            }
            close(fd)
            return String(decoding: data, as: UTF8.self)
        }
        return (reply, started, drain(o[0]), drain(e[0]))
    }

    @Test("declined, with nothing written: another index, a relative --config, --live, --help, a bad option, another time zone, other groups")
    func declines() throws {
        let tree = try TemporaryTree(prefix: "fsindex-findservice")
        let mine = tree.path("index").string
        let service = FindService(location: IndexLocation(directory: FilePath(mine)), repair: NoRepair())
        let cases: [(FindWire.Request, String)] = [
            (Self.request(["--index-dir", tree.path("other").string, "x"]), "another index"),
            (Self.request(["--index-dir", mine, "--config", "my.toml", "x"]), "a relative --config"),
            (Self.request(["--index-dir", mine, "--live", "x"]), "--live"),
            (Self.request(["--index-dir", mine, "--help"]), "not a query"),
            (Self.request(["--index-dir", mine, "--limit", "0", "x"]), "for fsfind-direct to answer"),
            (Self.request(["--index-dir", mine, "x"], environment: ["TZ": "Pacific/Chatham"]), "TZ differs"),
            (Self.request(["--index-dir", mine, "x"], groups: [4_000_000_001]), "other groups"),
        ]
        for (request, reason) in cases {
            let (reply, started, out, err) = Self.answer(service, request)
            guard case let .fallback(said) = reply else {
                Issue.record("\(request.arguments.map { String(decoding: $0, as: UTF8.self) }): answered \(reply)")
                continue
            }
            #expect(said.contains(reason), "\(said)")
            #expect(!started)
            #expect(out.isEmpty && err.isEmpty)
        }
    }

    @Test("answered into the given descriptors, relative paths from the client's folder: an error for a missing index, exit 2")
    func answersIntoDescriptors() throws {
        let tree = try TemporaryTree(prefix: "fsindex-findservice")
        try tree.createDirectory("work")
        let service = FindService(location: IndexLocation(directory: tree.path("index")), repair: NoRepair())
        // `--index-dir ../index` from the client's folder `work` is this daemon's index.
        let (reply, started, out, err) = Self.answer(service, Self.request(["--index-dir", "../index", "budget"], cwd: tree.path("work").string))
        #expect(reply == .exit(2))
        #expect(started)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("fsfind: "), "\(err)")
        #expect(err.contains(tree.path("index").string), "\(err)")
    }

    /// Records what it was asked to forget.
    final class Recorder: StaleResultRepair {
        let forgotten = Mutex<[[UInt8]]>([])
        func forget(_ paths: [[UInt8]]) { forgotten.withLock { $0 += paths } }
    }

    @Test("a result whose file is gone goes to the repair the daemon gave (its own writer), not through its control socket")
    func goneFileToTheDaemonsWriter() throws {
        let tree = try TemporaryTree(prefix: "fsindex-findservice")
        let store = try IndexStore(location: IndexLocation(directory: tree.path("index")))
        let gone = tree.path("docs/budget.txt").string
        var a = AttributeSet()
        a[.name] = .string("budget.txt")
        a.contentType = .plainText
        a.textContent = "the annual budget"
        try store.indexSearchableItems([SearchableItem(uniqueIdentifier: ItemIdentifier(gone), domainIdentifier: tree.path("docs").string, attributes: a)])
        let recorder = Recorder()
        let service = FindService(location: IndexLocation(directory: tree.path("index")), repair: recorder)
        let (reply, _, out, err) = Self.answer(service, Self.request(["--index-dir", tree.path("index").string, "budget"]))
        #expect(reply == .exit(1), "\(err)")
        #expect(out.isEmpty)
        #expect(recorder.forgotten.withLock { $0 } == [Array(gone.utf8)])
    }
}
