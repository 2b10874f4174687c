import Attributes
import Configuration
import Controlling
import Donating
import Indexing
import Logging
import Synchronization
import Updating
import FoundationEssentials

/// Apps' batches over the control socket: parsed on the connection's thread (a bad item is
/// refused before the writer sees anything), then written by the daemon's one writer, in order
/// with the file events, and published to subscribers like any other change.
extension IndexDaemon {
    func handleDonation(_ request: ControlRequest, reply: @escaping @Sendable (ControlResponse) -> Void) {
        switch request {
        case let .donate(domain, clientState, objects, urlScheme):
            do {
                if let urlScheme { try DonationReader.validate(urlScheme: urlScheme) }
                let items = try DonationReader.read(objects: objects, domain: domain)
                if let clientState, clientState.utf8.count > DonationReader.maximumClientStateBytes {
                    throw DonationError.clientStateTooLarge(size: clientState.utf8.count, limit: DonationReader.maximumClientStateBytes)
                }
                submit(.donate(domain: domain, clientState: clientState, items: items, urlScheme: urlScheme, reply: reply))
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
    func applyDonation(domain: String, clientState: String?, items: [SearchableItem], urlScheme: String? = nil,
                       reply: @Sendable (ControlResponse) -> Void) {
        do {
            try store.donate(items, domain: domain, clientState: clientState.map { Array($0.utf8) }, urlScheme: urlScheme)
            publisher.withLock { $0 }?(ItemChanges(updated: items.map(\.uniqueIdentifier.bytes)))
            logger.info("donated \(items.count) items to \(domain)")
            reply(.ok(message: "donated \(items.count) items to \(domain)" + (clientState.map { " (client state \($0))" } ?? "")))
        } catch {
            record(error: "donation to \(domain) failed: \(error)")
            reply(.error("the batch for \(domain) was not written: \(error)"))
        }
    }

    func applyForget(domain: String, ids: [String]?, reply: @Sendable (ControlResponse) -> Void) {
        do {
            let gone = try store.forget(domain: domain, ids: ids)
            publisher.withLock { $0 }?(ItemChanges(removed: gone.map(\.bytes)))
            reply(.ok(message: "forgot \(gone.count) items of \(domain)"))
        } catch {
            reply(.error("nothing of \(domain) was forgotten: \(error)"))
        }
    }
}

/// The apps' reindex commands (`[[provider]]`), run off the writer: a command donates through
/// this daemon's socket, which the writer must be free to apply.
extension IndexDaemon {
    /// Asks the providers for what the index lacks (a domain lost in a rebuild, expired items)
    /// and runs every request that is due; a failed one is tried again when its backoff ends (a
    /// one-shot timer, never a periodic one).
    func askProviders() {
        let providers = state.withLock { $0.settings.providers }
        guard !providers.isEmpty, !providersRunning.exchange(true, ordering: .acquiring) else { return }
        let requests = ProviderRequests(store: store, providers: providers, indexDirectory: store.location.directory)
        let logger = self.logger
        Task.detached { [self] in
            defer { providersRunning.store(false, ordering: .releasing) }
            do {
                try requests.noteWhatIsMissing()
                let results = try requests.runDue(log: { logger.info("\($0)") })
                for r in results where r.error != nil { record(error: "provider \(r.domain): \(r.error ?? "")") }
                if let next = try requests.nextRetry() {
                    let wait = max(1, next.timeIntervalSinceNow)
                    after(.seconds(wait)) { [self] in
                        if !stopping.load(ordering: .relaxed) { askProviders() }
                    }
                }
            } catch {
                record(error: "providers: \(error)")
            }
        }
    }
}
