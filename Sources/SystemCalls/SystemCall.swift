import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The one system-call layer every module uses, with one convention: a wrapper returns
/// `Result<_, Errno>`, retries `EINTR`, and never hides an error. Module-specific wrappers
/// (statx in `Crawling`, sockets in `Controlling`) are written with `retrying`.
public enum SystemCall {
    /// Runs `body` until it does not fail with EINTR; `-1` becomes the current `errno`.
    @inline(__always)
    public static func retrying<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let rc = body()
            if rc != -1 { return .success(rc) }
            if errno == EINTR { continue }
            return .failure(Errno(rawValue: errno))
        }
    }

    /// Starts a POSIX thread running `body` (no Foundation `Thread`, which FoundationEssentials
    /// lacks, and no detached Task, which would borrow a cooperative thread to block). A joinable
    /// thread is returned for its owner to join; a detached one ends on its own.
    @discardableResult
    public static func startThread(detached: Bool = false, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Errno> {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return .failure(Errno(rawValue: rc))
        }
        if detached { pthread_detach(thread) }
        return .success(thread)
    }

    /// Calls `body` with `bytes` as a NUL-terminated C string.
    public static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

// The one conversion between `FilePath` and bytes: paths are bytes from end to end, and `.string`
// (lossy for names that are not UTF-8) is for display only.

extension FilePath {
    /// The raw bytes of this path, without the trailing NUL. Lossless, unlike `.string`.
    public var bytes: [UInt8] {
        withPlatformString { SystemCall.bytes(of: $0) }
    }

    /// A path from raw bytes, losslessly.
    public init(bytes: [UInt8]) {
        self = SystemCall.withCString(bytes) { FilePath(platformString: $0) }
    }
}

extension FilePath.Component {
    /// The raw bytes of this name, losslessly.
    public var bytes: [UInt8] {
        withPlatformString { SystemCall.bytes(of: $0) }
    }
}

extension SystemCall {
    /// The bytes of a NUL-terminated C string.
    public static func bytes(of p: UnsafePointer<CChar>) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while p[i] != 0 { out.append(UInt8(bitPattern: p[i])); i += 1 }
        return out
    }
}

extension SystemCall {
    /// A small file read whole: its bytes, or why not. A file of more than `limit` bytes is
    /// `.fileTooLarge` rather than read into memory.
    public static func readFile(_ path: String, limit: Int) -> Result<[UInt8], Errno> {
        readFile(FilePath(path), limit: limit)
    }

    /// `readFile(_:limit:)` for a path of any bytes.
    public static func readFile(_ path: FilePath, limit: Int) -> Result<[UInt8], Errno> {
        let opened = retrying { path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) } }
        guard case .success(let fd) = opened else { return opened.map { _ in [] } }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let read = retrying { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            switch read {
            case .failure(let e): return .failure(e)
            case .success(0): return .success(out)
            case .success(let n):
                guard out.count + n <= limit else { return .failure(.fileTooLarge) }
                out += chunk[0..<n]
            }
        }
    }
}
