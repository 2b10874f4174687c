import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("Summaries on the command line", .blocking)
struct SummaryCLITests {
    static func jsonObjects(_ r: CommandResult) throws -> [[String: Any]] {
        try r.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test("fsindex index makes the summary before it returns; show, show --json and fsfind --attr print it; an edit changes it")
    func indexShowFind() async throws {
        // Many processes one after another: off the cooperative pool, as the daemon tests.
        try await offPool {
            let f = try CLIFixture()
            try f.tree.create("root/owls.txt", contents: SummaryTexts.owls)
            try f.tree.create("root/short.txt", contents: "An owl, briefly.")
            let index = try f.fsindex("index", f.root)
            #expect(index.status == 0, "\(index.stderr)")
            #expect(index.out.contains("1 summarized"), "\(index.out)")

            let show = try f.fsindex("show", f.root + "/owls.txt")
            let line = try #require(show.lines.first { $0.hasPrefix("textContentSummary") }, "\(show.out)")
            #expect(line.contains("owl"))
            #expect(!(try f.fsindex("show", f.root + "/short.txt")).out.contains("textContentSummary"))

            let json = try #require(try Self.jsonObjects(try f.fsindex("show", "--json", f.root + "/owls.txt")).first)
            let summary = try #require(json["textContentSummary"] as? String)
            #expect(summary.count <= 300 && summary.contains("owl"))
            #expect(line.contains(summary))

            for name in ["textContentSummary", "summary"] {
                let found = try Self.jsonObjects(try f.fsfind("--json", "--attr", name, "pellets"))
                #expect(found.count == 1)
                #expect(found.first?["textContentSummary"] as? String == summary, "--attr \(name)")
            }
            let byAttribute = try f.fsfind("summary:owl*")
            #expect(byAttribute.lines == [f.root + "/owls.txt"], "\(byAttribute.out)\(byAttribute.stderr)")

            // A new version of the file: a new summary, of the new text.
            try f.tree.create("root/owls.txt", contents: SummaryTexts.volcanoes + " Extra words make the size differ.")
            #expect(try f.fsindex("index", f.root).status == 0)
            let after = try #require(try Self.jsonObjects(try f.fsindex("show", "--json", f.root + "/owls.txt")).first)
            let newSummary = try #require(after["textContentSummary"] as? String)
            #expect(newSummary != summary)
            #expect(newSummary.contains("olcano"))
            #expect(try f.fsfind("summary:owl*").lines.isEmpty, "the old summary is gone")

            let status = try #require(try Self.jsonObjects(try f.fsindex("status", "--json")).first)
            #expect(status["summariesPending"] as? Int == 0)
        }
    }

    @Test("fsindexd writes a file with its summary (no ~ later); a donated text's summary comes in the background, and fsfind --live prints ~ when it arrives")
    func daemonLive() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/first.txt", contents: "a kakapo note, short")
            try d.start()
            let (p, reader) = try LineReader.live("kakapo", env: d.env)
            defer {
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
                p.waitUntilExit()
            }
            #expect(reader.next(timeout: 10) == d.root + "/first.txt")
            try d.tree.create("root/long.txt", contents: "The kakapo is a flightless parrot. " + SummaryTexts.owls)
            #expect(reader.next(timeout: 30) == "+ " + d.root + "/long.txt")
            // The worker made the summary with the text: it was there when the file appeared.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try d.fsindex("show", "--json", d.root + "/long.txt").stdout)) as? [String: Any])
            #expect((json["textContentSummary"] as? String)?.isEmpty == false)
            // A short file is never summarized: no ~ line for either.
            try d.tree.create("root/second.txt", contents: "kakapo again, briefly")
            #expect(reader.next(timeout: 30) == "+ " + d.root + "/second.txt")
            #expect(reader.next(timeout: 3) == nil)
            // An app's long text: written at once, summarized behind the writer's other work.
            let text = "The kakapo is a flightless parrot. " + SummaryTexts.owls.replacingOccurrences(of: "\n", with: " ")
            let batch = try d.tree.create("batch.jsonl", contents: #"{"uniqueIdentifier":"k1","attributes":{"title":"Kakapo","textContent":"\#(text)"}}"# + "\n")
            let donated = try d.fsindex("donate", "--domain", "notes", batch.string)
            #expect(donated.status == 0, "\(donated.out) \(donated.stderr)")
            #expect(reader.next(timeout: 30) == "+ notes:k1")
            #expect(reader.next(timeout: 30) == "~ notes:k1", "the summary arrived; daemon log:\n\(d.log)")
        }
    }

    @Test("fsfind --live --json: a file is written with its summary (no ~ event); a donated text's ~ event object brings its summary")
    func daemonLiveJSON() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/marker.txt", contents: "pellets, in brief")
            try d.start()
            let p = Process()
            p.executableURL = Binaries.directory.appendingPathComponent("fsfind")
            p.arguments = ["--live", "--json", "--attr", "textContentSummary", "pellets"]
            var e = ProcessInfo.processInfo.environment
            for (k, v) in d.env { e[k] = v }
            p.environment = e
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            defer {
                if p.isRunning { kill(p.processIdentifier, SIGKILL) }
                p.waitUntilExit()
            }
            let reader = LineReader(pipe.fileHandleForReading)
            // The current results come after the subscription: from then on nothing is missed.
            let current = try #require(reader.next(timeout: 10))
            #expect(current.contains("marker.txt") && current.contains("\"change\":\"=\""), "\(current)")
            try d.tree.create("root/owls.txt", contents: SummaryTexts.owls)
            var events: [[String: Any]] = []
            func read(_ count: Int) {
                while events.count < count, let line = reader.next(timeout: 30) {
                    if let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { events.append(o) }
                }
            }
            read(1)
            try #require(events.count == 1, "daemon log:\n\(d.log)")
            #expect(events[0]["change"] as? String == "+")
            #expect(events[0]["path"] as? String == d.root + "/owls.txt")
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(try d.fsindex("show", "--json", d.root + "/owls.txt").stdout)) as? [String: Any])
            #expect((shown["textContentSummary"] as? String)?.contains("owl") == true, "\(shown)")
            let text = SummaryTexts.owls.replacingOccurrences(of: "\n", with: " ")
            let batch = try d.tree.create("batch.jsonl", contents: #"{"uniqueIdentifier":"p1","attributes":{"title":"Pellets","textContent":"\#(text)"}}"# + "\n")
            #expect(try d.fsindex("donate", "--domain", "notes", batch.string).status == 0)
            read(3)
            try #require(events.count == 3, "daemon log:\n\(d.log)")
            #expect(events[1]["change"] as? String == "+")
            #expect(events[2]["change"] as? String == "~")
            #expect(events[2]["domainIdentifier"] as? String == "notes" && events[2]["uniqueIdentifier"] as? String == "p1", "\(events)")
            #expect((events[2]["textContentSummary"] as? String)?.contains("owl") == true)
        }
    }
}
