import Foundation
import TestSupport
import Testing

/// The command helper itself: a hung command fails its test quickly instead of hanging the run.
@Suite("Running commands", .blocking)
struct RunTimeoutTests {
    @Test("a command past its timeout is killed and the error names it")
    func timeout() throws {
        let start = Date()
        do {
            let r = try run(executable: "/bin/sleep", ["30"], timeout: 1)
            Issue.record("sleep 30 returned within a 1 s timeout: \(r.status)")
        } catch let e as CommandTimedOut {
            #expect(e.command == ["/bin/sleep", "30"])
            #expect(e.description.contains("timed out after 1.0 s"))
            #expect(e.description.contains("/bin/sleep 30"))
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 1 && elapsed < 5, "took \(elapsed) s")
    }

    @Test("a command within its timeout gives its status and both outputs")
    func withinTimeout() throws {
        let r = try run(executable: "/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: 10)
        #expect(r.status == 3)
        #expect(r.out == "out\n")
        #expect(r.stderr == "err\n")
    }

    @Test("a child that leaves a grandchild holding its output still times out")
    func grandchild() throws {
        let start = Date()
        #expect(throws: CommandTimedOut.self) {
            try run(executable: "/bin/sh", ["-c", "sleep 30 & sleep 30"], timeout: 1)
        }
        #expect(Date().timeIntervalSince(start) < 6)
    }
}
