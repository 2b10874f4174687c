import Crawling
import Foundation
import SystemPackage
import Testing

/// The network shares' event source (issue 29): a rescan of every root at each interval, and
/// nothing more after `stop()`.
@Suite("RescanningEventSource")
struct RescanningEventSourceTests {
    @Test("each interval asks for a recursive rescan of every root; a removed root is left out; stop ends the stream")
    func rescansEachInterval() async throws {
        let source = RescanningEventSource(interval: .milliseconds(100))
        try source.add(root: "/srv/share", options: WalkOptions())
        try source.add(root: "/srv/other", options: WalkOptions())
        #expect(source.counts == WatchCounts(watched: 0, polled: 2, unreachable: 0))
        var batches = source.events.makeAsyncIterator()
        let first = await batches.next()
        #expect(first == [.rescan("/srv/share", recursive: true), .rescan("/srv/other", recursive: true)])
        source.remove(root: "/srv/other")
        // A batch may have been made before the removal; the next one has it no more.
        var next = await batches.next()
        if next?.count == 2 { next = await batches.next() }
        #expect(next == [.rescan("/srv/share", recursive: true)])
        source.stop()
        while await batches.next() != nil {}
        #expect(throws: WatchError.stopped) { try source.add(root: "/srv/late", options: WalkOptions()) }
    }
}
