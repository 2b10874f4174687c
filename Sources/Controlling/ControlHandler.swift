/// The daemon's side of the control channel: what to do with each request.
///
/// `handle` runs on the server's poll thread, so it must return quickly: answer `.status`
/// directly, and for long work (`.reindex`) start it elsewhere and call `reply` when it is done.
/// `reply` may be called later, from any thread, and more than once (progress, a stream); calls
/// after the client has gone are ignored. For example:
/// ```swift
/// struct DaemonControl: ControlHandler {
///     let daemon: Daemon
///     func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
///         switch request {
///         case .status: reply(.status(daemon.status()))
///         case let .reindex(paths): daemon.enqueueReindex(paths) { summary in reply(.reindexDone(summary)) }
///         default: …
///         }
///     }
/// }
/// ```
/// `.subscribe` never reaches the handler: the server keeps the list of subscribers and feeds them
/// from ``ControlServer/publish(_:)``.
package protocol ControlHandler: Sendable {
    func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void)
}
