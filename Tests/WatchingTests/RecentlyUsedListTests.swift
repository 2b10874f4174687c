import Attributes
import Configuration
import Controlling
import Crawling
import Foundation
import IndexTestSupport
import Indexing
import Logging
import Synchronization
import SystemPackage
import TestSupport
import Testing
@testable import Watching

@Suite("RecentlyUsedList: the XBEL reader", .blocking)
struct RecentlyUsedListTests {
    @Test("GTK's own format: namespaces, percent-encoded hrefs with a space and a non-ASCII name, microsecond dates, applications")
    func gtkFormat() throws {
        let text = RecentlyUsedFixture.xbel([
            .init(path: "/home/ada/Documents/café notes.txt", visited: "2026-11-24T10:00:00.654321Z",
                  applications: [("org.gnome.TextEditor", 3), ("libreoffice-writer", 2)]),
            .init(path: "/home/ada/plain.txt", visited: "2026-11-23T08:30:00Z"),
        ])
        #expect(text.contains("caf%C3%A9%20notes.txt"))
        let list = try RecentlyUsedList(xbel: Array(text.utf8))
        #expect(list.bookmarks.count == 2)
        let first = list.bookmarks[0]
        #expect(first.path == Array("/home/ada/Documents/café notes.txt".utf8))
        #expect(first.applications.map(\.name) == ["org.gnome.TextEditor", "libreoffice-writer"])
        #expect(first.applications.map(\.count) == [3, 2])
        let visited = try #require(first.visited)
        #expect(abs(visited.timeIntervalSince1970 - 1_795_514_400.654321) < 0.000_01)
        #expect(first.lastVisit == visited)
        #expect(list.bookmarks[1].lastVisit == Date(timeIntervalSince1970: 1_795_422_600))
    }

    @Test("entities in attributes, bytes that are not UTF-8 in a path, other URIs and hosts left out")
    func entitiesAndHrefs() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- written by hand -->
            <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks">
              <bookmark href="file:///r/a%26b%20&amp;%20&lt;c&gt;&#233;&#x4E2D;.txt" visited="2026-01-02T03:04:05+01:00">
                <info><metadata owner="http://freedesktop.org"><bookmark:applications>
                  <bookmark:application name="&quot;odd&apos; app&quot;" exec="x" timestamp="1700000000" count="4"/>
                </bookmark:applications></metadata></info>
              </bookmark>
              <bookmark href="file:///r/latin%E9.txt" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="file://localhost/r/local.txt" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="file://otherhost/r/remote.txt" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="recent:///0123" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="sftp://host/r/x.txt" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="file:///r/bad%2" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="file:///r/nul%00.txt" visited="2026-01-02T03:04:05Z"/>
              <bookmark href="file:///r/nodate.txt"/>
            </xbel>
            """
        let list = try RecentlyUsedList(xbel: Array(text.utf8))
        #expect(list.bookmarks.map(\.path) == [
            Array("/r/a&b & <c>é中.txt".utf8), Array("/r/latin".utf8) + [0xE9] + Array(".txt".utf8),
            Array("/r/local.txt".utf8), Array("/r/nodate.txt".utf8),
        ])
        #expect(list.skipped == 5)
        #expect(list.bookmarks[0].visited == Date(timeIntervalSince1970: 1_767_323_045 - 3600))
        #expect(list.bookmarks[0].applications.first?.name == "\"odd' app\"")
        #expect(list.bookmarks[0].applications.first?.modified == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(list.bookmarks[3].lastVisit == nil)
    }

    @Test("malformed XML is an error, never a shorter list and never a crash", arguments: [
        ("<xbel><bookmark href=\"file:///a\" visited=\"2026-01-01T00:00:00Z\">", "ends inside"),
        ("<xbel><bookmark href=\"file:///a\"></info></xbel>", "closes"),
        ("<xbel><bookmark href=file:///a/></xbel>", "without quotes"),
        ("<xbel><bookmark href=\"a &nbsp; b\"/></xbel>", "unknown entity"),
        ("<xbel><bookmark href=\"a & b\"/></xbel>", "entity"),
        ("<xbel><bookmark href=\"a\" href=\"b\"/></xbel>", "twice"),
        ("<html><body/></html>", "not <xbel>"),
        ("", "no <xbel>"),
        ("<xbel/><xbel/>", "second root"),
        ("<!DOCTYPE xbel [<!ENTITY x \"y\">]><xbel/>", "internal declarations"),
        ("<xbel><!-- never closed </xbel>", "never ends"),
        ("<xbel><bookmark href=\"a\"visited=\"b\"/></xbel>", "not separated"),
    ])
    func malformed(_ input: String, _ reason: String) {
        #expect {
            _ = try RecentlyUsedList(xbel: Array(input.utf8))
        } throws: { error in
            guard case .malformed(_, let r)? = error as? RecentlyUsedListError else { return false }
            return r.contains(reason)
        }
    }

    @Test("every cut of a real list short of its end is refused; random bytes never crash")
    func truncatedAndGarbage() throws {
        let text = Array(RecentlyUsedFixture.xbel([.init(path: "/r/é x.txt", visited: "2026-11-24T10:00:00Z")]).utf8)
        let end = text.count - text.reversed().firstIndex(of: UInt8(ascii: "<"))! - 1   // the start of </xbel>
        for cut in 0..<end {
            #expect(throws: RecentlyUsedListError.self, "cut at \(cut)") { _ = try RecentlyUsedList(xbel: Array(text[..<cut])) }
        }
        #expect(try RecentlyUsedList(xbel: text).bookmarks.count == 1)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = text
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? RecentlyUsedList(xbel: bytes)
        }
    }

    @Test("a list larger than 16 MiB, a missing one and a FIFO are refused without being parsed")
    func tooLarge() throws {
        let tree = try TemporaryTree(prefix: "fsindex-xbel")
        let big = [UInt8](repeating: UInt8(ascii: " "), count: RecentlyUsedList.maximumSize + 1)
        let path = try tree.create("recently-used.xbel", bytes: big)
        #expect(throws: RecentlyUsedListError.tooLarge(path: path.string, limit: RecentlyUsedList.maximumSize)) {
            _ = try RecentlyUsedList(contentsOf: path)
        }
        #expect(throws: RecentlyUsedListError.missing(path: tree.path("none.xbel").string)) {
            _ = try RecentlyUsedList(contentsOf: tree.path("none.xbel"))
        }
        // A FIFO in its place is refused at once, never read (which would block).
        try tree.mkfifo("fifo.xbel")
        #expect(throws: RecentlyUsedListError.unreadable(path: tree.path("fifo.xbel").string, reason: "not a regular file")) {
            _ = try RecentlyUsedList(contentsOf: tree.path("fifo.xbel"))
        }
    }

    @Test("folders reached through a link are resolved, as roots are; the file itself is not")
    func resolvesFolders() throws {
        let tree = try TemporaryTree(prefix: "fsindex-xbel-link")
        try tree.create("real/docs/a.txt", contents: "x")
        try tree.symlink("link", to: tree.path("real").string)
        try tree.symlink("real/docs/alias.txt", to: "a.txt")
        let real = tree.path("real/docs")
        var buf = [CChar](repeating: 0, count: 4097)
        let resolved = FilePath(platformString: try #require(real.withPlatformString { realpath($0, &buf) }))
        let text = RecentlyUsedFixture.xbel([
            .init(path: tree.path("link/docs/a.txt").string, visited: "2026-11-24T10:00:00Z"),
            .init(path: tree.path("link/docs/alias.txt").string, visited: "2026-11-24T10:00:00Z"),
            .init(path: tree.path("gone/b.txt").string, visited: "2026-11-24T10:00:00Z"),
        ])
        let list = try RecentlyUsedList(xbel: Array(text.utf8)).resolvingFolders()
        #expect(list.bookmarks.map(\.path) == [resolved.appending("a.txt").bytes, resolved.appending("alias.txt").bytes,
                                               tree.path("gone/b.txt").bytes])
    }

    @Test("the location: $XDG_DATA_HOME, else ~/.local/share")
    func location() {
        #expect(RecentlyUsedList.defaultLocation(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/h"]) == "/x/data/recently-used.xbel")
        #expect(RecentlyUsedList.defaultLocation(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/recently-used.xbel")
        #expect(RecentlyUsedList.defaultLocation(environment: [:]) == nil)
    }
}

@Suite("RecentlyUsedFeed: new visits only", .blocking)
struct RecentlyUsedFeedTests {
    func list(_ entries: [RecentlyUsedFixture.Entry]) throws -> RecentlyUsedList {
        try RecentlyUsedList(xbel: Array(RecentlyUsedFixture.xbel(entries).utf8))
    }

    @Test("first sight brings the history; the same visits again bring nothing; a later visit or a higher count brings the rise")
    func visits() throws {
        let first = try list([
            .init(path: "/r/a.txt", visited: "2026-11-24T10:00:00Z", applications: [("gedit", 3), ("vim", 1)]),
            .init(path: "/outside/b.txt", visited: "2026-11-24T10:00:00Z"),
        ])
        let (uses, marks) = RecentlyUsedFeed.uses(in: first, marks: [:], roots: [Array("/r".utf8)])
        #expect(uses == [ItemUse(identifier: ItemIdentifier("/r/a.txt"), date: try #require(first.bookmarks[0].lastVisit), count: 4)])
        #expect(marks.keys.sorted() == [ItemIdentifier("/r/a.txt")])

        let again = RecentlyUsedFeed.uses(in: first, marks: marks, roots: [Array("/r".utf8)])
        #expect(again.uses.isEmpty)
        #expect(again.marks == marks)

        let later = try list([.init(path: "/r/a.txt", visited: "2026-11-25T09:00:00Z", applications: [("gedit", 3), ("vim", 1)])])
        let (laterUses, laterMarks) = RecentlyUsedFeed.uses(in: later, marks: marks, roots: [Array("/r".utf8)])
        #expect(laterUses.map(\.count) == [1])
        #expect(laterUses.first?.date == later.bookmarks[0].lastVisit)

        let counted = try list([.init(path: "/r/a.txt", visited: "2026-11-25T09:00:00Z", applications: [("gedit", 5), ("vim", 1)])])
        #expect(RecentlyUsedFeed.uses(in: counted, marks: laterMarks, roots: [Array("/r".utf8)]).uses.map(\.count) == [2])
    }

    @Test("issue 22, F4: counts add up to Int64.max and stop there; a count past it reads as Int64.max, a negative one as 0")
    func countsSaturate() throws {
        let max = Int(Int64.max)
        let huge = try list([.init(path: "/r/a.txt", visited: "2026-11-24T10:00:00Z", applications: [("gedit", max), ("vim", 5)])])
        let (uses, marks) = RecentlyUsedFeed.uses(in: huge, marks: [:], roots: [Array("/r".utf8)])
        #expect(uses.map(\.count) == [.max])
        #expect(marks[ItemIdentifier("/r/a.txt")]?.counts == ["gedit": .max, "vim": 5])
        // Two rises that together pass Int64.max.
        let low = [ItemIdentifier("/r/a.txt"): FeedMark(visited: Date(timeIntervalSince1970: 0), counts: ["gedit": 0, "vim": 0])]
        let both = try list([.init(path: "/r/a.txt", visited: "2026-11-24T10:00:00Z", applications: [("gedit", max), ("vim", max)])])
        #expect(RecentlyUsedFeed.uses(in: both, marks: low, roots: [Array("/r".utf8)]).uses.map(\.count) == [.max])
        // One application listed twice in a bookmark.
        let twice = try list([.init(path: "/r/a.txt", visited: "2026-11-24T10:00:00Z", applications: [("gedit", max), ("gedit", 1)])])
        #expect(RecentlyUsedFeed.uses(in: twice, marks: [:], roots: [Array("/r".utf8)]).uses.map(\.count) == [.max])

        #expect(XBELScanner.count("99999999999999999999") == .max)
        #expect(XBELScanner.count("-99999999999999999999") == 0)
        #expect(XBELScanner.count("-3") == 0)
        #expect(XBELScanner.count("12") == 12)
        #expect(XBELScanner.count("1e3") == nil)
    }

    @Test("roots match whole folder names")
    func roots() {
        #expect(RecentlyUsedFeed.inside(Array("/r/a".utf8), [Array("/r/".utf8)]))
        #expect(!RecentlyUsedFeed.inside(Array("/rx/a".utf8), [Array("/r".utf8)]))
        #expect(RecentlyUsedFeed.inside(Array("/anything".utf8), [Array("/".utf8)]))
    }
}

/// Log lines kept in memory, for tests (never `LoggingSystem.bootstrap`).
final class InMemoryLog: LogHandler, @unchecked Sendable {
    let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        lines.withLock { $0.append("\(level): \(message)") }
    }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

@Suite("IndexDaemon: the recently-used list", .blocking, .serialized)
struct RecentlyUsedDaemonTests {
    @Test("fsindexd applies new visits of the list by inotify; the same list again counts nothing; a malformed one is logged and changes nothing")
    func follows() async throws {
        let tree = try TemporaryTree(prefix: "fsindex-recent")
        try tree.create("root/é notes.txt", contents: "kestrel")
        try tree.createDirectory("data")
        let root = tree.path("root")
        let file = root.appending("é notes.txt")
        let listPath = tree.path("data/recently-used.xbel").string
        let store = try tree.makeIndexStore()
        let log = InMemoryLog()
        let daemon = IndexDaemon(store: store, settings: Settings(), roots: [root], source: ScriptedEventSource(),
                                 logger: Logger(label: "test", factory: { _ in log }))
        let published = Mutex<[ItemChanges]>([])
        daemon.setPublisher { c in published.withLock { $0.append(c) } }
        let monitor = try #require(daemon.followRecentlyUsed(file: tree.path("data/recently-used.xbel")))
        defer { monitor.stop() }
        let running = Task(executorPreference: ThreadPerJobExecutor()) { await daemon.run() }
        func waitFor(_ what: String, _ condition: () throws -> Bool) async throws {
            try await TestSupport.waitFor(what, seconds: 60, context: { "log:\n\(log.text)" }, condition)
        }
        func useCount() throws -> Int64? { try store.item(ItemIdentifier(bytes: file.bytes))?.attributes.integer(.useCount) }
        func reads() -> Int { log.lines.withLock { $0.filter { $0.contains("recently used files read") }.count } }
        try await waitFor("the first crawl") { daemon.status.state == .watching }

        let entry = RecentlyUsedFixture.Entry(path: file.string, visited: "2026-11-24T10:00:00.123456Z", applications: [("org.gnome.TextEditor", 2)])
        try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([entry]), to: listPath)
        try await waitFor("the visits") { try useCount() == 2 }
        let item = try #require(try store.item(ItemIdentifier(bytes: file.bytes)))
        #expect(abs(try #require(item.attributes.date(.lastUsedDate)).timeIntervalSince1970 - 1_795_514_400.123) < 0.01)
        // Published after the commit, from the daemon's own thread: looked for, not assumed.
        try await waitFor("the use's publication") { published.withLock { $0.contains { $0.updated.contains(file.bytes) } } }

        // The same visits, written again: read, and nothing counted.
        var before = reads()
        try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([entry]), to: listPath)
        try await waitFor("a second read") { reads() > before }
        #expect(try useCount() == 2)

        // Malformed: logged, nothing applied, the daemon goes on.
        before = log.lines.withLock { $0.count }
        try RecentlyUsedFixture.write(String(RecentlyUsedFixture.xbel([entry]).dropLast(20)), to: listPath)
        try await waitFor("the warning") { log.text.contains("not valid XBEL") }
        #expect(try useCount() == 2)

        // A new visit counts once.
        var later = entry
        later.visited = "2026-11-25T10:00:00Z"
        try RecentlyUsedFixture.write(RecentlyUsedFixture.xbel([later]), to: listPath)
        try await waitFor("the new visit") { try useCount() == 3 }
        #expect(try store.usage(ItemIdentifier(bytes: file.bytes))?.lastUsed == Date(timeIntervalSince1970: 1_795_600_800))

        daemon.submit(.shutdown)
        await running.value
    }
}
