import CFTS5CJK
import Foundation
import SystemCalls
import Testing

/// The zstd contexts a thread makes to pack texts are freed when the thread ends: fsindexd starts
/// threads for every batch and publish pass, and a kept level-5 context each would grow it
/// without bound (issue 42's review).
@Suite("Compression contexts end with their threads")
struct ZipContextTests {
    @Test("100 threads that each pack a text leave no context behind")
    func freedAtThreadExit() throws {
        let text = Array(String(repeating: "the quick brown fox jumps over the lazy dog ", count: 400).utf8)
        let before = fsindex_zip_live_contexts()
        for _ in 0..<100 {
            let thread = try SystemCall.startThread {
                var length = 0
                let packed = text.withUnsafeBufferPointer { fsindex_zip_bytes($0.baseAddress, $0.count, &length) }
                precondition(packed != nil && length > 0, "the text was not packed")
                free(packed)
            }.get()
            pthread_join(thread, nil)
        }
        // Other tests' threads may hold a context each meanwhile; kept ones would be 100 more.
        let after = fsindex_zip_live_contexts()
        #expect(after - before < 20, "contexts kept by ended threads: \(after - before)")
    }
}
