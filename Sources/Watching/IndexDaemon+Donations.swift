import Attributes
import Controlling
import Donating
import Indexing
import Logging
import Synchronization

/// Apps' batches over the control socket: parsed on the connection's thread (a bad item is
/// refused before the writer sees anything), then written by the daemon's one writer, in order
/// with the file events, and published to subscribers like any other change.
extension IndexDaemon {
    func handleDonation(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
        switch request {
        case let .donate(domain, clientState, objects):
            do {
                let items = try DonationReader.read(objects: objects.map(\.jsonLine), domain: domain)
                if let clientState, clientState.utf8.count > DonationReader.maximumClientStateBytes {
                    throw DonationError.clientStateTooLarge(size: clientState.utf8.count, limit: DonationReader.maximumClientStateBytes)
                }
                submit(.donate(domain: domain, clientState: clientState, items: items, reply: reply))
            } catch {
                reply(.error("\(error)"))
            }
        case let .forget(domain, ids):
            do {
                try DonationReader.validate(domain: domain)
                submit(.forget(domain: domain, ids: ids, reply: reply))
            } catch {
                reply(.error(error.description))
            }
        case let .lastClientState(domain):
            do {
                let state = try store.fetchLastClientState(domain: domain)
                reply(.clientState(domain: domain, state: state.map { String(decoding: $0, as: UTF8.self) }))
            } catch {
                reply(.error(error.description))
            }
        default:
            break
        }
    }

    /// On the writer: one transaction per batch, then subscribers hear of it.
    func applyDonation(domain: String, clientState: String?, items: [SearchableItem], reply: @Sendable (ControlResponse) -> Void) {
        do {
            try store.donate(items, domain: domain, clientState: clientState.map { Array($0.utf8) })
            publisher.withLock { $0 }?(ItemChanges(updated: items.map(\.uniqueIdentifier.bytes)))
            logger.info("donated \(items.count) items to \(domain)")
            reply(.ok(message: "donated \(items.count) items to \(domain)" + (clientState.map { " (client state \($0))" } ?? "")))
        } catch {
            record(error: "donation to \(domain) failed: \(error)")
            reply(.error("the batch for \(domain) was not written: \(error)"))
        }
    }

    func applyForget(domain: String, ids: [String], reply: @Sendable (ControlResponse) -> Void) {
        do {
            let gone = try store.forget(domain: domain, ids: ids)
            publisher.withLock { $0 }?(ItemChanges(removed: gone.map(\.bytes)))
            reply(.ok(message: "forgot \(gone.count) items of \(domain)"))
        } catch {
            reply(.error("nothing of \(domain) was forgotten: \(error)"))
        }
    }
}
