import Attributes
import Configuration
import Controlling
import Indexing
import MemberwiseInit
import Querying
import SystemPackage

/// How the front ends open the local index: read-only, with the repair policy and the live
/// changes that come from fsindexd, the index's one writer.
///
/// These live with the front ends, not in Querying, because they depend on who else runs on
/// the machine (the daemon's control socket): the query layer itself knows only the index.
extension QueryPipeline {
    /// Opens the index read-only, with `DaemonOrIndexRepair` and fsindexd's subscription as the
    /// source of live changes. An index that must be rebuilt (after damage or a schema change)
    /// would answer with files missing: that is an error, unless fsindexd is already rebuilding
    /// it, when the answers come with `warning`.
    ///
    /// `repair` replaces that policy where the daemon itself answers (its query socket, the
    /// search boxes): it hands gone files to its own writer instead of connecting to its own
    /// control socket and waiting for itself.
    package static func open(location: IndexLocation, repair: (any StaleResultRepair)? = nil) throws(QueryError) -> (pipeline: QueryPipeline, warning: String?) {
        let store: IndexStore
        let reason: String?
        do {
            store = try IndexStore(location: location, readOnly: true)
            reason = try store.meta("rebuild_required")
        } catch {
            // The other cases name their fix; SQLite's own text stays out of the message.
            guard case .database(let path, let code, _) = error else { throw .index(error.description, cause: error) }
            throw .index("the index at \(path) could not be opened (error \(code)); check that you may read it and `fsindex status`, or rebuild it with `fsindex erase` and `fsindex index`", cause: error)
        }
        var warning: String?
        if let reason {
            guard DaemonOrIndexRepair.daemonRuns(for: location) else {
                throw .index("the index at \(location.directory.string) must be rebuilt (\(reason)); run `fsindex index` or start fsindexd, which rebuilds it")
            }
            warning = "fsindexd is rebuilding the index (\(reason)); results may be incomplete until it is done (see `fsindex status`)"
        }
        let engine = QueryEngine(store: store, changeSource: DaemonOrIndexRepair.changes(for: location))
        return (QueryPipeline(engine: engine, repair: repair ?? DaemonOrIndexRepair(location: location)), warning)
    }
}

/// The repair policy of the local index: the running daemon re-checks results whose files are
/// gone (and drops them); without one, they are removed from the index here.
@MemberwiseInit
package struct DaemonOrIndexRepair: StaleResultRepair {
    package let location: IndexLocation
    /// Whether, without a daemon, the items are deleted here; false for a front end that must
    /// never write (fsindex-mcp), which then leaves them to the next crawl.
    package var deletesWithoutDaemon: Bool = true

    package func forget(_ paths: [[UInt8]]) {
        if let client = try? ControlClient.connect(ControlLocation.forIndex(directory: location.directory)) {
            _ = try? client.request(.reindex(paths: paths), timeout: .seconds(2))
            client.close()
            return
        }
        guard deletesWithoutDaemon, let store = try? IndexStore(location: location) else { return }
        _ = try? store.deleteItems(identifiers: paths.map { ItemIdentifier(bytes: $0) })
    }

    /// Whether fsindexd answers for this index.
    package static func daemonRuns(for location: IndexLocation) -> Bool {
        guard let client = try? ControlClient.connect(ControlLocation.forIndex(directory: location.directory)) else { return false }
        client.close()
        return true
    }

    /// fsindexd's item changes for this index, as a `QueryEngine.changeSource`: each call
    /// subscribes anew; the stream owns its connection and closes it when it ends.
    package static func changes(for location: IndexLocation) -> @Sendable () throws(QueryError) -> AsyncStream<ItemChanges> {
        { () throws(QueryError) -> AsyncStream<ItemChanges> in
            let control = ControlLocation.forIndex(directory: location.directory)
            do throws(ControlError) {
                let client = try ControlClient.connect(control)
                defer { client.close() }
                return try client.subscribe()
            } catch {
                if case .noDaemon = error {
                    throw .index("live results need fsindexd running for the index at \(location.directory.string); start it with `fsindexd`", cause: error)
                }
                throw .index(error.description, cause: error)
            }
        }
    }
}

extension RankingWeights {
    /// The weights of the config's `[query]` section.
    package init(_ query: Settings.Query) {
        self.init(recency: query.recencyWeight, usage: query.usageWeight, decaySeconds: query.decayDays * 86400)
    }
}

/// Which volumes' indexes a query reads beside the home index (issue 29).
package enum VolumeScope: Sendable, Hashable {
    /// The home index alone.
    case none
    /// The volumes mounted now (where they are mounted).
    case mounted
    /// Every volume known, those unplugged too: their items are marked offline.
    case includingOffline
}

extension QueryPipeline {
    /// The home index, with the indexes of the volumes `scope` names merged into one ranked
    /// answer (`MergedBackend`). A volume's index that cannot be opened is left out with a
    /// warning; so is one being built for the first time (its results come once it exists).
    package static func open(location: IndexLocation, volumes scope: VolumeScope,
                             repair: (any StaleResultRepair)? = nil) throws(QueryError) -> (pipeline: QueryPipeline, warning: String?) {
        let (home, warning) = try open(location: location, repair: repair)
        guard scope != .none else { return (home, warning) }
        let catalogue = VolumeCatalogue(indexDirectory: location.directory)
        let known = catalogue.volumes(mounts: VolumeCatalogue.currentMounts())
        var parts = [MergedBackend.Part(backend: home.engine, origin: nil)]
        var warnings = warning.map { [$0] } ?? []
        for (volume, mounted) in known where mounted || scope == .includingOffline {
            let volumeLocation = IndexLocation(directory: catalogue.directory(of: volume.key))
            guard volumeLocation.exists else { continue }
            do {
                let store = try IndexStore(location: volumeLocation, readOnly: true)
                parts.append(MergedBackend.Part(backend: QueryEngine(store: store), origin: ResultOrigin(volume: volume.name, offline: !mounted)))
            } catch {
                warnings.append("the index of volume \(volume.name) (\(volumeLocation.directory.string)) is left out: \(error)")
            }
        }
        guard parts.count > 1 else { return (home, warnings.isEmpty ? nil : warnings.joined(separator: "; ")) }
        return (QueryPipeline(engine: MergedBackend(parts: parts), repair: home.repair),
                warnings.isEmpty ? nil : warnings.joined(separator: "; "))
    }
}
