import Synchronization
import SystemCalls

/// fsindexd's side of the shared index: a service that sends each change the daemon commits to
/// its local index, a moment later and in batches, and compares everything again
/// (`publishAll`) when it starts and after any failure. While the server is away it waits,
/// 0.5 s doubling to 30 s, and loses nothing: the local index keeps every change meanwhile.
///
/// Its waits go through the clock it is given (the daemon's `TimerClock`, a test's own); an
/// idle feeder waits for a change with no timer armed. The passes themselves block on the
/// server, so each runs on a thread of its own (`SystemCall.onThread`).
package final class SharedFeeder: Sendable {
    package let publisher: SharedPublisher
    private let log: @Sendable (String) -> Void
    private let state = Mutex<State>(State())
    private struct State {
        var pending: [[UInt8]] = []
        var needsFullPass = true
    }
    /// Wakes `run` when there is something to do; a wake-up that finds nothing is harmless.
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// How long changes are gathered before a batch is sent: they come in bursts (a crawl, a save).
    package static let gathering: Duration = .milliseconds(200)
    package static let firstRetry: Duration = .milliseconds(500)
    package static let longestRetry: Duration = .seconds(30)

    package init(publisher: SharedPublisher, log: @escaping @Sendable (String) -> Void) {
        self.publisher = publisher
        self.log = log
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Items that changed in the local index (written, removed or summarized).
    package func changed(_ identifiers: [[UInt8]]) {
        guard !identifiers.isEmpty else { return }
        state.withLock { $0.pending += identifiers }
        wake.yield()
    }

    /// Compares everything again soon (after a crawl, whose items came in no change list).
    package func requestFullPass() {
        state.withLock { $0.needsFullPass = true }
        wake.yield()
    }

    /// Publishes until the task is cancelled, and returns at once when it is: a pass under way
    /// runs to its end on its own thread, and the daemon does not wait for it (each batch is a
    /// transaction of its own, so an exit mid-pass loses nothing the next start's full pass
    /// does not send).
    package func run(clock: some Clock<Duration>) async {
        var wakeUps = wakes.makeAsyncIterator()
        var delay = Self.firstRetry
        while !Task.isCancelled {
            let (full, anything) = state.withLock { ($0.needsFullPass, !$0.pending.isEmpty) }
            guard full || anything else {
                if await wakeUps.next() == nil { break }
                continue
            }
            if !full {
                do { try await clock.sleep(for: Self.gathering) } catch { break }
            }
            // A full pass covers what is pending; a request made while it runs makes another.
            let batch: [[UInt8]]? = state.withLock { s in
                defer { s.pending = []; s.needsFullPass = false }
                return s.needsFullPass ? nil : Array(Set(s.pending))
            }
            let publisher = self.publisher
            let pass = await SystemCall.onThreadUnlessCancelled { () -> Result<PublishReport, SharedIndexError> in
                do throws(SharedIndexError) {
                    if let batch { return .success(try publisher.publish(batch)) }
                    return .success(try publisher.publishAll())
                } catch {
                    return .failure(error)
                }
            }
            // Cancelled mid-pass: no disconnect either, which would race the pass's thread.
            guard let outcome = pass else { return }
            switch outcome {
            case .success(let r):
                // What the server refused is left out and recorded (`fsindex status` shows it);
                // it is no reason to try everything again, which would refuse it again.
                if batch == nil {
                    log("shared index: published \(r.written) items, removed \(r.removed) (\(r.unchanged.count) of \(r.domains.count) domains unchanged)")
                }
                for f in r.failures { log("shared index: \(SharedPublisher.describe(f))") }
                delay = Self.firstRetry
            case .failure(let error):
                await SystemCall.onThread { publisher.disconnect() }
                log("shared index: \(error.description); comparing everything again in \(Self.seconds(delay)) s")
                state.withLock { $0.needsFullPass = true }
                do { try await clock.sleep(for: delay) } catch { break }
                delay = min(delay * 2, Self.longestRetry)
            }
        }
        let publisher = self.publisher
        await SystemCall.onThread { publisher.disconnect() }
    }

    /// "0.5", "1", "30": a delay as the log says it.
    static func seconds(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000)" : "\(Double(ms) / 1000)"
    }
}
