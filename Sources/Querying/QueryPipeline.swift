import Attributes
import Indexing
import SystemPackage
import Glibc

/// The one way every front end queries the index: a `QueryRequest` in, `QueryReply`s out.
///
/// What it adds to `QueryEngine` is what a person must be able to trust in the answers:
/// - **The disk is the truth.** The index can lag behind the disk, so every item is checked with
///   `lstat` before it is given; a file that is gone is never shown and is handed to the repair
///   policy, which the front end chooses (CommandSupport's: the daemon re-checks it, or without
///   one it is dropped from the index). A file that
///   cannot be looked at (a folder on the way became unreadable, an I/O error) is not shown
///   either, but is not forgotten: it may come back.
/// - **Pages count what is shown.** `offset` and `limit` count items after that check and after
///   per-file de-duplication, so page two starts where page one ended.
/// - **Live queries** give the current items, then the difference each change in the index makes,
///   and which of the matching items got their summary.
///
/// For example:
/// ```swift
/// let store = try IndexStore(location: .resolve(explicit: nil), readOnly: true)
/// let pipeline = QueryPipeline(engine: QueryEngine(store: store), repair: NoRepair())
/// try pipeline.run(QueryRequest(text: "kind:pdf budget", limit: 10)) { reply in print(reply) }
/// ```
package struct QueryPipeline: Sendable {
    package let engine: any SearchBackend
    package let fileCheck: FileCheck
    package let repair: any StaleResultRepair

    package init(engine: any SearchBackend, fileCheck: FileCheck = .lstat, repair: any StaleResultRepair) {
        self.engine = engine
        // The shared index holds other hosts' files: the server decides who sees what.
        self.fileCheck = engine.checksFilesOnDisk ? fileCheck : .trusting
        self.repair = repair
    }

    /// Answers a request that is not live: one final reply.
    package func run(_ request: QueryRequest, reply: (QueryReply) -> Void) throws(QueryError) {
        let spec = try request.makeSpec()
        // Summaries count what would be printed: items whose files are gone are left out (and
        // repaired), those that cannot be looked at now are left out (and kept).
        var gone: [[UInt8]] = []
        defer { if !gone.isEmpty { repair.forget(gone) } }
        let keep: ItemKeeper = { identifier in
            let (file, key) = ItemIdentifier.split(identifier)
            switch fileCheck.state(of: file) {
            case .exists: return true
            case .gone:
                if key == nil { gone.append(file) }
                return false
            case .inaccessible: return false
            }
        }
        switch request.answer {
        case .items: reply(QueryReply(.items(try items(request, spec: spec)), isFinal: true))
        case .count: reply(QueryReply(.count(try engine.count(spec, keep: keep)), isFinal: true))
        case .table(let key): reply(QueryReply(.table(try engine.groupCounts(spec, by: key, keep: keep)), isFinal: true))
        case .statistic(let key): reply(QueryReply(.statistic(key, try engine.statistics(spec, of: key, keep: keep)), isFinal: true))
        }
    }

    /// The parsed query and how it runs (like `mdfind -interpret`).
    package func explain(_ request: QueryRequest) throws(QueryError) -> [String] {
        var spec = try request.makeSpec()
        // With a limit, the first batch `items` would fetch: its plan can differ (`TopKRanking`,
        // `OrderedWalk`).
        spec.limit = request.limit.map { max(64, Self.saturatingSum(request.offset, $0, 16)) }
        var lines = ["parsed: \(spec.predicate.simplified)"] + (try engine.explain(spec))
        // A question: which stage found each result of the first page.
        if spec.question != nil {
            var page = request
            page.limit = request.limit ?? 10
            let found = try items(page, spec: try page.makeSpec())
            lines.append("the first \(found.count) results, with the stage that found each:")
            for (i, item) in found.enumerated() {
                // A name is anyone's: its control characters are shown escaped, never sent raw.
                let shown = ByteString.escaped(item.path, escapeControls: true) + (item.childKey.map { " → " + ByteString.escaped(Array($0.utf8), escapeControls: true) } ?? "")
                lines.append("  \(i + 1). \(shown)  (\(item.stage?.rawValue ?? "as typed"))")
            }
        }
        return lines
    }

    /// One page of items that exist, `offset` and `limit` counted over them.
    func items(_ request: QueryRequest, spec: QuerySpec) throws(QueryError) -> [FoundItem] {
        var page = PageCounter(offset: request.offset, limit: request.limit, onePerFile: request.onePerFile)
        var gone: [[UInt8]] = []
        var spec = spec
        // Fetch a little more than the page, since some may be gone or repeat a file; fetch
        // again (twice as much) only when that was not enough.
        // Saturating: `--limit 9223372036854775807` means "all", not an overflow.
        var batch = request.limit.map { max(64, Self.saturatingSum(request.offset, $0, 16)) }
        spec.offset = 0
        // Snippets only for the page, once it is known (see `QueryEngine.snippets`).
        spec.snippet = false
        defer { if !gone.isEmpty { repair.forget(gone) } }
        let check = fileCheck.session()
        while true {
            spec.limit = batch
            let results = try engine.run(spec)
            for r in results {
                let item = FoundItem(r, fetch: request.fetchAttributes)
                // An unplugged volume's items are found, not looked at (`--include-offline`).
                switch item.origin?.offline == true ? .exists : check(item.path) {
                case .exists: break
                case .gone:
                    if item.childKey == nil { gone.append(item.path) }
                    continue
                case .inaccessible: continue
                }
                if page.offer(item, rowID: r.rowID) == .full { return try withSnippets(page, request, spec) }
            }
            guard let size = batch, results.count == size else { return try withSnippets(page, request, spec) }
            spec.offset = Self.saturatingSum(spec.offset, size)
            batch = Self.saturatingSum(size, size)
        }
    }

    /// The page's items, with their snippets when the request wants them, and donated items
    /// with the `contentURL` they print as.
    private func withSnippets(_ page: PageCounter, _ request: QueryRequest, _ spec: QuerySpec) throws(QueryError) -> [FoundItem] {
        let donated = page.items.filter { $0.path.first != UInt8(ascii: "/") && $0.attributes[.contentURL] == nil }.map(\.path)
        guard request.snippet || !donated.isEmpty, !page.items.isEmpty else { return page.items }
        var page = page
        if !donated.isEmpty {
            let urls: [[UInt8]: String]
            urls = try engine.contentURLs(donated)
            page.setURLs(urls)
        }
        guard request.snippet else { return page.items }
        let snippets = try engine.snippets(spec, rowIDs: page.rowIDs)
        var items = page.items
        for i in items.indices { items[i].snippet = snippets[page.rowIDs[i]] }
        return items
    }

    /// A live query on whichever index this is: subscribes to its changes (`SearchBackend.changes`)
    /// first, so that no change between the query and the subscription is lost, then gives the
    /// current items and the difference each change makes, until the changes end.
    package func live(_ request: QueryRequest, reply: (QueryReply) -> Void) async throws(QueryError) {
        switch try engine.changes() {
        case .items(let changes): try await live(request, changes: changes, reply: reply)
        case .batches(let batches): try await live(request, batches: batches, reply: reply)
        }
    }

    /// A live query following item changes: the current items (a partial reply), then one
    /// partial reply per change in the index that changes the results, until `changes` ends.
    /// Subscribe before calling, so that no change between the query and the subscription is
    /// lost.
    package func live<Changes: AsyncSequence<ItemChanges, Never>>(
        _ request: QueryRequest, changes: Changes, reply: (QueryReply) -> Void
    ) async throws(QueryError) {
        var spec = try request.makeSpec()
        spec.limit = nil
        var diff = LiveDiff()
        var current: [FoundItem] = []
        for r in try engine.run(spec) {
            let item = FoundItem(r, fetch: request.fetchAttributes)
            if fileCheck.state(of: item.path) == .exists { current.append(item) }
        }
        diff.start(current.map(\.identifier))
        reply(QueryReply(.items(current), isFinal: false))
        for await change in changes {
            var added: [FoundItem] = [], removed: [FoundItem] = [], summarized: [FoundItem] = [], prioritized: [FoundItem] = []
            if !change.updated.isEmpty || !change.removed.isEmpty {
                let now = try matching(change.updated, spec: spec, request: request)
                let (a, r) = diff.apply(ItemChanges(updated: change.updated, removed: change.removed), matchingNow: Set(now.keys))
                added += a.compactMap { now[$0] }
                removed += r.map(Self.removedItem)
            }
            // A summary can make an item match (or stop matching) a query on it, and a priority
            // `priority:yes`; one that matched and still does is reported as summarized or
            // prioritized.
            func restated(_ paths: [[UInt8]]) throws(QueryError) -> [FoundItem] {
                guard !paths.isEmpty else { return [] }
                let now = try matching(paths, spec: spec, request: request)
                let (a, r) = diff.apply(ItemChanges(updated: paths), matchingNow: Set(now.keys))
                added += a.compactMap { now[$0] }
                removed += r.map(Self.removedItem)
                let fresh = Set(a)
                return paths.filter { !fresh.contains($0) }.compactMap { now[$0] }
            }
            summarized = try restated(change.summarized)
            prioritized = try restated(change.prioritized)
            if !added.isEmpty || !removed.isEmpty {
                reply(QueryReply(.changes(added: added, removed: removed), isFinal: false))
            }
            if !summarized.isEmpty {
                reply(QueryReply(.summarized(summarized), isFinal: false))
            }
            if !prioritized.isEmpty {
                reply(QueryReply(.prioritized(prioritized), isFinal: false))
            }
        }
    }

    /// Those of `identifiers` that match the live query now, by identifier.
    private func matching(_ identifiers: [[UInt8]], spec: QuerySpec, request: QueryRequest) throws(QueryError) -> [[UInt8]: FoundItem] {
        guard !identifiers.isEmpty else { return [:] }
        var narrowed = spec
        // Each change is a query of its own, with a time limit of its own.
        narrowed.deadline = spec.deadline.map { QueryDeadline(seconds: $0.seconds) }
        narrowed.predicate = .and([spec.predicate, .identifiers(identifiers)])
        var now: [[UInt8]: FoundItem] = [:]
        for r in try engine.run(narrowed) {
            let item = FoundItem(r, fetch: request.fetchAttributes)
            now[item.identifier] = item
        }
        return now
    }

    private static func removedItem(_ id: [UInt8]) -> FoundItem {
        let (file, key) = ItemIdentifier.split(id)
        return FoundItem(path: file, childKey: key)
    }
}

extension QueryPipeline {
    /// The sum, or `Int.max` where it would overflow.
    static func saturatingSum(_ values: Int...) -> Int {
        var total = 0
        for v in values {
            let (sum, overflow) = total.addingReportingOverflow(v)
            if overflow { return Int.max }
            total = sum
        }
        return total
    }
}

/// Counts items into a page: skips `offset`, stops after `limit`, and with `onePerFile` gives
/// each file once (the first of its items, so a mailbox with three matching messages is one
/// path).
struct PageCounter {
    enum Outcome { case taken, skipped, full }
    let offset: Int
    let limit: Int?
    let onePerFile: Bool
    private(set) var items: [FoundItem] = []
    /// The index row of each of `items`, in the same order.
    private(set) var rowIDs: [Int64] = []
    private var seenFiles = Set<PathKey>()
    private var skipped = 0

    /// A path as a set member, hashed as one block of bytes: `[UInt8]` hashes a byte at a time,
    /// which was 8 % of fsindexd's time answering a name query with 430 results.
    struct PathKey: Hashable {
        let bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    init(offset: Int, limit: Int?, onePerFile: Bool) {
        self.offset = offset
        self.limit = limit
        self.onePerFile = onePerFile
    }

    mutating func setURLs(_ urls: [[UInt8]: String]) {
        for i in items.indices { if let url = urls[items[i].path] { items[i].attributes[.contentURL] = .string(url) } }
    }

    mutating func offer(_ item: FoundItem, rowID: Int64 = 0) -> Outcome {
        if let limit, items.count >= limit { return .full }
        var item = item
        if onePerFile {
            // The same path on two hosts of the shared index is two files (`FoundItem.host`).
            let key = item.host.map { Array($0.utf8) + [0] + item.path } ?? item.path
            guard seenFiles.insert(PathKey(bytes: key)).inserted else { return .skipped }
            item.childKey = nil
        }
        if skipped < offset { skipped += 1; return .skipped }
        items.append(item)
        rowIDs.append(rowID)
        if let limit, items.count >= limit { return .full }
        return .taken
    }
}

/// Which items of a live query match, and what each change in the index does to that.
struct LiveDiff: Sendable {
    private(set) var matching = Set<[UInt8]>()

    init() {}

    mutating func start(_ identifiers: [[UInt8]]) { matching = Set(identifiers) }

    /// Applies one change: `matchingNow` are those of `change.updated` that match the query now.
    /// Returns the identifiers that start matching and those that stop, each at most once.
    mutating func apply(_ change: ItemChanges, matchingNow: Set<[UInt8]>) -> (added: [[UInt8]], removed: [[UInt8]]) {
        var added: [[UInt8]] = [], removed: [[UInt8]] = []
        for id in change.removed where matching.remove(id) != nil { removed.append(id) }
        for id in change.updated {
            if matchingNow.contains(id) {
                if matching.insert(id).inserted { added.append(id) }
            } else if matching.remove(id) != nil {
                removed.append(id)
            }
        }
        return (added, removed)
    }
}

/// Whether a result's file is still there, as the person asking sees the disk.
package struct FileCheck: Sendable {
    package enum State: Sendable, Hashable {
        case exists
        /// No such file (or a folder on the way is now a file): the index is behind.
        case gone
        /// It cannot be looked at now (permission, I/O error): not shown, not forgotten.
        case inaccessible
    }

    let check: @Sendable ([UInt8]) -> State
    /// Whether the check is `lstat`, which a query's many results can share folders for
    /// (`FolderStat`).
    let isLstat: Bool

    package init(_ check: @escaping @Sendable ([UInt8]) -> State) {
        self.check = check
        isLstat = false
    }

    private init(lstat: Void) {
        check = FolderStat.lstat
        isLstat = true
    }

    /// The check of one query's results, one after the other on one thread: `lstat` shares
    /// the folders the results have in common.
    func session() -> ([UInt8]) -> State {
        guard isLstat else { return state(of:) }
        let folders = FolderStat()
        return { path in path.first == UInt8(ascii: "/") ? folders.state(of: path) : .exists }
    }

    /// An app's donated item (`DOMAIN:ID`, no leading `/`) is no file: it exists until it is
    /// forgotten or expires, which the index itself enforces.
    package func state(of path: [UInt8]) -> State {
        path.first == UInt8(ascii: "/") ? check(path) : .exists
    }

    /// Every item exists: for the shared index, whose files may be on other hosts.
    package static let trusting = FileCheck { _ in .exists }

    /// `lstat(2)`: the file itself, never a link's target.
    package static let lstat = FileCheck(lstat: ())
}

/// What to do about results whose files are gone.
package protocol StaleResultRepair: Sendable {
    func forget(_ paths: [[UInt8]])
}

/// Nothing to repair: the shared index is kept by its watchers, each comparing its own disk.
package struct NoRepair: StaleResultRepair {
    package init() {}
    package func forget(_ paths: [[UInt8]]) {}
}

extension QueryPipeline {
    /// A live query following committed batches without their items (the shared index's
    /// LISTEN/NOTIFY, channel `fsindex_items`): the current items, then, at each batch, the items
    /// that came and went, found by running the query again and comparing.
    package func live<Batches: AsyncSequence<Void, Never>>(
        _ request: QueryRequest, batches: Batches, reply: (QueryReply) -> Void
    ) async throws(QueryError) {
        var spec = try request.makeSpec()
        spec.limit = nil
        spec.offset = 0
        func current() throws(QueryError) -> [[UInt8]: FoundItem] {
            var out: [[UInt8]: FoundItem] = [:]
            for r in try engine.run(spec) {
                let item = FoundItem(r, fetch: request.fetchAttributes)
                // The same path on two hosts is two items.
                out[(item.host.map { Array($0.utf8) + [0] } ?? []) + item.identifier] = item
            }
            return out
        }
        func ordered(_ items: some Sequence<FoundItem>) -> [FoundItem] {
            items.sorted { $0.identifier.lexicographicallyPrecedes($1.identifier) }
        }
        var shown = try current()
        reply(QueryReply(.items(ordered(shown.values)), isFinal: false))
        for await _ in batches {
            let now = try current()
            let added = ordered(now.filter { shown[$0.key] == nil }.values)
            let removed = ordered(shown.filter { now[$0.key] == nil }.values)
            shown = now
            if !added.isEmpty || !removed.isEmpty { reply(QueryReply(.changes(added: added, removed: removed), isFinal: false)) }
        }
    }
}
