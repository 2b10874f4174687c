import Synchronization
import SystemCalls
import SystemPackage
import Glibc

extension InotifyEventSource {
    /// The watcher's thread: `poll(2)` on the eventfd and the inotify descriptor, then commands,
    /// then records, then what is due, then the batches out.
    struct Driver: Sendable {
        let shared: Shared
        let inotifyFD: Int32
        /// The `RootGuard`'s own inotify instance (the roots' ancestors).
        let guardFD: Int32
        let continuation: AsyncStream<[FileEvent]>.Continuation
        let timing: WatchTiming
        let watchLimit: Int?
        let onNotice: @Sendable (String) -> Void

        /// How often a rescue batch is tried while the stream's buffer is full.
        static let retryNanos: UInt64 = 100_000_000
        /// Bytes per `read(2)`: at least `sizeof(inotify_event) + NAME_MAX + 1`; 64 KiB holds
        /// about 2,000 records.
        static let bufferSize = 65_536

        func run() {
            var state = WatchState(backend: KernelWatchBackend(fd: inotifyFD), timing: timing, watchLimit: watchLimit,
                                   systemWatchLimit: WatchState<KernelWatchBackend>.readSystemWatchLimit())
            state.rootGuard = RootGuard(fd: guardFD)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize,
                                                                alignment: MemoryLayout<inotify_event>.alignment)
            defer { buffer.deallocate() }
            var lost = false       // a batch did not fit in the stream: every root must be rescanned
            var readable = true    // false after a read error: only commands are served
            running: while true {
                let now = SystemCall.monotonicNanos()
                var deadline = state.nextDeadline()
                if lost { deadline = min(deadline ?? .max, now + Self.retryNanos) }
                let timeout: Int32 = deadline.map { $0 <= now ? 0 : Int32(clamping: ($0 - now + 999_999) / 1_000_000) } ?? -1
                let revents: [Int16]
                switch SystemCall.pollReadable([shared.wakeFD, guardFD] + (readable ? [inotifyFD] : []), timeout: timeout) {
                case .success(let r): revents = r
                case .failure:   // ENOMEM: try again shortly
                    usleep(10_000)
                    continue
                }
                state.now = SystemCall.monotonicNanos()
                if revents[0] != 0 {
                    SystemCall.drain(eventFD: shared.wakeFD)
                    for command in shared.takeCommands() {
                        switch command {
                        case .add(let root, let options, let reply):
                            let result = state.addRoot(root, options: options)
                            let counts = state.counts
                            shared.counts.withLock { $0 = counts }   // up to date when add returns
                            for notice in state.notices { onNotice(notice) }
                            state.notices = []
                            reply.answer(result)
                        case .remove(let root): state.dropRoot(root)
                        case .checkRoots: state.checkRoots()
                        case .stop: break running
                        }
                    }
                }
                if readable, revents.count > 2, revents[2] != 0 {
                    readable = readEvents(into: &state, buffer)
                }
                if revents[1] != 0, state.rootGuard?.drain() == true {
                    state.checkRoots()
                }
                state.tick()
                publish(&state, lost: &lost)
            }
            while let batch = state.takeBatch(force: true) { continuation.yield(batch) }
            SystemCall.close(inotifyFD)
            SystemCall.close(guardFD)
            shared.control.withLock { _ in SystemCall.close(shared.wakeFD) }
            continuation.finish()
        }

        /// Reads and handles what the kernel has queued, up to about one batch (the rest is read
        /// after this batch goes out). False if the descriptor failed.
        private func readEvents(into state: inout WatchState<KernelWatchBackend>, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
            var handled = 0
            while handled < timing.maxBatch {
                switch SystemCall.readAvailable(inotifyFD, into: buffer) {
                case .success(0):
                    return true
                case .success(let n):
                    let events = RawInotifyEvent.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    state.handle(events)
                    handled += events.count
                case .failure(let e):
                    onNotice("reading inotify events failed (\(e.description)); changes are no longer seen: restart fsindexd")
                    return false
                }
            }
            return true
        }

        /// Publishes the counts, the notices and the batches that are due. A batch that does not
        /// fit in the stream's buffer is dropped and replaced, once there is room, by a rescan of
        /// every root (which also covers every batch dropped until then).
        private func publish(_ state: inout WatchState<KernelWatchBackend>, lost: inout Bool) {
            let counts = state.counts
            shared.counts.withLock { $0 = counts }
            for notice in state.notices { onNotice(notice) }
            state.notices = []
            if lost {
                let rescue = state.roots.keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
                    .map { FileEvent.rescan($0, recursive: true) }
                if rescue.isEmpty || send(rescue) { lost = false }
            }
            while let batch = state.takeBatch() {
                if lost { continue }
                if !send(batch) { lost = true }
            }
        }

        private func send(_ batch: [FileEvent]) -> Bool {
            if case .dropped = continuation.yield(batch) { return false }
            return true
        }
    }
}
