import Foundation
import TestSupport
import Synchronization
import SystemCalls
import Testing

/// fsindex-mcp fed raw lines, as a broken or hostile client sends them (issue 22): what is not
/// a JSON-RPC message is answered with `"id": null`, an overlong line is refused in linear
/// time, and the server keeps answering.
@Suite("fsindex-mcp on raw lines", .blocking)
struct MCPRawLineTests {
    /// The built server on pipes, its replies read a line at a time.
    final class RawServer {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        private var pending: [UInt8] = []

        init(scope: String, env: [String: String]) throws {
            process.executableURL = Binaries.directory.appendingPathComponent("fsindex-mcp")
            process.arguments = ["--scope", scope]
            process.environment = env.merging(["HOME": "/nonexistent", "PATH": "/usr/bin:/bin"]) { a, _ in a }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        deinit {
            try? input.fileHandleForWriting.close()
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        /// Writes `bytes` from a thread of its own (a long line fills the pipe long before the
        /// server has read it, and the replies must be read meanwhile).
        func send(_ bytes: [UInt8]) -> PipeWriter {
            PipeWriter(fd: input.fileHandleForWriting.fileDescriptor, bytes: bytes)
        }

        /// Sends a short line and waits until it is written, so that the next send cannot
        /// interleave with it (two writers to one pipe mix their pieces).
        func send(_ line: String) {
            let writer = send(Array((line + "\n").utf8))
            _ = eventually(300, every: .microseconds(200)) { writer.isFinished }
        }

        /// The next reply, or nil after `timeout` seconds.
        func reply(timeout: TimeInterval) -> [String: Any]? {
            let fd = output.fileHandleForReading.fileDescriptor
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if let nl = pending.firstIndex(of: 0x0A) {
                    let line = Array(pending[..<nl])
                    pending.removeSubrange(...nl)
                    return (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? ["unparsed": String(decoding: line, as: UTF8.self)]
                }
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else { return nil }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, Int32(left * 1000)) > 0 else { return nil }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { return nil }
                pending += chunk[..<n]
            }
        }

        /// `count` replies (the SDK answers requests concurrently, so in any order).
        func replies(_ count: Int, timeout: TimeInterval) -> [[String: Any]] {
            let deadline = Date().addingTimeInterval(timeout)
            var all: [[String: Any]] = []
            while all.count < count, let r = reply(timeout: max(0, deadline.timeIntervalSinceNow)) { all.append(r) }
            return all
        }

        func initialize() throws {
            send(#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#)
            let r = reply(timeout: 60)
            guard (r?["result"] as? [String: Any])?["serverInfo"] != nil else { throw Failed(description: "no answer to initialize: \(String(describing: r))") }
            send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        }
    }

    struct Failed: Error, CustomStringConvertible { var description: String }

    static func fixture() throws -> CLIFixture {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha budget\n")
        #expect(try f.fsindex("index", f.root).status == 0)
        return f
    }

    static func errorCode(_ r: [String: Any]) -> Int? { (r["error"] as? [String: Any])?["code"] as? Int }
    static func isNullID(_ r: [String: Any]) -> Bool { r.keys.contains("id") && r["id"] is NSNull }

    @Test("issue 22 F18: a line that is not a JSON-RPC message is answered with id null (not a random id), and the server goes on")
    func parseErrors() throws {
        let f = try Self.fixture()
        let server = try RawServer(scope: f.root, env: ["FSINDEX_INDEX_DIR": f.index])
        try server.initialize()
        for line in ["{not json", "[]", "42", #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, #"{"jsonrpc":"2.0","id":"x","methd":"ping"}"#] {
            server.send(line)
        }
        server.send(#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
        let replies = server.replies(6, timeout: 30)
        #expect(replies.count == 6, "\(replies)")
        let parse = replies.filter { Self.errorCode($0) == -32700 }
        #expect(parse.count == 1 && parse.allSatisfy(Self.isNullID), "\(replies)")
        let invalid = replies.filter { Self.errorCode($0) == -32600 }
        #expect(invalid.count == 4, "\(replies)")
        #expect(invalid.filter(Self.isNullID).count == 3, "\(invalid)")
        // Where the id can be told, it is the request's own.
        #expect(invalid.contains { $0["id"] as? String == "x" }, "\(invalid)")
        #expect(replies.contains { $0["id"] as? Int == 9 && $0["result"] != nil }, "\(replies)")
        // No reply carries an id the client never sent.
        for r in replies {
            let id = r["id"]
            #expect(id is NSNull || id as? Int == 9 || id as? String == "x", "\(r)")
        }
    }

    @Test("issue 22 F8: a 10 MB line is refused at once (it took 11.8 s), a 3 MB one is answered, and the next request is served")
    func longLines() throws {
        let f = try Self.fixture()
        let server = try RawServer(scope: f.root, env: ["FSINDEX_INDEX_DIR": f.index])
        try server.initialize()

        // 3 MB: under the 4 MiB limit, answered.
        let mid = Array(#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":""#.utf8) + [UInt8](repeating: 0x61, count: 3_000_000) + Array("\"}}\n".utf8)
        var start = Date()
        _ = server.send(mid)
        let midReply = server.reply(timeout: 30)
        let midSeconds = Date().timeIntervalSince(start)
        #expect(midReply?["id"] as? Int == 3 && midReply?["result"] != nil, "\(String(describing: midReply))")

        // 10 MB (a well-formed request, padded): over the limit, refused with id null.
        let long = Array(#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":""#.utf8) + [UInt8](repeating: 0x61, count: 10_000_000) + Array("\"}}\n".utf8)
        start = Date()
        let writer = server.send(long)
        // The next line after the whole long one (two writers would interleave).
        _ = eventually(300, every: .milliseconds(1)) { writer.isFinished }
        server.send(#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#)
        let replies = server.replies(2, timeout: 60)
        let seconds = Date().timeIntervalSince(start)
        let refusal = replies.first { Self.errorCode($0) == -32600 }
        #expect(refusal.map(Self.isNullID) == true, "\(replies)")
        #expect(((refusal?["error"] as? [String: Any])?["message"] as? String ?? "").contains("limit of 4194304 bytes"), "\(replies)")
        #expect(replies.contains { $0["id"] as? Int == 6 && $0["result"] != nil }, "\(replies)")
        #expect(!replies.contains { $0["id"] as? Int == 5 }, "\(replies)")
        // Linear: well under a second on an idle machine; the bound leaves room for a loaded one.
        #expect(seconds < 5, "the 10 MB line took \(seconds) s")
        #expect(midSeconds < 5, "the 3 MB line took \(midSeconds) s")
        #expect(server.process.isRunning)
    }
}

/// Bytes written to a pipe from a thread of its own, and whether that is done.
final class PipeWriter: Sendable {
    private let done = Atomic<Bool>(false)
    var isFinished: Bool { done.load(ordering: .acquiring) }

    init(fd: Int32, bytes: [UInt8]) {
        let started = SystemCall.startThread(detached: true) { [self] in
            var offset = 0
            while offset < bytes.count {
                guard case .success(let n) = bytes[offset...].withUnsafeBytes({ SystemCall.write(fd, $0) }) else { break }
                offset += n
            }
            done.store(true, ordering: .releasing)
        }
        if case .failure = started { done.store(true, ordering: .releasing) }
    }
}
