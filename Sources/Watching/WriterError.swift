/// Why the writer did not do what it was asked. The control service words it for its client
/// (`DaemonControl`); the writer knows nothing of the socket.
package enum WriterError: Error, CustomStringConvertible {
    /// fsindexd is stopping, so nothing was done: `nothingDone` says what was not, and what to
    /// send again once it is started.
    case stopping(nothingDone: String)
    /// The index refused the write (a full disk, a database error): nothing of it was written.
    case notWritten(String, cause: any Error)

    package var description: String {
        switch self {
        case .stopping(let nothingDone): "fsindexd is stopping; \(nothingDone)"
        case .notWritten(let what, let cause): "\(what): \(cause)"
        }
    }
}
