import SystemPackage

/// Where the daemon's file events come from: `InotifyEventSource` on Linux, `ScriptedEventSource`
/// in the consumer's tests (an overflow, a move out of a root, a folder deleted mid-crawl, on cue).
///
/// The order of calls the daemon follows, so that a crawl misses nothing:
/// ```swift
/// let source = try InotifyEventSource(onNotice: { log.notice("\($0)") })
/// try source.add(root: "/home/ada/Documents", options: options)   // watches are in place
/// try await crawl("/home/ada/Documents")                           // then the full crawl
/// for await batch in source.events { try await writer.apply(batch) }
/// ```
/// Events that arrive during the crawl describe changes the crawl may or may not have seen; the
/// consumer applies them afterwards, which is correct because every event is re-read from disk.
package protocol FileEventSource: Sendable {
    /// Batches of events, in order. A batch holds what arrived together: up to a few thousand
    /// events, or what arrived within about 50 ms. The stream ends after `stop()`.
    var events: AsyncStream<[FileEvent]> { get }

    /// Starts watching `root` and every folder below it that `options` does not exclude (hidden
    /// names, globs, folders holding the marker file), on the root's file system only when
    /// `options.oneFileSystem` is set. Returns once every watch is added, so a crawl started
    /// afterwards misses nothing. Blocks for as long as listing the folders takes.
    func add(root: FilePath, options: WalkOptions) throws(WatchError)

    /// Stops watching `root` (a root removed from the config). No event for it follows.
    func remove(root: FilePath)

    /// Counts for `fsindex status`: folders watched, polled (watch budget exhausted), unreachable.
    var counts: WatchCounts { get }

    /// Stops watching everything and ends `events`. Calling it again does nothing.
    func stop()

    /// The mount table changed: a root whose file system was unmounted may be there again.
    /// Mounting makes no inotify event, so the daemon's mount watcher says so.
    func mountsChanged()
}

extension FileEventSource {
    /// Nothing to look at, for a source without missing roots of its own (a scripted one).
    package func mountsChanged() {}
}
