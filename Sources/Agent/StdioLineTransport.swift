import Foundation
import Logging
import MCP
import SystemCalls
import Synchronization
import SystemPackage
import Glibc

/// MCP over stdin/stdout, one JSON message per line, with a blocking read on a thread of its
/// own. The SDK's `StdioTransport` makes stdin non-blocking and sleeps 10 ms whenever nothing is
/// there: an idle server woke 100 times a second, and every request waited up to 10 ms before
/// it was read (search medians came in steps of 10 ms). Here an idle server sleeps in `read(2)`
/// and a request is read the moment it arrives.
///
/// A key design decision: the reader thread answers, itself, every line that is not a JSON-RPC
/// message (not JSON, not a request, a notification or a response, or longer than
/// ``maximumMessage``), with the error JSON-RPC 2.0 names and `"id": null`, and keeps serving.
/// The SDK would answer those with a random UUID as the id, which no client can match.
package actor StdioLineTransport: Transport {
    package nonisolated let logger: Logger
    private let input: Int32
    private let writer: LineWriter
    private let stream: AsyncThrowingStream<Data, any Swift.Error>
    private let continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation
    private var connected = false

    /// The longest message accepted, 4 MiB: the largest request a tool takes (a 128 KiB query,
    /// 64 scopes of 4 KiB, escaped) is well under 1 MiB. A longer line is dropped as it arrives
    /// (never held in memory) and answered with an Invalid Request error; the next line is
    /// served as usual.
    package static let maximumMessage = 4 << 20

    package init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, logger: Logger) {
        self.input = input
        self.writer = LineWriter(fd: output)
        self.logger = logger
        (stream, continuation) = AsyncThrowingStream.makeStream()
    }

    package func connect() async throws {
        guard !connected else { return }
        connected = true
        let fd = input, continuation = self.continuation, logger = self.logger, writer = self.writer
        let started = SystemCall.startThread(detached: true) {
            var lines = LineSplitter(limit: Self.maximumMessage)
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            reading: while true {
                let n: Int
                switch buffer.withUnsafeMutableBytes({ SystemCall.read(fd, into: $0) }) {
                case .success(0): break reading
                case .success(let count): n = count
                case .failure(let e):
                    logger.error("reading stdin failed: \(String(cString: strerror(e.rawValue)))")
                    break reading
                }
                for event in lines.feed(buffer[0..<n]) {
                    let refusal: MessageCheck.Refusal?
                    switch event {
                    case .line(let line):
                        refusal = MessageCheck.refusal(of: line)
                        if refusal == nil { continuation.yield(line) }
                    case .tooLong(let length):
                        logger.error("a message of \(length) bytes arrived, longer than the limit of \(Self.maximumMessage); it was dropped")
                        refusal = .tooLong(length: length, limit: Self.maximumMessage)
                    }
                    guard let refusal else { continue }
                    do { try writer.write(refusal.response) } catch {
                        logger.error("writing to stdout failed: \(error)")
                        break reading
                    }
                }
            }
            continuation.finish()
        }
        if case .failure(let e) = started {
            logger.error("cannot start the thread that reads stdin: \(String(cString: strerror(e.rawValue)))")
            continuation.finish(throwing: MCPError.transportError(e))
        }
    }

    package func disconnect() async {
        connected = false
        continuation.finish()
    }

    package func send(_ data: Data) async throws {
        do { try writer.write(data) } catch { throw MCPError.transportError(error) }
    }

    package func receive() -> AsyncThrowingStream<Data, any Swift.Error> { stream }
}

/// Cuts bytes into lines in time linear in their length: each byte is looked at once, and a
/// line longer than `limit` is counted, not kept. (The reader before searched the whole
/// pending buffer again after every 64 KiB read: a 10 MB line took 11.8 s, 40 MB 155 s.)
struct LineSplitter {
    enum Event: Equatable {
        /// A whole line, without its newline; empty lines are skipped.
        case line(Data)
        /// A line of this many bytes (newline excluded), over the limit and dropped.
        case tooLong(Int)
    }

    let limit: Int
    private var pending = Data()
    /// The length of the line being dropped, when it went over the limit.
    private var dropping: Int?

    init(limit: Int) { self.limit = limit }

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].withUnsafeBytes { raw -> Int? in
                guard let base = raw.baseAddress, let hit = memchr(base, 0x0A, raw.count) else { return nil }
                return start + (UnsafeRawPointer(hit) - base)
            }
            let end = newline ?? bytes.endIndex
            take(bytes[start..<end])
            guard let newline else { break }
            if let length = dropping {
                events.append(.tooLong(length))
            } else if !pending.isEmpty {
                events.append(.line(pending))
            }
            pending = Data()
            dropping = nil
            start = newline + 1
        }
        return events
    }

    private mutating func take(_ part: ArraySlice<UInt8>) {
        if let length = dropping {
            dropping = length + part.count
        } else if pending.count + part.count > limit {
            dropping = pending.count + part.count
            pending = Data()
        } else {
            pending.append(contentsOf: part)
        }
    }
}

/// Whether a line is a JSON-RPC 2.0 message the SDK can take, and if not, the error it gets
/// (JSON-RPC 2.0 §5: `"id": null` when the id cannot be told).
enum MessageCheck {
    enum Refusal: Equatable {
        case parseError
        case invalidRequest(id: Value, reason: String)
        case tooLong(length: Int, limit: Int)

        var code: Int {
            switch self {
            case .parseError: -32700
            case .invalidRequest, .tooLong: -32600
            }
        }

        var message: String {
            switch self {
            case .parseError: "Parse error: the line is not JSON"
            case .invalidRequest(_, let reason): "Invalid Request: \(reason)"
            case .tooLong(let length, let limit):
                "Invalid Request: a message of \(length) bytes is longer than this server's limit of \(limit) bytes; it was dropped"
            }
        }

        var id: Value {
            if case .invalidRequest(let id, _) = self { return id }
            return .null
        }

        /// The error response, as one JSON object.
        var response: Data {
            let body: Value = .object(["jsonrpc": "2.0", "id": id, "error": .object(["code": .int(code), "message": .string(message)])])
            return (try? JSONEncoder().encode(body)) ?? Data(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#.utf8)
        }
    }

    static func refusal(of line: Data) -> Refusal? {
        let value: Value
        do { value = try JSONDecoder().decode(Value.self, from: line) } catch { return .parseError }
        switch value {
        case .object(let o):
            return envelopeProblem(o).map { .invalidRequest(id: usableID(o["id"]) ?? .null, reason: $0) }
        case .array(let items):
            guard !items.isEmpty else { return .invalidRequest(id: .null, reason: "an empty batch") }
            for item in items {
                guard case .object(let o) = item else { return .invalidRequest(id: .null, reason: "a batch holds an element that is not an object") }
                if let problem = envelopeProblem(o) { return .invalidRequest(id: .null, reason: "a batch element: " + problem) }
            }
            return nil
        default:
            return .invalidRequest(id: .null, reason: "a message must be a JSON object")
        }
    }

    /// What makes `o` no request, notification or response; nil when it is one.
    static func envelopeProblem(_ o: [String: Value]) -> String? {
        guard o["jsonrpc"] == .string("2.0") else { return "\"jsonrpc\" must be \"2.0\"" }
        if let id = o["id"], usableID(id) == nil { return "\"id\" must be a string or an integer" }
        if let method = o["method"] {
            return method.stringValue == nil ? "\"method\" must be a string" : nil
        }
        guard o["id"] != nil, o["result"] != nil || o["error"] != nil else {
            return "a message needs \"method\" (a request or notification), or \"id\" with \"result\" or \"error\" (a response)"
        }
        return nil
    }

    static func usableID(_ id: Value?) -> Value? {
        switch id {
        // (A string that reads as a data URL decodes as `.data`; it is still a string id.)
        case .string?, .int?, .data?: id
        default: nil
        }
    }
}

/// Whole lines to a descriptor, one writer at a time (the SDK's replies and the reader
/// thread's refusals): EINTR is retried, EAGAIN waits for room (`poll`), anything else throws.
final class LineWriter: Sendable {
    private let fd: Int32
    /// Held while one line is written, so that lines never interleave.
    private let lock = Mutex<Void>(())

    init(fd: Int32) { self.fd = fd }

    func write(_ data: Data) throws(Errno) {
        var bytes = Array(data)
        bytes.append(0x0A)
        try lock.withLock { _ throws(Errno) in
            var offset = 0
            while offset < bytes.count {
                switch bytes[offset...].withUnsafeBytes({ SystemCall.write(fd, $0) }) {
                case .success(let n): offset += n
                case .failure(.resourceTemporarilyUnavailable): _ = SystemCall.poll(fd, events: Int16(POLLOUT), timeout: -1)
                case .failure(let e): throw e
                }
            }
        }
    }
}
