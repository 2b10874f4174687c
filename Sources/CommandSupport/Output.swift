import Attributes
import Crawling
import FoundationEssentials
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// Buffered writes to stdout and stderr that keep file names as bytes.
///
/// Control characters and invalid UTF-8 in names are escaped only when the stream is a terminal
/// (so a name cannot rewrite the screen); in a pipe the bytes go out unchanged, as `find` and
/// plocate do. A closed pipe (`fsfind x | head -1`) ends the program quietly with status 0.
///
/// Any other write error is an error: the program's own standard output prints
/// `program: cannot write to standard output: REASON` on stderr and exits 2 (a full disk, a
/// read-only descriptor); a client's output (``init(clientDescriptor:noColor:abandoned:)``)
/// stops and keeps the reason in ``failure`` for the caller to report. A descriptor that is
/// non-blocking (`EAGAIN`) is waited on until it takes more, never dropped.
package final class Output: Sendable {
    package static let standardOutput = Output(fd: 1)
    package static let standardError = Output(fd: 2)

    package let fd: Int32
    package let isTerminal: Bool
    private let buffer = Mutex<[UInt8]>([])
    /// `NO_COLOR` as the program's user set it: nil reads this process's environment.
    private let noColor: Bool?
    /// Whether a closed pipe ends the process (a command) or only this output (a query that
    /// fsindexd answers into a client's descriptor: the daemon goes on).
    private let exitsOnClosedPipe: Bool
    /// Asked before each write: true when whoever reads has gone (fsfind was interrupted).
    private let abandoned: (@Sendable () -> Bool)?
    private let closed = Mutex(false)
    private let failed = Mutex<Errno?>(nil)

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
    package init(clientDescriptor fd: Int32, noColor: Bool, abandoned: @escaping @Sendable () -> Bool) {
        self.fd = fd
        self.isTerminal = isatty(fd) == 1
        self.noColor = noColor
        self.exitsOnClosedPipe = false
        self.abandoned = abandoned
        signal(SIGPIPE, SIG_IGN)
    }

    /// Whether writing stopped because the reader went away (a client's output only).
    package var isClosed: Bool { closed.withLock { $0 } }

    /// Why writing failed, when it did for another reason than the reader going away (a
    /// client's output only: the program's own standard output exits with status 2 then).
    package var failure: Errno? { failed.withLock { $0 } }

    /// Whether colour may be used: a terminal, and `NO_COLOR` unset or empty.
    package var useColor: Bool {
        guard isTerminal else { return false }
        if let noColor { return !noColor }
        if let v = getenv("NO_COLOR"), v.pointee != 0 { return false }
        return true
    }

    package func write(_ text: String) { writeBytes(Array(text.utf8)) }

    /// `value` as one line of JSON with sorted keys: what every `--json` of a report prints, so
    /// that scripts can compare runs line by line.
    package func writeJSONLine(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        writeBytes(Array((try? encoder.encode(value)) ?? Data()) + [0x0A])
    }

    /// Writes a file name or path: raw in a pipe, escaped on a terminal.
    package func writePath(_ bytes: [UInt8]) {
        if isTerminal {
            write(ByteString.escaped(bytes, escapeControls: true))
        } else {
            writeBytes(bytes)
        }
    }

    /// The one escaping of text that is data (a URL, an identifier, a title, a tag, a value),
    /// for every printer: control characters (C0, DEL, C1) as `\n`, `\t`, `\xNN`
    /// (`ByteString.escaped`). On a terminal that keeps an item from rewriting the screen (`ESC ]0;…`, `ESC [2J`); in a pipe it keeps a record on its line, so
    /// a URL holding a newline cannot pass for two results. `-0` and `--json` are the forms
    /// that keep such text exact. (File paths are bytes and follow `writePath`.)
    package static func field(_ text: String) -> String { field(Array(text.utf8)) }

    /// ``field(_:)`` of bytes (an identifier kept as bytes); bytes that are not UTF-8 as `\xNN`.
    package static func field(_ bytes: [UInt8]) -> String {
        ByteString.escaped(bytes, escapeControls: true)
    }

    package func writeBytes(_ bytes: [UInt8]) {
        let full = buffer.withLock { b in
            b.append(contentsOf: bytes)
            return b.count > 1 << 16
        }
        if full { flush() }
    }

    package func flush() {
        buffer.withLock { buffer in
            if failed.withLock({ $0 }) != nil {
                buffer.removeAll()
                return
            }
            if closed.withLock({ $0 }) || abandoned?() == true {
                closed.withLock { $0 = true }
                buffer.removeAll()
                return
            }
            switch Self.drain(fd, &buffer, abandoned: abandoned) {
            case .written:
                break
            case .readerGone:
                if exitsOnClosedPipe { exit(0) }
                closed.withLock { $0 = true }
            case .failed(let errno):
                failed.withLock { $0 = errno }
                // The program's own results are lost: say so and fail, as `cat` and `grep` do.
                // (An error stream that fails has nowhere left to say it.)
                if exitsOnClosedPipe && fd == STDOUT_FILENO {
                    Output.standardError.write("\(Self.programName): cannot write to standard output: \(String(cString: strerror(errno.rawValue)))\n")
                    Output.standardError.flush()
                    exit(2)
                }
            }
        }
    }

    private enum Drained { case written, readerGone, failed(Errno) }

    /// Writes the buffer out: all of it, or until the reader has gone (EPIPE, or `abandoned`)
    /// or a write fails. A full non-blocking descriptor (EAGAIN) is waited on with `poll`; a
    /// client's is looked at again every second, in case the client has gone.
    ///
    /// A client's descriptor (fsindexd writing for fsfind) is never written blindly: its reader
    /// may never read (`fsfind x | sleep 1000`), and a blocking write would then hold the
    /// daemon's query thread for good, even after the client was killed. So the daemon waits for
    /// room with `poll` (asking every second whether the client has gone), then writes at most
    /// `PIPE_BUF` bytes, which a pipe with room takes without blocking.
    private static func drain(_ fd: Int32, _ buffer: inout [UInt8], abandoned: (@Sendable () -> Bool)?) -> Drained {
        var offset = 0
        defer { buffer.removeAll(keepingCapacity: true) }
        while offset < buffer.count {
            if let abandoned {
                let ready = SystemCall.poll(fd, events: Int16(POLLOUT), timeout: 1000)
                if abandoned() { return .readerGone }
                if ready == .success(0) { continue }   // no room yet, or a signal
            }
            let chunk = abandoned == nil ? buffer.count - offset : min(buffer.count - offset, Int(PIPE_BUF))
            switch buffer[offset..<(offset + chunk)].withUnsafeBytes({ SystemCall.write(fd, $0) }) {
            case .success(let n): offset += n
            case .failure(.brokenPipe): return .readerGone
            case .failure(.resourceTemporarilyUnavailable):
                _ = SystemCall.poll(fd, events: Int16(POLLOUT), timeout: abandoned == nil ? -1 : 1000)
                if abandoned?() == true { return .readerGone }
            case .failure(let e): return .failed(e)
            }
        }
        return .written
    }

    /// The name this program was run as, for its messages.
    static var programName: String {
        String(CommandLine.arguments.first?.split(separator: "/").last ?? "fsindex")
    }

    /// Prints `program: message` on stderr.
    package static func error(_ program: String, _ message: String) {
        standardError.report(program, message)
    }

    /// Prints `program: message` on this output (an error stream).
    /// On a terminal, the message's control characters other than line breaks and tabs are
    /// escaped: a message may quote a file name or an app's text.
    package func report(_ program: String, _ message: String) {
        write("\(program): \(isTerminal ? Self.message(message) : message)\n")
        flush()
    }

    /// `text` with every control character escaped as ``field(_:)`` does, but for `\n` and `\t`.
    static func message(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map { field(String($0)) }.joined(separator: "\t") }
            .joined(separator: "\n")
    }
}

/// Turns a command-line path into absolute path bytes without following a final symlink (a link
/// is an item of its own), resolving `.`/`..` and symlinks in the folders above it.
///
/// Arguments arrive encoded by `ArgumentBytes`, so a name that is not UTF-8 keeps its bytes.
package enum PathArgument {
    /// An item named on the command line: an app's item as `DOMAIN:ID` (`notes:n-42`) when the
    /// text has a colon before any slash and no such file exists here, else a file's absolute path.
    package static func item(_ argument: String) -> [UInt8] {
        let bytes = ArgumentBytes.bytes(of: argument)
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, !bytes[..<colon].contains(UInt8(ascii: "/")) {
            var st = stat()
            if lstat(bytes.map { CChar(bitPattern: $0) } + [0], &st) != 0 { return bytes }
        }
        return absolute(argument)
    }

    package static func absolute(_ argument: String) -> [UInt8] {
        absolute(ArgumentBytes.path(argument))
    }

    package static func absolute(_ path: FilePath) -> [UInt8] {
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
    package static func folder(_ argument: String, workingDirectory: [UInt8]? = nil) -> [UInt8]? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        var path = ArgumentBytes.path(argument)
        if let workingDirectory, !path.isAbsolute { path = FilePath(bytes: workingDirectory).pushing(path) }
        guard path.withPlatformString({ realpath($0, &buf) }) != nil else { return nil }
        return FilePath(platformString: buf).bytes
    }
}

/// JSON for one line of `--json` output: `path` (printable), `pathBase64` when the path is not
/// valid UTF-8 (the exact bytes), then the attributes and any `extra` string fields, keys sorted.
package enum JSONLine {
    package static func render(path: [UInt8], attributes: AttributeSet, extra: [String: String] = [:]) -> String {
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
        return (try? encoder.encode(set)).map { escapingC1(String(decoding: $0, as: UTF8.self)) } ?? "{}"
    }

    /// JSON text with the C1 controls (U+0080–U+009F, left raw by `JSONEncoder`; some
    /// terminals take U+009B as CSI) written as `\u00XX`. They occur only inside strings,
    /// where the escape means the same character.
    package static func escapingC1(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if (0x80...0x9F).contains(scalar.value) {
                out.append(contentsOf: "\\u00\(String(scalar.value, radix: 16, uppercase: true))".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
