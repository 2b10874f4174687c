import Foundation
import Logging
import MCP
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// MCP over stdin/stdout, one JSON message per line, with a blocking read on a thread of its
/// own. The SDK's `StdioTransport` makes stdin non-blocking and sleeps 10 ms whenever nothing is
/// there: an idle server woke 100 times a second, and every request waited up to 10 ms before
/// it was read (search medians came in steps of 10 ms). Here an idle server sleeps in `read(2)`
/// and a request is read the moment it arrives.
public actor StdioLineTransport: Transport {
    public nonisolated let logger: Logger
    private let input: Int32
    private let output: Int32
    private let stream: AsyncThrowingStream<Data, any Swift.Error>
    private let continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation
    private var connected = false

    /// The longest message accepted; a longer line ends the connection (with a log line) rather
    /// than the server's memory.
    public static let maximumMessage = 64 << 20

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, logger: Logger) {
        self.input = input
        self.output = output
        self.logger = logger
        (stream, continuation) = AsyncThrowingStream.makeStream()
    }

    public func connect() async throws {
        guard !connected else { return }
        connected = true
        let fd = input, continuation = self.continuation, logger = self.logger
        let thread = Thread {
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    if n < 0 { logger.error("reading stdin failed: \(String(cString: strerror(errno)))") }
                    break
                }
                pending.append(contentsOf: buffer[0..<n])
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[(newline + 1)...])
                    if !line.isEmpty { continuation.yield(Data(line)) }
                }
                if pending.count > Self.maximumMessage {
                    logger.error("a message longer than \(Self.maximumMessage) bytes arrived; closing")
                    break
                }
            }
            continuation.finish()
        }
        thread.name = "fsindex-mcp stdin"
        thread.start()
    }

    public func disconnect() async {
        connected = false
        continuation.finish()
    }

    public func send(_ data: Data) async throws {
        var bytes = Array(data)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw MCPError.transportError(Errno(rawValue: errno))
            }
            offset += n
        }
    }

    public func receive() -> AsyncThrowingStream<Data, any Swift.Error> { stream }
}
