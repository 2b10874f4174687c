import Foundation
import Indexing
import Synchronization
import SystemCalls
import SystemPackage
import TestSupport
import Testing
@testable import Controlling

@Suite("Control server", .timeLimit(.minutes(1)))
struct ControlServerTests {
    @Test("every request and response makes the round trip through a real socket")
    func roundTrip() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        #expect(client.daemon.pid == getpid())

        let expected: [(ControlRequest, [ControlResponse])] = [
            (.status, [.status(ScriptedHandler.sampleStatus)]),
            (.pause, [.ok(message: "paused")]),
            (.resume, [.error("not paused")]),
            (.reindex(paths: [Array("/home/ada/Documents".utf8)]),
             [.ok(message: "reindex queued"), .reindexDone(ScriptedHandler.sampleSummary)]),
            (.reindex(paths: []), [.ok(message: "reindex queued"), .reindexDone(ScriptedHandler.sampleSummary)]),
            (.subscribe, [.ok(message: "subscribed")]),
            (.shutdown, [.ok(message: "stopping")]),
        ]
        for (request, responses) in expected {
            try client.send(request)
            for response in responses {
                #expect(try client.expectNext() == response, "answer to \(request.kind)")
            }
        }
        // The last response type, streamed to the now-subscribed connection.
        let changes = ItemChanges(updated: [Array("/a".utf8)], removed: [Array("/b".utf8)])
        server.publish(changes)
        #expect(try client.expectNext() == .itemsChanged(changes))
        // The handler saw exactly what was sent, except `.subscribe`, which the server keeps.
        #expect(handler.requests == expected.map(\.0).filter { $0 != .subscribe })
    }

    @Test("a reindex is acknowledged when it has finished, not before")
    func reindexAcknowledgedLater() throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        let start = Date()
        #expect(try client.request(.reindex(paths: []), timeout: .seconds(5)) == .ok(message: "reindex queued"))
        #expect(try client.next(timeout: .milliseconds(100)) == nil, "the summary came before the work was done")
        #expect(try client.expectNext() == .reindexDone(ScriptedHandler.sampleSummary))
        #expect(Date().timeIntervalSince(start) >= 0.25)
        // The connection still serves requests afterwards.
        #expect(try client.request(.pause, timeout: .seconds(5)) == .ok(message: "paused"))
    }

    @Test("two subscribers both receive published changes; one that disconnects is dropped")
    func subscribers() async throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        defer { server.stop() }

        let streaming = try ControlClient.connect(fx.location)
        let stream = try streaming.subscribe()
        let polling = try ControlClient.connect(fx.location)
        #expect(try polling.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))
        let leaving = try ControlClient.connect(fx.location)
        #expect(try leaving.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))
        let bystander = try ControlClient.connect(fx.location)   // not subscribed: gets nothing
        #expect(await eventually { server.subscriberCount == 3 })

        let first = ItemChanges(updated: [Array("/home/ada/new.txt".utf8)], removed: [])
        server.publish(first)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == first)
        #expect(try polling.expectNext() == .itemsChanged(first))
        #expect(try leaving.expectNext() == .itemsChanged(first))

        leaving.close()
        #expect(await eventually { server.subscriberCount == 2 }, "the closed subscriber was not dropped")
        let second = ItemChanges(updated: [], removed: [Array("/home/ada/old.txt".utf8)])
        server.publish(second)
        #expect(await iterator.next() == second)
        #expect(try polling.expectNext() == .itemsChanged(second))
        #expect(try bystander.next(timeout: .milliseconds(100)) == nil)
        #expect(try bystander.request(.status, timeout: .seconds(5)) == .status(ScriptedHandler.sampleStatus))
        #expect(server.connectionCount == 3)
    }

    @Test("a subscriber that stops reading is dropped; the others and the server carry on")
    func stuckSubscriberDropped() throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), maxPendingBytes: 64 << 10)
        defer { server.stop() }
        let stuck = try ControlClient.connect(fx.location)
        #expect(try stuck.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))
        let reader = try ControlClient.connect(fx.location)
        #expect(try reader.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))

        let path = [UInt8](repeating: UInt8(ascii: "x"), count: 1000)
        let batch = ItemChanges(updated: Array(repeating: path, count: 100))   // about 240 KB a line
        var published = 0
        while server.subscriberCount == 2 && published < 200 {
            let start = Date()
            server.publish(batch)                              // must not block on the stuck one
            #expect(Date().timeIntervalSince(start) < 1)
            published += 1
            #expect(try reader.expectNext() == .itemsChanged(batch))
        }
        #expect(server.subscriberCount == 1, "published \(published) batches and the stuck subscriber is still there")
        #expect(try reader.request(.status, timeout: .seconds(5)) == .status(ScriptedHandler.sampleStatus))
    }

    @Test("one big change (a folder of thousands moved) reaches a reading subscriber whole, past maxPendingBytes")
    func bigChangeNotDropped() throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler(), maxPendingBytes: 64 << 10)
        defer { server.stop() }
        let reader = try ControlClient.connect(fx.location)
        #expect(try reader.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))
        let paths = (0..<3000).map { Array("/root/a folder of many files/file number \($0).txt".utf8) }
        let change = ItemChanges(updated: paths.map { $0 + Array("-new".utf8) }, removed: paths)
        server.publish(change)
        var got = ItemChanges()
        while got.count < change.count {
            guard case .itemsChanged(let piece) = try reader.expectNext() else { Issue.record("not a change"); return }
            got.updated += piece.updated
            got.removed += piece.removed
        }
        #expect(got == change)
        #expect(server.subscriberCount == 1)
    }

    @Test("a second server for the same index fails with 'already running'; after stop it starts again")
    func secondServerRefused() throws {
        let fx = try Fixture()
        let first = try ControlServer(location: fx.location, handler: ScriptedHandler())
        #expect {
            _ = try ControlServer(location: fx.location, handler: ScriptedHandler())
        } throws: { error in
            guard let error = error as? ControlError, case .alreadyRunning = error else { return false }
            return error.description.contains("already running")
        }
        // The loser did not disturb the winner.
        #expect(try ControlClient.connect(fx.location).request(.pause, timeout: .seconds(5)) == .ok(message: "paused"))
        first.stop()
        #expect(fileMode(fx.socketPath) == nil, "stop() left the socket file")
        let again = try ControlServer(location: fx.location, handler: ScriptedHandler())
        defer { again.stop() }
        #expect(try ControlClient.connect(fx.location).request(.pause, timeout: .seconds(5)) == .ok(message: "paused"))
    }

    @Test("a live socket without the lock (a daemon of another kind) also counts as running")
    func liveSocketWithoutLock() throws {
        let fx = try Fixture()
        try fx.location.prepareDirectory()
        let fd = try #require(try? SystemCall.unixSocket(nonBlocking: false).get())
        defer { close(fd) }
        _ = try SystemCall.bind(fd, #require(SystemCall.unixAddress(fx.location.socketPath.bytes))).get()
        _ = try SystemCall.listen(fd, backlog: 1).get()
        #expect(throws: ControlError.alreadyRunning(socket: fx.socketPath)) {
            _ = try ControlServer(location: fx.location, handler: ScriptedHandler())
        }
    }

    @Test("a stale socket file (nobody listening) is replaced")
    func staleSocketReplaced() throws {
        let fx = try Fixture()
        try makeStaleSocket(at: fx.location)
        #expect(fileMode(fx.socketPath).map { $0 & S_IFMT } == S_IFSOCK)
        #expect(throws: ControlError.noDaemon(socket: fx.socketPath)) { _ = try ControlClient.connect(fx.location) }
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        defer { server.stop() }
        #expect(try ControlClient.connect(fx.location).request(.status, timeout: .seconds(5))
                == .status(ScriptedHandler.sampleStatus))
    }

    @Test("a file that is not a socket in the socket's place is refused, not deleted")
    func notASocketRefused() throws {
        let fx = try Fixture()
        try fx.location.prepareDirectory()
        try fx.tree.create("run/test.sock", contents: "precious")
        #expect(throws: ControlError.notASocket(path: fx.socketPath)) {
            _ = try ControlServer(location: fx.location, handler: ScriptedHandler())
        }
        #expect(try String(contentsOfFile: fx.socketPath, encoding: .utf8) == "precious")
    }

    @Test("the socket file is 0600 and its folder 0700")
    func modes() throws {
        let fx = try Fixture()
        let old = umask(0)   // the widest umask must not widen the socket
        defer { umask(old) }
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        defer { server.stop() }
        let socketMode = try #require(fileMode(fx.socketPath))
        #expect(socketMode & S_IFMT == S_IFSOCK)
        #expect(socketMode & 0o7777 == 0o600)
        let folderMode = try #require(fileMode(fx.location.directory.string))
        #expect(folderMode & S_IFMT == S_IFDIR)
        #expect(folderMode & 0o7777 == 0o700)
    }

    @Test("a peer running as another user is refused with an error line and closed")
    func wrongUIDRefused() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler, allowedUID: geteuid() + 1)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        try? client.send(.status)
        guard case let .error(message) = try client.expectNext() else {
            Issue.record("no refusal")
            return
        }
        #expect(message.hasPrefix("refused: "))
        #expect(message.contains("uid \(geteuid())"))
        #expect(throws: ControlError.disconnected) { _ = try client.next(timeout: .seconds(5)) }
        #expect(handler.requests.isEmpty, "the handler heard a refused peer")
        #expect(server.connectionCount == 0)
    }

    @Test("paths that are not UTF-8 survive the round trip byte for byte")
    func nonUTF8Paths() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let odd: [[UInt8]] = [
            Array(1...255),                                        // every byte but NUL, newline included
            [0x2F, 0x74, 0x6D, 0x70, 0x2F, 0xFF, 0xFE, 0x0A, 0x22, 0x5C],   // "/tmp/" \xFF \xFE \n " \
            [0x2F, 0xC3, 0x28],                                    // a broken two-byte sequence
            Array("/caf\u{E9}".utf8), Array("/cafe\u{301}".utf8),  // NFC and NFD stay two paths
        ]
        let client = try ControlClient.connect(fx.location)
        #expect(try client.request(.reindex(paths: odd), timeout: .seconds(5)) == .ok(message: "reindex queued"))
        #expect(handler.requests == [.reindex(paths: odd)])
        #expect(try client.request(.subscribe, timeout: .seconds(5)) == .ok(message: "subscribed"))
        server.publish(ItemChanges(updated: odd, removed: odd.reversed()))
        while true {   // skip the reindexDone that arrives meanwhile
            let response = try client.expectNext()
            if case let .itemsChanged(changes) = response {
                #expect(changes.updated == odd)
                #expect(changes.removed == odd.reversed())
                break
            }
        }
    }

    @Test("garbage on the socket gets an error line and the server keeps serving")
    func garbage() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        let junk: [[UInt8]] = [
            Array("hello\n".utf8),
            Array("{not json\n".utf8),
            Array("{\"request\":\"fly\"}\n".utf8),
            Array("[1,2,3]\n".utf8),
            Array("{\"request\":\"reindex\",\"pathsBase64\":[\"***\"]}\n".utf8),
            [0xFF, 0xFE, 0x00, 0x01, 0x7B, 0x0A],
        ]
        for line in junk {
            try client.sendRaw(line)
            guard case let .error(message) = try client.expectNext() else {
                Issue.record("no error for \(line)")
                continue
            }
            #expect(message.hasPrefix("bad request: "))
        }
        #expect(handler.requests.isEmpty)
        #expect(try client.request(.status, timeout: .seconds(5)) == .status(ScriptedHandler.sampleStatus))

        // A line without end is cut off at 65 MiB (room for an app's batch of donated items) and
        // that connection closed; others are unaffected.
        let flood = try ControlClient.connect(fx.location)
        try flood.sendRaw([UInt8](repeating: UInt8(ascii: "a"), count: WireFormat.maxRequestLine + 70_000))
        guard case let .error(message) = try flood.expectNext() else {
            Issue.record("no error for an endless line")
            return
        }
        #expect(message.contains("longer than"))
        #expect(throws: ControlError.disconnected) { _ = try flood.next(timeout: .seconds(5)) }
        #expect(try ControlClient.connect(fx.location).request(.status, timeout: .seconds(5))
                == .status(ScriptedHandler.sampleStatus))
        // A hand-written request with printable paths only (socat and jq users) is understood.
        try client.sendRaw(Array("{\"request\":\"reindex\",\"paths\":[\"/home/ada\"]}\n".utf8))
        #expect(try client.expectNext() == .ok(message: "reindex queued"))
        #expect(handler.requests.last == .reindex(paths: [Array("/home/ada".utf8)]))
    }

    @Test("without a daemon, connect says .noDaemon so the caller can do the work itself")
    func noDaemon() throws {
        let fx = try Fixture()
        #expect(throws: ControlError.noDaemon(socket: fx.socketPath)) { _ = try ControlClient.connect(fx.location) }
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        let client = try ControlClient.connect(fx.location)
        server.stop()
        #expect(throws: ControlError.disconnected) { _ = try client.next(timeout: .seconds(5)) }
        #expect(throws: ControlError.noDaemon(socket: fx.socketPath)) { _ = try ControlClient.connect(fx.location) }
    }

    @Test("a handler can stop the server from inside handle() without a deadlock")
    func stopFromHandler() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        handler.onShutdown.withLock { $0 = { server.stop() } }
        let client = try ControlClient.connect(fx.location)
        #expect(try client.request(.shutdown, timeout: .seconds(5)) == .ok(message: "stopping"))
        #expect(throws: ControlError.disconnected) { _ = try client.next(timeout: .seconds(5)) }
        #expect(eventually { fileMode(fx.socketPath) == nil })
        server.stop()   // a second stop, from outside, returns at once
        let again = try ControlServer(location: fx.location, handler: ScriptedHandler())
        again.stop()
    }

    @Test("a subscription stream ends when the daemon stops")
    func streamEndsWithDaemon() async throws {
        let fx = try Fixture()
        let server = try ControlServer(location: fx.location, handler: ScriptedHandler())
        let stream = try ControlClient.connect(fx.location).subscribe()
        let changes = ItemChanges(updated: [Array("/x".utf8)])
        server.publish(changes)
        server.stop()
        var received: [ItemChanges] = []
        for await batch in stream { received.append(batch) }
        #expect(received == [changes])
    }
}
