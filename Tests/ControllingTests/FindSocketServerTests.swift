import CSysShims
import Foundation
import QueryWire
import Synchronization
import SystemCalls
import SystemPackage
import TestSupport
import Testing
@testable import Controlling

/// Writes what it was asked into the client's descriptors: `args: A B` on stdout, `cwd: D` on
/// stderr; declines a query whose first argument is `decline`; holds a `slow` one until the
/// test opens `slowGate`.
final class EchoFindHandler: FindHandler {
    let answered = Atomic<Int>(0)
    let slowGate = DispatchSemaphore(value: 0)
    func answer(_ request: FindWire.Request, output: Int32, errors: Int32, peer: PeerCredentials,
                start: () -> Bool, abandoned: @escaping @Sendable () -> Bool) -> FindWire.Reply {
        let words = request.arguments.map { String(decoding: $0, as: UTF8.self) }
        if words.first == "decline" { return .fallback("asked to") }
        if words.first == "slow" { slowGate.wait() }
        guard start() else { return .exit(2) }
        let out = Array("args: \(words.joined(separator: " "))\n".utf8)
        let err = Array("cwd: \(String(decoding: request.workingDirectory, as: UTF8.self))\n".utf8)
        _ = out.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        _ = err.withUnsafeBytes { write(errors, $0.baseAddress, $0.count) }
        answered.add(1, ordering: .relaxed)
        return .exit(3)
    }
}

/// A client of the query socket as fsfind is one: connect, send the frame with two descriptors
/// (here the write ends of two pipes), read reply lines.
struct QueryClient {
    let fd: Int32

    init(_ location: ControlLocation) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard let address = SystemCall.unixAddress(location.findSocketPath.bytes) else { throw ControlError.disconnected }
        var a = address
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else { _ = Glibc.close(fd); throw ControlError.system(operation: "connect", path: nil, errno: Errno(rawValue: errno)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8], descriptors: [Int32]) -> Bool {
        var fds = descriptors
        let n = bytes.withUnsafeBytes { shim_send_with_fds(fd, $0.baseAddress, UInt($0.count), &fds, Int32(fds.count)) }
        return n == bytes.count
    }

    /// Every line until the server closes.
    func lines() -> [String] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += chunk[..<n]
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func close() { _ = Glibc.close(fd) }
}

/// A pipe whose read end collects what the server writes into its write end.
struct Collector {
    let read: Int32, write: Int32
    init() { var p: [Int32] = [0, 0]; _ = pipe(&p); read = p[0]; write = p[1] }
    /// Closes the write end and reads everything.
    func text() -> String {
        _ = Glibc.close(write)
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += chunk[..<n]
        }
        _ = Glibc.close(read)
        return String(decoding: data, as: UTF8.self)
    }
}

@Suite("The query socket of the small fsfind", .blocking, .timeLimit(.minutes(1)))
struct FindSocketServerTests {
    static func request(_ words: [String], cwd: String = "/home/ada") -> FindWire.Request {
        FindWire.Request(arguments: words.map { Array($0.utf8) }, workingDirectory: Array(cwd.utf8),
                         environment: [Array("TZ=UTC".utf8)], groups: [0])
    }

    @Test("a query is answered into the descriptors that came with it, then `exit N`")
    func answered() throws {
        let fx = try Fixture()
        let handler = EchoFindHandler()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), findHandler: handler)
        defer { server.stop() }
        let mode = try #require(fileMode(fx.location.findSocketPath.string))
        #expect(mode & S_IFMT == S_IFSOCK)
        #expect(mode & 0o777 == 0o600)
        let out = Collector(), err = Collector()
        let client = try QueryClient(fx.location)
        defer { client.close() }
        #expect(client.send(Self.request(["budget", "--limit", "3"], cwd: "/srv/x").encoded(), descriptors: [out.write, err.write]))
        #expect(client.lines() == ["serving", "exit 3"])
        #expect(out.text() == "args: budget --limit 3\n")
        #expect(err.text() == "cwd: /srv/x\n")
    }

    @Test("a declined query gets `fallback REASON` and nothing is written")
    func declined() throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), findHandler: EchoFindHandler())
        defer { server.stop() }
        let out = Collector(), err = Collector()
        let client = try QueryClient(fx.location)
        defer { client.close() }
        #expect(client.send(Self.request(["decline"]).encoded(), descriptors: [out.write, err.write]))
        #expect(client.lines() == ["fallback asked to"])
        #expect(out.text().isEmpty)
        #expect(err.text().isEmpty)
    }

    @Test("garbage, a cut frame and a frame without descriptors are declined; the server goes on")
    func malformed() throws {
        let fx = try Fixture()
        let handler = EchoFindHandler()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), findHandler: handler)
        defer { server.stop() }
        let out = Collector(), err = Collector()
        var frame = Self.request(["x"]).encoded()

        let garbage = try QueryClient(fx.location)
        #expect(garbage.send(Array("GET / HTTP/1.0\r\n\r\n".utf8), descriptors: [out.write, err.write]))
        #expect(garbage.lines() == ["fallback not a query of this version"])
        garbage.close()

        let huge = try QueryClient(fx.location)
        #expect(huge.send(FindWire.magic + [0xff, 0xff, 0xff, 0x7f], descriptors: [out.write, err.write]))
        #expect(huge.lines() == ["fallback not a query of this version"])
        huge.close()

        let bare = try QueryClient(fx.location)
        #expect(bare.send(frame, descriptors: []))
        #expect(bare.lines() == ["fallback no descriptors came with the query"])
        bare.close()

        // A payload whose counts do not add up (one byte too many).
        frame.append(0)
        frame[4] &+= 1
        let wrong = try QueryClient(fx.location)
        #expect(wrong.send(frame, descriptors: [out.write, err.write]))
        #expect(wrong.lines() == ["fallback malformed query"])
        wrong.close()

        let good = try QueryClient(fx.location)
        #expect(good.send(Self.request(["after"]).encoded(), descriptors: [out.write, err.write]))
        #expect(good.lines() == ["serving", "exit 3"])
        good.close()
        #expect(handler.answered.load(ordering: .relaxed) == 1)
        #expect(out.text() == "args: after\n")
        _ = err.text()
    }

    @Test("more than four queries at once: the fifth is told to fall back (busy), none waits")
    func busy() throws {
        let fx = try Fixture()
        let handler = EchoFindHandler()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), findHandler: handler)
        defer { server.stop() }
        let sinks = (0..<5).map { _ in (Collector(), Collector()) }
        var clients: [QueryClient] = []
        for (out, err) in sinks.prefix(4) {
            let c = try QueryClient(fx.location)
            #expect(c.send(Self.request(["slow"]).encoded(), descriptors: [out.write, err.write]))
            clients.append(c)
        }
        // The four are inside the handler (sleeping) before the fifth comes.
        #expect(eventually(5) { server.activeQueries.load(ordering: .relaxed) == ControlServer.maximumActiveQueries })
        let fifth = try QueryClient(fx.location)
        // The server may answer and close before the frame is sent (fsfind then reads the index
        // itself too): only the answer counts.
        _ = fifth.send(Self.request(["x"]).encoded(), descriptors: [sinks[4].0.write, sinks[4].1.write])
        #expect(fifth.lines() == ["fallback busy"])
        fifth.close()
        for _ in clients { handler.slowGate.signal() }
        for c in clients {
            #expect(c.lines() == ["serving", "exit 3"])
            c.close()
        }
        for (out, err) in sinks { _ = out.text(); _ = err.text() }
    }

    @Test("a server without a find handler has no query socket; stopping removes it")
    func socketLifetime() throws {
        let fx = try Fixture()
        let plain = try ControlServer(location: fx.location, handler: ScriptedHandler())
        #expect(fileMode(fx.location.findSocketPath.string) == nil)
        plain.stop()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), findHandler: EchoFindHandler())
        #expect(fileMode(fx.location.findSocketPath.string) != nil)
        server.stop()
        #expect(fileMode(fx.location.findSocketPath.string) == nil)
    }
}
