import Foundation

/// fsindexd's side of the shared index: a thread of its own that sends each change the daemon
/// commits to its local index, a moment later and in batches, and compares everything again
/// (`publishAll`) when it starts and after any failure. While the server is away it waits,
/// 0.5 s doubling to 30 s, and loses nothing: the local index keeps every change meanwhile.
public final class SharedFeeder: @unchecked Sendable {
    public let publisher: SharedPublisher
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var pending: [[UInt8]] = []
    private var needsFullPass = true
    private var stopped = false
    private var thread: Thread?

    public init(publisher: SharedPublisher, log: @escaping @Sendable (String) -> Void) {
        self.publisher = publisher
        self.log = log
    }

    public func start() {
        let t = Thread { [self] in loop() }
        t.name = "fsindexd.shared"
        thread = t
        t.start()
    }

    /// Items that changed in the local index (written, removed or summarized).
    public func changed(_ identifiers: [[UInt8]]) {
        guard !identifiers.isEmpty else { return }
        condition.lock()
        pending += identifiers
        condition.signal()
        condition.unlock()
    }

    /// Compares everything again soon (after a crawl, whose items came in no change list).
    public func requestFullPass() {
        condition.lock()
        needsFullPass = true
        condition.signal()
        condition.unlock()
    }

    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        var delay = 0.5
        while true {
            condition.lock()
            while !stopped && pending.isEmpty && !needsFullPass { condition.wait() }
            if stopped { condition.unlock(); break }
            let full = needsFullPass
            condition.unlock()
            // Changes come in bursts (a crawl, a save): gather a moment's worth.
            if !full { Thread.sleep(forTimeInterval: 0.2) }
            condition.lock()
            let batch = full ? [] : Array(Set(pending))
            // A full pass covers what is pending; a request made while it runs makes another.
            pending = []
            needsFullPass = false
            condition.unlock()
            do {
                // What the server refused is left out and recorded (`fsindex status` shows it);
                // it is no reason to try everything again, which would refuse it again.
                let r = try full ? publisher.publishAll() : publisher.publish(batch)
                if full {
                    log("shared index: published \(r.written) items, removed \(r.removed) (\(r.unchanged.count) of \(r.domains.count) domains unchanged)")
                }
                for f in r.failures { log("shared index: \(SharedPublisher.describe(f))") }
                delay = 0.5
            } catch {
                publisher.disconnect()
                log("shared index: \(error.description); comparing everything again in \(delay) s")
                condition.lock()
                needsFullPass = true
                if !stopped { _ = condition.wait(until: Date().addingTimeInterval(delay)) }
                condition.unlock()
                delay = min(delay * 2, 30)
            }
        }
        publisher.disconnect()
    }
}
