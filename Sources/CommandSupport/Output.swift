import Attributes
import Crawling
import FoundationEssentials
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Buffered writes to stdout and stderr that keep file names as bytes.
///
/// Control characters and invalid UTF-8 in names are escaped only when the stream is a terminal
/// (so a name cannot rewrite the screen); in a pipe the bytes go out unchanged, as `find` and
/// plocate do. A closed pipe (`fsfind x | head -1`) ends the program quietly with status 0.
public final class Output: Sendable {
    public static let standardOutput = Output(fd: 1)
    public static let standardError = Output(fd: 2)

    public let fd: Int32
    public let isTerminal: Bool
    private let buffer = Mutex<[UInt8]>([])
    /// `NO_COLOR` as the program's user set it: nil reads this process's environment.
    private let noColor: Bool?
    /// Whether a closed pipe ends the process (a command) or only this output (a query that
    /// fsindexd answers into a client's descriptor: the daemon goes on).
    private let exitsOnClosedPipe: Bool
    /// Asked before each write: true when whoever reads has gone (fsfind was interrupted).
    private let abandoned: (@Sendable () -> Bool)?
    private let closed = Mutex(false)

    init(fd: Int32) {
        self.fd = fd
        self.isTerminal = isatty(fd) == 1
        self.noColor = nil
        self.exitsOnClosedPipe = true
        self.abandoned = nil
        signal(SIGPIPE, SIG_IGN)
    }

    /// An output into a descriptor a client handed over (fsfind's stdout or stderr, written by
    /// fsindexd): a closed pipe or an `abandoned` client stops the writing, never the process.
    /// The descriptor stays the caller's to close.
    public init(clientDescriptor fd: Int32, noColor: Bool, abandoned: @escaping @Sendable () -> Bool) {
        self.fd = fd
        self.isTerminal = isatty(fd) == 1
        self.noColor = noColor
        self.exitsOnClosedPipe = false
        self.abandoned = abandoned
        signal(SIGPIPE, SIG_IGN)
    }

    /// Whether writing stopped because the reader went away (a client's output only).
    public var isClosed: Bool { closed.withLock { $0 } }

    /// Whether colour may be used: a terminal, and `NO_COLOR` unset or empty.
    public var useColor: Bool {
        guard isTerminal else { return false }
        if let noColor { return !noColor }
        if let v = getenv("NO_COLOR"), v.pointee != 0 { return false }
        return true
    }

    public func write(_ text: String) { writeBytes(Array(text.utf8)) }

    /// Writes a file name or path: raw in a pipe, escaped on a terminal.
    public func writePath(_ bytes: [UInt8]) {
        if isTerminal {
            write(ByteString.escaped(bytes, escapeControls: true))
        } else {
            writeBytes(bytes)
        }
    }

    public func writeBytes(_ bytes: [UInt8]) {
        let full = buffer.withLock { b in
            b.append(contentsOf: bytes)
            return b.count > 1 << 16
        }
        if full { flush() }
    }

    public func flush() {
        buffer.withLock { buffer in
            if closed.withLock({ $0 }) || abandoned?() == true {
                closed.withLock { $0 = true }
                buffer.removeAll()
                return
            }
            if !Self.drain(fd, &buffer) {
                if exitsOnClosedPipe { exit(0) }
                closed.withLock { $0 = true }
            }
        }
    }

    /// Writes the buffer out; false when the reader has gone (EPIPE).
    private static func drain(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var offset = 0
        defer { buffer.removeAll(keepingCapacity: true) }
        while offset < buffer.count {
            let n = buffer[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { return false }
                break
            }
            offset += n
        }
        return true
    }

    /// Prints `program: message` on stderr.
    public static func error(_ program: String, _ message: String) {
        standardError.report(program, message)
    }

    /// Prints `program: message` on this output (an error stream).
    public func report(_ program: String, _ message: String) {
        write("\(program): \(message)\n")
        flush()
    }
}

/// Turns a command-line path into absolute path bytes without following a final symlink (a link
/// is an item of its own), resolving `.`/`..` and symlinks in the folders above it.
///
/// Arguments arrive encoded by `ArgumentBytes`, so a name that is not UTF-8 keeps its bytes.
public enum PathArgument {
    /// An item named on the command line: an app's item as `DOMAIN:ID` (`notes:n-42`) when the
    /// text has a colon before any slash and no such file exists here, else a file's absolute path.
    public static func item(_ argument: String) -> [UInt8] {
        let bytes = ArgumentBytes.bytes(of: argument)
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, !bytes[..<colon].contains(UInt8(ascii: "/")) {
            var st = stat()
            if lstat(bytes.map { CChar(bitPattern: $0) } + [0], &st) != 0 { return bytes }
        }
        return absolute(argument)
    }

    public static func absolute(_ argument: String) -> [UInt8] {
        absolute(ArgumentBytes.path(argument))
    }

    public static func absolute(_ path: FilePath) -> [UInt8] {
        var p = path
        if !p.isAbsolute {
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buf, buf.count) != nil { p = FilePath(platformString: buf).pushing(p) }
        }
        p = p.lexicallyNormalized()
        guard let last = p.lastComponent, p.components.count > 0 else { return p.bytes }
        let parent = p.removingLastComponent()
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let resolved = parent.withPlatformString { realpath($0, &buf) }
        if resolved != nil {
            return FilePath(platformString: buf).appending(last).bytes
        }
        return p.bytes
    }

    /// Resolves a folder argument fully (for `--onlyin`); a relative one against
    /// `workingDirectory` when given (a client's, when fsindexd answers for fsfind), else
    /// against this process's.
    public static func folder(_ argument: String, workingDirectory: [UInt8]? = nil) -> [UInt8]? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        var path = ArgumentBytes.path(argument)
        if let workingDirectory, !path.isAbsolute { path = FilePath(bytes: workingDirectory).pushing(path) }
        guard path.withPlatformString({ realpath($0, &buf) }) != nil else { return nil }
        return FilePath(platformString: buf).bytes
    }
}

/// JSON for one line of `--json` output: `path` (printable), `pathBase64` when the path is not
/// valid UTF-8 (the exact bytes), then the attributes and any `extra` string fields, keys sorted.
public enum JSONLine {
    public static func render(path: [UInt8], attributes: AttributeSet, extra: [String: String] = [:]) -> String {
        var set = attributes
        if let (domain, id) = ItemIdentifier(bytes: path).donatedParts {
            // An app's item is no file: its domain and identifier, never a `path`.
            set[.domainIdentifier] = .string(domain)
            set[AttributeKey("uniqueIdentifier")] = .string(id)
        } else {
            set[.path] = .string(ByteString.escaped(path))
        }
        if path.first == UInt8(ascii: "/"), !ByteString.isValidUTF8(path) {
            set[AttributeKey("pathBase64")] = .string(Data(path).base64EncodedString())
        }
        for (k, v) in extra { set[AttributeKey(k)] = .string(v) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(set)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
