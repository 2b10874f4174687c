import Dispatch
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// Watches folder trees with inotify(7) and reports their changes as batches of `FileEvent`s.
///
/// For example:
/// ```swift
/// let source = try InotifyEventSource(onNotice: { print("fsindexd: \($0)") })
/// try source.add(root: "/home/ada/Documents", options: WalkOptions())
/// for await batch in source.events { for event in batch { print(event) } }
/// ```
///
/// A key design decision: all mutable state (the watch descriptors and their paths, the moves
/// waiting for their pair, the polled folders) belongs to one dedicated thread, which blocks in
/// `poll(2)` on the inotify descriptor and an eventfd that wakes it for `add`, `remove` and
/// `stop`. Events leave through an `AsyncStream` with a bounded buffer; nothing else is shared,
/// so the type is plainly `Sendable`. When every folder is watched and nothing is pending the
/// thread sleeps in `poll` with no timeout: an idle watcher costs nothing.
///
/// What to know:
/// - One watch per folder (inotify is not recursive). New folders get their watches as they
///   appear, then a `.rescan` for what was created before the watch existed.
/// - When `fs.inotify.max_user_watches` runs out, the remaining folders are polled every
///   `pollInterval` (their mtime only: an edit inside a file there is seen at the next crawl),
///   and `onNotice` says once what to raise the limit to.
/// - If the consumer falls behind and the stream's buffer is full, the batches that do not fit
///   are replaced by a `.rescan` of every root, sent as soon as there is room: slow, never wrong.
/// - A root that goes away (moved, deleted, a folder above it renamed) is reported as
///   `.rootGone` and awaited by a `RootGuard` on a second inotify instance; when its path leads
///   to a folder again it is watched again and reported as `.rootReturned`.
/// - `onNotice` runs on the watcher's thread: it must not call back into the source.
package final class InotifyEventSource: FileEventSource {
    package let events: AsyncStream<[FileEvent]>
    private let shared: Shared

    /// Starts the watcher's thread. Nothing is watched until `add(root:options:)`.
    ///
    /// - Parameters:
    ///   - pollInterval: how often folders that could not get a watch are looked at.
    ///   - watchLimit: at most this many watches for this source, as if the system's limit were
    ///     reached there (for tests of the fallback to polling); nil for the system's limit.
    ///   - bufferedBatches: how many batches the stream keeps for a slow consumer.
    ///   - onNotice: messages for the user, such as the watch budget running out.
    package init(pollInterval: Duration = .seconds(30), watchLimit: Int? = nil, bufferedBatches: Int = 256,
                onNotice: @escaping @Sendable (String) -> Void = { _ in }) throws(WatchError) {
        let inotifyFD: Int32
        switch SystemCall.inotifyInit() {
        case .success(let fd): inotifyFD = fd
        case .failure(let e): throw .inotifyUnavailable(e)
        }
        let wakeFD: Int32
        switch SystemCall.eventFD() {
        case .success(let fd): wakeFD = fd
        case .failure(let e): SystemCall.close(inotifyFD); throw .inotifyUnavailable(e)
        }
        let guardFD: Int32
        switch SystemCall.inotifyInit() {
        case .success(let fd): guardFD = fd
        case .failure(let e): SystemCall.close(inotifyFD); SystemCall.close(wakeFD); throw .inotifyUnavailable(e)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: [FileEvent].self,
                                                            bufferingPolicy: .bufferingOldest(max(1, bufferedBatches)))
        events = stream
        let shared = Shared(wakeFD: wakeFD)
        self.shared = shared
        var timing = WatchTiming()
        let (seconds, attoseconds) = pollInterval.components
        timing.pollInterval = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        let driver = Driver(shared: shared, inotifyFD: inotifyFD, guardFD: guardFD, continuation: continuation, timing: timing,
                            watchLimit: watchLimit, onNotice: onNotice)
        if let e = startThread({ driver.run() }) {
            SystemCall.close(inotifyFD)
            SystemCall.close(wakeFD)
            SystemCall.close(guardFD)
            continuation.finish()
            throw .threadUnavailable(e)
        }
    }

    deinit { stop() }

    package func add(root: FilePath, options: WalkOptions = WalkOptions()) throws(WatchError) {
        let reply = Reply()
        guard shared.send(.add(root, options, reply)) else { throw .stopped }
        reply.done.wait()
        if case .failure(let e) = reply.result.withLock({ $0 }) { throw e }
    }

    package func remove(root: FilePath) {
        _ = shared.send(.remove(root))
    }

    package var counts: WatchCounts { shared.counts.withLock { $0 } }

    package func stop() {
        _ = shared.send(.stop)
    }

    package func mountsChanged() {
        _ = shared.send(.checkRoots)
    }
}

extension InotifyEventSource {
    /// A request to the watcher's thread.
    enum Command: Sendable {
        case add(FilePath, WalkOptions, Reply)
        case remove(FilePath)
        /// Look at the missing roots' paths again (the mount table changed).
        case checkRoots
        case stop
    }

    /// Where `add` waits for its answer.
    final class Reply: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Void, WatchError>>(.failure(.stopped))
        func answer(_ r: Result<Void, WatchError>) {
            result.withLock { $0 = r }
            done.signal()
        }
    }

    /// What the caller's threads and the watcher's thread share: the command queue, the counts.
    final class Shared: Sendable {
        struct Control {
            var commands: [Command] = []
            var stopped = false
        }
        let wakeFD: Int32
        let control = Mutex(Control())
        let counts = Mutex(WatchCounts())

        init(wakeFD: Int32) { self.wakeFD = wakeFD }

        /// Queues a command and wakes the thread; false once stopped. The eventfd is written
        /// under the lock, and the thread closes it only after taking `.stop` under the same lock,
        /// so it is never written after it is closed.
        func send(_ command: Command) -> Bool {
            control.withLock { c in
                guard !c.stopped else { return false }
                if case .stop = command { c.stopped = true }
                c.commands.append(command)
                SystemCall.signal(eventFD: wakeFD)
                return true
            }
        }

        func takeCommands() -> [Command] {
            control.withLock { c in
                defer { c.commands = [] }
                return c.commands
            }
        }
    }
}

/// Starts a detached thread running `body`; the error if it could not be started.
private func startThread(_ body: @escaping @Sendable () -> Void) -> Errno? {
    if case .failure(let e) = SystemCall.startThread(detached: true, body) { return e }
    return nil
}
