import Attributes
import Controlling
import Desktop
import Donating
import Indexing
import Watching

/// fsindexd's control service: each request on the socket becomes a typed command for the
/// writer (or a read of its state), and the writer's typed outcome becomes the response. A bad
/// request is refused here, before the writer sees it; the writer knows nothing of the socket.
/// The desktop search boxes' queries are answered here from the index this daemon keeps
/// (`fsindex search-provider` asks for each keystroke; see ``SearchBoxAnswers``).
struct DaemonControl: ControlHandler {
    let daemon: IndexDaemon
    let searchBox: SearchBoxAnswers

    func handle(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
        switch request {
        case .status:
            reply(.status(daemon.status))
        case .pause:
            daemon.pause()
            reply(.ok(message: "paused; changes are queued until `fsindex resume`"))
        case .resume:
            daemon.resume()
            reply(.ok(message: "resumed"))
        case .reindex(let paths):
            daemon.submit(.reindex(paths: paths, done: { reply(Self.response($0, ControlResponse.reindexDone)) }))
        case .used(let paths, let title):
            used(paths, title: title, reply: reply)
        case .subscribe:
            // ControlServer answers subscriptions itself; kept for handlers driven directly.
            reply(.ok(message: "subscribed"))
        case .shutdown:
            daemon.requestStop()
            reply(.ok(message: "stopping"))
        case let .donate(domain, clientState, objects, urlScheme):
            donate(domain: domain, clientState: clientState, objects: objects, urlScheme: urlScheme, reply: reply)
        case let .forget(domain, ids):
            do {
                try DonationReader.validate(domain: domain)
                daemon.submit(.forget(domain: domain, ids: ids, done: {
                    reply(Self.response($0) { .ok(message: "forgot \($0) items of \(domain)") })
                }))
            } catch {
                reply(.error(error.description))
            }
        case let .lastClientState(domain):
            do {
                let state = try daemon.store.fetchLastClientState(domain: domain)
                reply(.clientState(domain: domain, state: state.map { String(decoding: $0, as: UTF8.self) }))
            } catch {
                reply(.error(error.description))
            }
        case .searchBox(let query):
            do {
                reply(.searchBoxHits(try searchBox.answer(query)))
            } catch {
                reply(.error(error.description))
            }
        }
    }

    /// Files by absolute path, and apps' donated items as DOMAIN:ID, as `fsindex used` takes
    /// them without a daemon.
    private func used(_ paths: [[UInt8]], title: String?, reply: @escaping @Sendable (ControlResponse) -> Void) {
        guard !paths.isEmpty, paths.allSatisfy({ $0.first == UInt8(ascii: "/") || ItemIdentifier(bytes: $0).isDonated }) else {
            reply(.error("bad request: used takes one or more absolute paths or DOMAIN:ID of donated items"))
            return
        }
        if let title, title.utf8.count > 1024 {
            reply(.error("bad request: a title of at most 1024 bytes"))
            return
        }
        daemon.submit(.used(paths: paths, title: title, done: { outcome in
            reply(Self.response(outcome) { records in
                .usesRecorded(RecordedUses(paths: records.map(\.identifier.bytes), useCounts: records.map(\.useCount),
                                           indexed: records.map(\.indexed)))
            })
        }))
    }

    /// An app's batch, read on the connection's thread: a bad item refuses the batch before
    /// the writer sees anything.
    private func donate(domain: String, clientState: String?, objects: [[UInt8]], urlScheme: String?,
                        reply: @escaping @Sendable (ControlResponse) -> Void) {
        do {
            if let urlScheme { try DonationReader.validate(urlScheme: urlScheme) }
            let items = try DonationReader.read(objects: objects, domain: domain)
            if let clientState, clientState.utf8.count > DonationReader.maximumClientStateBytes {
                throw DonationError.clientStateTooLarge(size: clientState.utf8.count, limit: DonationReader.maximumClientStateBytes)
            }
            daemon.submit(.donate(domain: domain, clientState: clientState, items: items, urlScheme: urlScheme, done: { outcome in
                reply(Self.response(outcome) { count in
                    .ok(message: "donated \(count) items to \(domain)" + (clientState.map { " (client state \($0))" } ?? ""))
                })
            }))
        } catch {
            reply(.error("\(error)"))
        }
    }

    /// The writer's outcome as the socket says it: `success` as the request's response, a
    /// refusal as an error the client shows.
    static func response<T>(_ outcome: Result<T, WriterError>, _ success: (T) -> ControlResponse) -> ControlResponse {
        switch outcome {
        case .success(let value): success(value)
        case .failure(let error): .error(error.description)
        }
    }
}
