import ArgumentParser

/// A failure a command ends on: `message` is printed as `tool: message` on standard error
/// (nil: it was said already), and the process exits with `status` (2 unless said otherwise,
/// grep's "trouble").
package struct CommandFailure: Error, CustomStringConvertible, Sendable {
    package var message: String?
    package var status: Int32

    package init(_ message: String?, status: Int32 = 2) {
        self.message = message
        self.status = status
    }

    package var description: String { message ?? "exit status \(status)" }
}

/// The one way the tools end on an error: whatever a command's body throws is printed once, as
/// `tool: message`, and becomes the exit status, so that no command repeats the
/// print-then-`ExitCode(2)` scaffolding.
///
/// - `ExitCode`, `CleanExit` and `ValidationError` pass through to the argument parser (a
///   status chosen on purpose; help; a usage error, printed with the usage);
/// - `CommandFailure` prints its message, exits with its status;
/// - any other error prints its description (our errors' descriptions are written for users)
///   and exits 2.
///
/// For example:
/// ```swift
/// func run() throws {
///     try ToolRun.reporting("fsindex") {
///         let settings = try options.settings()
///         guard !roots.isEmpty else { throw CommandFailure("no roots to index; give a folder") }
///         …
///     }
/// }
/// ```
package enum ToolRun {
    package static func reporting<T>(_ tool: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw exit(tool, error) }
    }

    package static func reporting<T>(_ tool: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw exit(tool, error) }
    }

    /// What the argument parser should end with for `error`, reported on standard error.
    static func exit(_ tool: String, _ error: any Error) -> any Error {
        switch error {
        case is ExitCode, is CleanExit, is ValidationError: return error
        case let failure as CommandFailure:
            if let message = failure.message { Output.error(tool, message) }
            return ExitCode(failure.status)
        case let described as any CustomStringConvertible:
            Output.error(tool, described.description)
            return ExitCode(2)
        default:
            Output.error(tool, "\(error)")
            return ExitCode(2)
        }
    }
}
