import Attributes
import Configuration
import Controlling
import Indexing
import Logging
import Synchronization
import Updating
import FoundationEssentials

/// Apps' batches, read and checked by the control service before the writer sees them, then
/// written by the daemon's one writer, in order with the file events, and published to
/// subscribers like any other change.
extension IndexDaemon {
    /// On the writer: one transaction per batch, then subscribers hear of it.
    func applyDonation(domain: String, clientState: String?, items: [SearchableItem], urlScheme: String? = nil) -> Result<Int, WriterError> {
        do {
            try store.donate(items, domain: domain, clientState: clientState.map { Array($0.utf8) }, urlScheme: urlScheme)
            publisher.withLock { $0 }?(ItemChanges(updated: items.map(\.uniqueIdentifier.bytes)))
            logger.info("donated \(items.count) items to \(domain)")
            return .success(items.count)
        } catch {
            record(error: "donation to \(domain) failed: \(error)")
            return .failure(.notWritten("the batch for \(domain) was not written", cause: error))
        }
    }

    func applyForget(domain: String, ids: [String]?) -> Result<Int, WriterError> {
        do {
            let gone = try store.forget(domain: domain, ids: ids)
            publisher.withLock { $0 }?(ItemChanges(removed: gone.map(\.bytes)))
            return .success(gone.count)
        } catch {
            return .failure(.notWritten("nothing of \(domain) was forgotten", cause: error))
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
