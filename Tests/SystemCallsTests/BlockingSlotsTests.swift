import Synchronization
import TestSupport
import Testing

/// The `.blocking` trait's semaphore: at most `width` holders, the rest wait without a thread
/// and get a slot in turn.
@Suite("Blocking tests' slots")
struct BlockingSlotsTests {
    @Test("two slots: a third taker waits until one is given back, then goes on")
    func width() async {
        let slots = BlockingSlots(width: 2)
        await slots.acquire()
        await slots.acquire()
        let third = Mutex(false)
        let waiting = Task {
            await slots.acquire()
            third.withLock { $0 = true }
        }
        await letRealTimePass(0.2, for: "the third taker to be waiting, if it can be")
        #expect(!third.withLock { $0 })
        slots.release()
        await waiting.value
        #expect(third.withLock { $0 })
        slots.release()
        slots.release()
    }
}
