import Foundation
import Synchronization
import SystemCalls
import SystemPackage
import TestSupport
@testable import Controlling

/// A handler that answers each kind of request with scripted responses (some of them later, from
/// another thread) and records what it was asked.
final class ScriptedHandler: ControlHandler {
    struct Script: Sendable {
        var now: [ControlResponse]
        var later: [ControlResponse] = []
        var delay: Double = 0
    }

    private let scripts: [String: Script]
    private let received = Mutex<[ControlRequest]>([])
    /// Called for `.shutdown` (after the scripted replies), to let a test stop the server from inside.
    let onShutdown = Mutex<(@Sendable () -> Void)?>(nil)

    init(_ scripts: [String: Script] = ScriptedHandler.defaultScripts) { self.scripts = scripts }

    static let sampleStatus = DaemonStatus(
        state: .watching, queueLength: 3, lastError: "could not watch /mnt/usb: ENOSPC",
        roots: [Array("/home/ada".utf8), [0x2F, 0x64, 0xFF, 0xFE]], watched: 1200, polled: 4, unreachable: 1,
        pid: 4242, uptimeSeconds: 12.5, itemsIndexedSinceStart: 98765)

    static let sampleSummary = ReindexSummary(indexed: 10, removed: 2, unchanged: 300, seconds: 0.75, problems: 1,
                                              problemMessages: ["/home/ada/x.pdf: permission denied"])

    static let defaultScripts: [String: Script] = [
        "status": Script(now: [.status(sampleStatus)]),
        "pause": Script(now: [.ok(message: "paused")]),
        "resume": Script(now: [.error("not paused")]),
        "reindex": Script(now: [.ok(message: "reindex queued")], later: [.reindexDone(sampleSummary)], delay: 0.3),
        "shutdown": Script(now: [.ok(message: "stopping")]),
    ]

    var requests: [ControlRequest] { received.withLock { $0 } }

    func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
        received.withLock { $0.append(request) }
        guard let script = scripts[request.kind] else {
            reply(.error("unscripted request \(request.kind)"))
            return
        }
        script.now.forEach(reply)
        if !script.later.isEmpty {
            let later = script.later
            DispatchQueue.global().asyncAfter(deadline: .now() + script.delay) { later.forEach(reply) }
        }
        if request == .shutdown, let stop = onShutdown.withLock({ $0 }) { stop() }
    }
}

/// A fresh private folder and location per test.
struct Fixture {
    let tree: TemporaryTree
    let location: ControlLocation

    init() throws {
        tree = try TemporaryTree(prefix: "fsctl")
        location = ControlLocation(directory: tree.path("run"), name: "test")
    }

    var socketPath: String { location.socketPath.string }
}

extension ControlClient {
    /// The next response, failing the test (by throwing) if none comes within 5 s.
    func expectNext(_ seconds: Double = 5) throws -> ControlResponse {
        guard let response = try next(timeout: .milliseconds(Int(seconds * 1000))) else {
            throw ControlError.timedOut(seconds: seconds)
        }
        return response
    }
}


func fileMode(_ path: String) -> mode_t? {
    var st = stat()
    return lstat(path, &st) == 0 ? st.st_mode : nil
}

/// Leaves a socket file that nobody listens on, as a crashed daemon does.
func makeStaleSocket(at location: ControlLocation) throws {
    try location.prepareDirectory()
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Errno(rawValue: errno) }
    defer { close(fd) }
    guard let address = SystemCall.unixAddress(location.socketPath.bytes) else { throw Errno.fileNameTooLong }
    if case let .failure(error) = SystemCall.bind(fd, address) { throw error }
}
