import SystemPackage

/// The events on their way out: kept in order, batched, and held back behind a move that waits
/// for its pair.
extension WatchState {
    /// One place in the outgoing queue.
    enum Slot {
        /// An event, with the watch it came from (-1 for none), so events from folders that turn
        /// out to have moved out of the trees can be dropped.
        case event(FileEvent, wd: Int32)
        /// An `IN_MOVED_FROM` waiting for its `IN_MOVED_TO`: becomes `.moved` or `.deleted`.
        case pendingMove(UInt32)
    }

    struct PendingMove {
        var path: FilePath
        var isDirectory: Bool
        var deadline: UInt64
        var wd: Int32
    }

    /// Queues an event. Repeats the consumer would not notice are left out: a `modified` or
    /// `attributesChanged` for a path created (or already modified) in the unsent events, since
    /// the consumer reads the file after the whole batch.
    mutating func emit(_ event: FileEvent, wd: Int32) {
        switch event {
        case .modified(let p):
            let kinds = recent[p, default: []]
            if !kinds.isDisjoint(with: [.created, .modified]) { return }
            recent[p] = kinds.union(.modified)
        case .attributesChanged(let p):
            let kinds = recent[p, default: []]
            if !kinds.isDisjoint(with: [.created, .attributes]) { return }
            recent[p] = kinds.union(.attributes)
        case .created(let p, _):
            recent[p] = .created
        case .deleted(let p, _):
            recent[p] = nil
        case .moved(let from, let to, _):
            recent[from] = nil
            recent[to] = nil
        case .rescan, .rootGone, .rootReturned:
            break
        }
        if windowStart == nil { windowStart = now }
        lastEventAt = now
        queue.append(.event(event, wd: wd))
    }

    /// When the queued events are due to go: after a quiet period with no new event, and at
    /// the latest when the batch window closes.
    var batchDue: UInt64 {
        guard let w = windowStart else { return now }
        return min(w + timing.batchWindow, lastEventAt + timing.quiet)
    }

    /// How many events at the head of the queue can go (those before the first pending move).
    var readyCount: Int {
        queue.firstIndex { if case .pendingMove = $0 { true } else { false } } ?? queue.count
    }

    /// The next batch, if one is due: the batch window has passed, or it is full, or `force`.
    mutating func takeBatch(force: Bool = false) -> [FileEvent]? {
        let ready = readyCount
        guard ready > 0 else { return nil }
        guard force || ready >= timing.maxBatch || now >= batchDue else { return nil }
        let n = min(ready, timing.maxBatch)
        let batch = queue.prefix(n).compactMap { slot -> FileEvent? in
            if case .event(let e, _) = slot { e } else { nil }
        }
        queue.removeFirst(n)
        recent = [:]
        windowStart = queue.isEmpty ? nil : now
        return batch
    }

    /// When something is next due (`CLOCK_MONOTONIC` nanoseconds), or nil to sleep until an
    /// event arrives: when every folder is watched and nothing waits, the thread costs nothing.
    func nextDeadline() -> UInt64? {
        var next: UInt64?
        func consider(_ t: UInt64) { next = min(next ?? t, t) }
        if windowStart != nil, readyCount > 0 { consider(batchDue) }
        for move in pendingMoves.values { consider(move.deadline) }
        for t in debounces.values { consider(t) }
        if let due = poller.nextDue { consider(due) }
        return next
    }
}

/// What the unsent events already say about a path, so that `created` + `modified` +
/// `attributesChanged` for a file written at once go out as one `created`.
struct RecentKinds: OptionSet {
    let rawValue: UInt8
    static let created = RecentKinds(rawValue: 1)
    static let modified = RecentKinds(rawValue: 2)
    static let attributes = RecentKinds(rawValue: 4)
}
