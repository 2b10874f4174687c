import Testing
@testable import Isolation

@Suite("Worker limits")
struct WorkerLimitsTests {
    @Test("the defaults leave room for the Swift runtime and bound one file")
    func defaults() {
        let l = WorkerLimits()
        #expect(l.addressSpaceBytes >= 512 << 20)
        #expect(l.wallSecondsPerFile > Double(l.cpuSecondsPerFile))
    }
}
