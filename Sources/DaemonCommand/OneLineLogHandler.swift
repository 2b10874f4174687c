import Attributes
import Logging

/// fsindexd's log handler: every message on one line, its control characters escaped.
///
/// A log line carries names the daemon did not choose: a stick's volume label, a mount point, a
/// file name, an app's domain. One with a newline would otherwise start a line of its own that
/// looks like fsindexd's (`… warning: index damaged`), and one with an escape sequence would
/// act on the terminal that shows the log. Escaping at the handler covers every line, including
/// the ones written later; the messages that name volumes also escape them themselves
/// (`Volume.shownName`), so they read the same on any handler.
struct OneLineLogHandler: LogHandler {
    var inner: StreamLogHandler

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        inner.log(level: level, message: "\(Self.oneLine(message.description))", metadata: metadata, source: source,
                  file: file, function: function, line: line)
    }

    /// `text` with C0, DEL and C1 controls escaped (`\n`, `\x1B`, …).
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }) else { return text }
        return ByteString.escaped(Array(text.utf8), escapeControls: true)
    }
}
