import Indexing
import Testing
import Updating

@Suite("Why a crawl stopped keeps what stopped it")
struct UpdateErrorTests {
    struct WalkFailed: Error, CustomStringConvertible {
        var description: String { "/r/deep: too many levels of symbolic links" }
    }

    @Test("an error of its own stays itself, the index's is .index, any other is kept as its cause, message unchanged")
    func stoppedBy() {
        guard case .cancelled = UpdateError.stopped(by: UpdateError.cancelled) else { Issue.record("not kept"); return }
        guard case .index(.schemaTooOld(let path)) = UpdateError.stopped(by: IndexError.schemaTooOld(path: "/i")), path == "/i" else {
            Issue.record("not .index"); return
        }
        let other = UpdateError.stopped(by: WalkFailed())
        guard case .failed(let cause) = other else { Issue.record("not .failed: \(other)"); return }
        #expect(cause is WalkFailed)
        #expect(other.description == "/r/deep: too many levels of symbolic links", "no 'cannot start extraction' in front of a walk's error")
    }
}
