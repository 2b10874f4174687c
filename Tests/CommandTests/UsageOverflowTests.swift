import Foundation
import TestSupport
import Testing

private func useCount(_ r: CommandResult) -> Int64? {
    ((try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["useCount"] as? NSNumber)?.int64Value
}

/// Use counts come from anyone who can write the recently-used list, so they can be as large
/// as a 64-bit integer; adding to them stops at `Int64.max` (issue 22, F4 and F5).
@Suite("Use counts at Int64.max (issue 22, F4 and F5)", .blocking, .serialized)
struct UsageOverflowTests {
    @Test("a list naming one file by two applications, count Int64.max and 5, is read at start, and fsindex used then adds nothing, through fsindexd and without it")
    func countsSaturate() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.createDirectory("data")
            try d.tree.create("root/hoard.txt", contents: "kestrel")
            let file = d.root + "/hoard.txt"
            let list = RecentlyUsedFixture.xbel([
                .init(path: file, visited: "2026-11-24T10:00:00Z",
                      applications: [("org.gnome.TextEditor", Int(Int64.max)), ("org.gnome.Loupe", 5)]),
            ])
            try RecentlyUsedFixture.write(list, to: d.tree.path("data/recently-used.xbel").string)
            try d.start()
            try d.waitFor("the list applied") { useCount(try d.fsindex("show", "--json", file)) == .max }
            #expect(d.process?.isRunning == true, "fsindexd stopped reading the list:\n\(d.log)")

            // Through the daemon: one more use stops at the largest count, and the daemon lives.
            let used = try d.fsindex("used", file)
            #expect(used.status == 0, "\(used.stderr)")
            #expect(used.out == file + ": used \(Int64.max) times\n")
            #expect(d.process?.isRunning == true, "fsindexd stopped on `fsindex used`:\n\(d.log)")
            #expect(useCount(try d.fsindex("show", "--json", file)) == .max)
            #expect(try run("fsfind", ["uses:>1000000000000000000"], env: d.env).lines == [file])
            #expect(d.stop() == 0)

            // Without it, the same.
            let direct = try d.fsindex("used", file)
            #expect(direct.status == 0, "\(direct.stderr)")
            #expect(direct.out == file + ": used \(Int64.max) times\n")
            #expect(useCount(try d.fsindex("show", "--json", file)) == .max)

            // And a restart reads the same list again without trapping.
            try d.start()
            #expect(d.daemonState() == "watching")
            #expect(d.stop() == 0)
        }
    }
}
