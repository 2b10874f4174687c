import Attributes
import Foundation
import Synchronization
import SystemCalls
import SystemPackage
import TestSupport
import Testing
@testable import Controlling

/// Issue 22 (F7, F9, F18): what a careless or hostile app can send on the control socket.
@Suite("Control requests: shape, size and who waits", .timeLimit(.minutes(2)))
struct ControlRequestShapeTests {
    /// Holds every `pause` until the test opens the gate; answers everything else at once.
    final class GatedHandler: ControlHandler {
        let gate = DispatchSemaphore(value: 0)
        let received = Mutex<[ControlRequest]>([])
        func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
            received.withLock { $0.append(request) }
            switch request {
            case .pause:
                gate.wait()
                reply(.ok(message: "paused"))
            case .status: reply(.status(ScriptedHandler.sampleStatus))
            default: reply(.ok(message: request.kind))
            }
        }
    }

    @Test("a request still being handled holds up neither other clients nor its own later lines' order")
    func slowRequestBlocksNobody() throws {
        let fx = try Fixture()
        let handler = GatedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let slow = try ControlClient.connect(fx.location)
        try slow.send(.pause)
        try slow.send(.resume)   // behind the pause on the same connection
        #expect(eventually { handler.received.withLock { $0.count } == 1 })
        // Before, the poll thread ran the handler itself: this status waited for the gate.
        let other = try ControlClient.connect(fx.location)
        #expect(try other.request(.status, timeout: .seconds(5)) == .status(ScriptedHandler.sampleStatus))
        #expect(handler.received.withLock { $0 } == [.pause, .status])
        handler.gate.signal()
        #expect(try slow.expectNext() == .ok(message: "paused"))
        #expect(try slow.expectNext() == .ok(message: "resume"))
    }

    @Test("deep nesting and a name given twice are refused before the handler sees anything")
    func shapeRefused() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        // 20 items with keywords nested 500 deep: 12 s on the poll thread before.
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let item = #"{"uniqueIdentifier":"n","attributes":{"keywords":"# + deep + "}}"
        let line = #"{"request":"donate","domain":"notes","items":["# + Array(repeating: item, count: 20).joined(separator: ",") + "]}\n"
        let start = Date()
        try client.sendRaw(Array(line.utf8))
        guard case let .error(message) = try client.expectNext() else { Issue.record("no error"); return }
        #expect(message.contains("nested deeper than \(JSONShape.maximumDepth) levels"), "\(message)")
        #expect(Date().timeIntervalSince(start) < 5)
        for twice in [#"{"request":"status","request":"shutdown"}"#, #"{"request":"forget","domain":"a","domain":"b","ids":["x"]}"#] {
            try client.sendRaw(Array((twice + "\n").utf8))
            guard case let .error(message) = try client.expectNext() else { Issue.record("no error for \(twice)"); continue }
            #expect(message.contains("appears twice"), "\(message)")
        }
        #expect(handler.requests.isEmpty)
    }

    @Test("a batch's items reach the handler as the bytes the app wrote")
    func rawItems() throws {
        let fx = try Fixture()
        let handler = GatedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        let items = [#"{"uniqueIdentifier" : "n-1", "attributes": {"useCount": 9007199254740993}}"#,
                     #"{"uniqueIdentifier":"n-2","attributes":{"title":"a \"quoted\" \u00e9 title, with ] and }"}}"#]
            .map { Array($0.utf8) }
        #expect(try client.request(.donate(domain: "notes", clientState: "v\"1", items: items), timeout: .seconds(5)) == .ok(message: "donate"))
        #expect(handler.received.withLock { $0 } == [.donate(domain: "notes", clientState: "v\"1", items: items)])
        // Written by hand (socat, an app of its own): the same.
        let line = #"{"items":[ {"uniqueIdentifier":"x"} ],"domain":"d","request":"donate"}"# + "\n"
        try client.sendRaw(Array(line.utf8))
        #expect(try client.expectNext() == .ok(message: "donate"))
        #expect(handler.received.withLock { $0.last } == .donate(domain: "d", clientState: nil, items: [Array(#"{"uniqueIdentifier":"x"}"#.utf8)]))
        try client.sendRaw(Array(#"{"items":{"a":1},"domain":"d","request":"donate"}"#.utf8) + [0x0A])
        guard case let .error(message) = try client.expectNext() else { Issue.record("no error"); return }
        #expect(message.contains("items must be an array"), "\(message)")
    }

    @Test("a request longer than the daemon takes is refused before a byte is sent, naming the limit")
    func tooLargeRefusedUpFront() throws {
        let fx = try Fixture()
        let handler = ScriptedHandler()
        let server = try ControlServer(location: fx.location, handler: handler)
        defer { server.stop() }
        let client = try ControlClient.connect(fx.location)
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: WireFormat.maxRequestLine)
        let item = Array(#"{"uniqueIdentifier":"n","attributes":{"textContent":""#.utf8) + big + Array(#""}}"#.utf8)
        #expect { try client.send(.donate(domain: "notes", clientState: nil, items: [item])) } throws: { error in
            guard case let .requestTooLarge(size, limit)? = error as? ControlError else { return false }
            return size > limit && limit == WireFormat.maxRequestLine && "\(error)".contains("65 MiB")
        }
        // Nothing was sent: the connection still answers.
        #expect(try client.request(.status, timeout: .seconds(5)) == .status(ScriptedHandler.sampleStatus))
    }
}
