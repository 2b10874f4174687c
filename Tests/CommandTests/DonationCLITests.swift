import Foundation
import SystemPackage
import TestSupport
import Testing

/// Apps feed the index: `fsindex donate`/`forget`, the socket's `donate`, fsfind over donated
/// items, expiry, a batch killed half-way, and providers asked for their items again.
@Suite("Donated items and providers", .blocking)
struct DonationCLITests {
    static func item(_ id: String, title: String, text: String, url: String? = nil, extra: String = "") -> String {
        "{\"uniqueIdentifier\": \"\(id)\", \"attributes\": {\"title\": \"\(title)\", \"textContent\": \"\(text)\""
            + (url.map { ", \"contentURL\": \"\($0)\"" } ?? "") + extra + "}}"
    }

    func donate(_ f: CLIFixture, _ lines: [String], domain: String = "notes", state: String? = nil, env: [String: String] = [:]) throws -> CommandResult {
        let file = try f.tree.create("batch-\(UUID().uuidString).jsonl", contents: lines.joined(separator: "\n") + "\n")
        var e = ["FSINDEX_INDEX_DIR": f.index]
        for (k, v) in env { e[k] = v }
        return try run("fsindex", ["donate", "--domain", domain] + (state.map { ["--client-state", $0] } ?? []) + [file.string], env: e)
    }

    @Test("donated items are found like files, print as contentURL or DOMAIN:ID, survive crawls, and are forgotten on request")
    func donateAndFind() throws {
        let f = try CLIFixture()
        try f.tree.create("root/budget.txt", contents: "The budget file on disk.\n")
        #expect(try f.fsindex("index", f.root).status == 0)
        let r = try donate(f, [Self.item("n1", title: "Budget meeting", text: "We discussed the budget.", url: "https://notes.example/n/1"),
                               Self.item("n2", title: "Groceries", text: "Bread and a small budget for milk.")], state: "v1")
        #expect(r.status == 0 && r.out.contains("donated 2 items to notes"), "\(r.stderr)")
        // Same language, same ranking: files and notes together; a title match first.
        let all = try f.fsfind("budget")
        #expect(Set(all.lines) == [f.root + "/budget.txt", "https://notes.example/n/1", "notes:n2"], "\(all.out)")
        #expect(try f.fsfind("--domain", "notes", "budget").lines.sorted() == ["https://notes.example/n/1", "notes:n2"])
        #expect(try f.fsfind("domain:notes", "milk").lines == ["notes:n2"])
        #expect(try f.fsfind("--domain", "notes").lines.count == 2)
        let json = try f.fsfind("--json", "--domain", "notes", "meeting")
        #expect(json.out.contains("\"domainIdentifier\":\"notes\"") && json.out.contains("\"uniqueIdentifier\":\"n1\"") && !json.out.contains("\"path\""), "\(json.out)")
        #expect(try f.fsindex("show", "notes:n2").out.contains("Groceries"))
        // A crawl or a reconcile never deletes them.
        try f.tree.create("root/other.txt", contents: "more\n")
        #expect(try f.fsindex("index", f.root).status == 0)
        #expect(try f.fsfind("--domain", "notes").lines.count == 2)
        #expect(try f.fsindex("donate", "--domain", "notes", "--last-client-state").out == "v1\n")
        // Forget one, then the domain.
        #expect(try f.fsindex("forget", "--domain", "notes", "--id", "n1").out.contains("forgot 1 items"))
        #expect(try f.fsfind("--domain", "notes").lines == ["notes:n2"])
        #expect(try f.fsindex("forget", "--domain", "notes").status == 0)
        #expect(try f.fsfind("--domain", "notes").status == 1)
        #expect(try f.fsindex("donate", "--domain", "notes", "--last-client-state").status == 1)
        #expect(try f.fsfind("budget").lines == [f.root + "/budget.txt"])
    }

    @Test("a use of a donated item (fsindex used DOMAIN:ID) ranks it, like a file's")
    func usedDonated() throws {
        let f = try CLIFixture()
        #expect(try donate(f, [Self.item("n1", title: "Kestrel one", text: "a kestrel note"),
                               Self.item("n2", title: "Kestrel two", text: "a kestrel note")]).status == 0)
        let used = try f.fsindex("used", "notes:n2")
        #expect(used.status == 0 && used.out.contains("used once"), "\(used.stderr)")
        #expect(try f.fsfind("--sort", "used", "kestrel").lines.first == "notes:n2")
        #expect(try f.fsfind("used:>2000-01-01").lines == ["notes:n2"])
        let missing = try f.fsindex("used", "notes:n9")
        #expect(missing.status == 2 && missing.stderr.contains("no such donated item"), "\(missing.stderr)")
    }

    @Test("an expired item stops matching at once and is purged")
    func expiry() throws {
        let f = try CLIFixture()
        let soon = Date().addingTimeInterval(2).timeIntervalSince1970
        #expect(try donate(f, [Self.item("old", title: "Old", text: "a budget", extra: ", \"expirationDate\": \"2020-01-01T00:00:00Z\""),
                               Self.item("soon", title: "Soon", text: "a budget", extra: ", \"expirationDate\": \(soon)"),
                               Self.item("kept", title: "Kept", text: "a budget")]).status == 0)
        #expect(Set(try f.fsfind("budget").lines) == ["notes:soon", "notes:kept"])
        // Expired at `soon`, by the real clock: it stops matching then, with nothing else done.
        let gone = try eventually(10, every: .milliseconds(100)) { try f.fsfind("budget").lines == ["notes:kept"] }
        #expect(gone && Date().timeIntervalSince1970 >= soon)
        // The next batch purges what expired.
        #expect(try donate(f, [Self.item("more", title: "More", text: "x")]).status == 0)
        let status = try f.fsindex("status", "--json")
        let apps = ((try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["apps"] as? [[String: Any]]) ?? []
        #expect(apps.first?["items"] as? Int == 2, "\(status.out)")
    }

    @Test("a bad batch names the line and writes nothing; the client state stays the last committed one")
    func badBatches() throws {
        let f = try CLIFixture()
        #expect(try donate(f, [Self.item("a", title: "A", text: "alpha")], state: "s1").status == 0)
        let bad: [(String, String)] = [
            (Self.item("b", title: "B", text: "beta") + "\n{\"uniqueIdentifier\": \"c\", \"attributes\": {\"title\": ", "line 2: is not valid JSON"),
            (Self.item("b", title: "B", text: "beta") + "\n" + Self.item("c", title: "C", text: "x", extra: ", \"colour\": \"red\""), "line 2: \"colour\" is not an attribute"),
            (Self.item("b", title: "B", text: "beta") + "\n{\"attributes\": {}}", "line 2: uniqueIdentifier is missing"),
            (Self.item("b", title: "B", text: String(repeating: "y", count: 300_000)), "line 1: textContent is 300000 bytes"),
            (Self.item("b", title: "B", text: "beta", extra: ", \"pageCount\": \"many\""), "line 1: pageCount must be a whole number"),
        ]
        for (text, message) in bad {
            let r = try donate(f, [text], state: "s2")
            #expect(r.status == 2 && r.stderr.contains(message) && r.stderr.contains("nothing of this batch was written"), "\(r.stderr)")
        }
        #expect(try f.fsfind("--domain", "notes").lines == ["notes:a"])
        #expect(try f.fsindex("donate", "--domain", "notes", "--last-client-state").out == "s1\n")
        let domain = try donate(f, [Self.item("a", title: "A", text: "x")], domain: "no/slashes")
        #expect(domain.status == 2 && domain.stderr.contains("is not usable"))
    }

    @Test("an app killed in the middle of a batch: nothing half-written, the client state matches what was committed")
    func killedMidBatch() async throws {
        try await offPool {
            let f = try CLIFixture()
            // 10,000 items in 40 batches of 250, the client state naming the last batch.
            for batch in 0..<40 {
                let lines = (0..<250).map { i in Self.item("b\(batch)-\(i)", title: "Note \(batch) \(i)", text: "budget line \(i) of batch \(batch)") }
                #expect(try donate(f, lines, state: "\(batch)").status == 0)
            }
            // The app dies half-way through writing batch 40: its last line is cut off.
            let partial = (0..<250).map { i in Self.item("b40-\(i)", title: "Note 40 \(i)", text: "budget") }.joined(separator: "\n")
            let cut = String(partial.prefix(partial.count / 2))
            let sh = try run(executable: "/bin/sh", ["-c", "printf '%s' \"$1\" | \"$2\" donate --domain notes --client-state 40", "sh", cut,
                                                     Binaries.directory.appendingPathComponent("fsindex").path],
                             env: ["FSINDEX_INDEX_DIR": f.index], timeout: 120)
            #expect(sh.status == 2 && sh.stderr.contains("is not valid JSON"), "\(sh.stderr)")
            // fsindex donate itself killed (SIGKILL) at some point during a big batch.
            let big = (0..<20_000).map { i in Self.item("k\(i)", title: "Killed \(i)", text: String(repeating: "budget words ", count: 20)) }
            let file = try f.tree.create("big.jsonl", contents: big.joined(separator: "\n") + "\n")
            let p = Process()
            p.executableURL = Binaries.directory.appendingPathComponent("fsindex")
            p.arguments = ["donate", "--domain", "notes", "--client-state", "big", file.string]
            p.environment = ["FSINDEX_INDEX_DIR": f.index, "PATH": "/usr/bin:/bin"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            letRealTimePass(Double.random(in: 0.15...0.9), for: "a moment chosen at random in the batch's work")
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let state = try f.fsindex("donate", "--domain", "notes", "--last-client-state").out
            let count = try f.fsfind("--count", "--domain", "notes").out.trimmingCharacters(in: .whitespacesAndNewlines)
            // Either the big batch committed whole (its state) or not at all (batch 39's).
            #expect((state == "39\n" && count == "10000") || (state == "big\n" && count == "30000"), "state \(state), count \(count)")
        }
    }

    @Test("donations over fsindexd's socket: fsindex donate and an app's own JSON line, applied by the daemon's writer")
    func overTheSocket() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.start()
            defer { d.stop() }
            let file = try d.tree.create("batch.jsonl", contents: Self.item("s1", title: "Socket note", text: "a socketed budget") + "\n")
            let r = try run("fsindex", ["donate", "--domain", "notes", "--client-state", "c1", file.string], env: d.env)
            #expect(r.status == 0 && r.out.contains("fsindexd: donated 1 items to notes"), "\(r.out)\(r.stderr)")
            // An app speaking the socket itself (python3, no FSIndex code): the documented message.
            let status = try d.fsindex("status", "--json")
            let socket = ((try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])?["socket"] as? String) ?? ""
            let script = """
                import json, socket, sys
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                msg = {"request": "donate", "domain": "notes", "clientState": "c2",
                       "items": [{"uniqueIdentifier": "s2", "attributes": {"title": "From python", "textContent": "budget via the socket"}}]}
                s.sendall((json.dumps(msg) + "\\n").encode()); print(s.makefile().readline().strip())
                s2 = socket.socket(socket.AF_UNIX); s2.connect(sys.argv[1])
                bad = {"request": "donate", "domain": "notes", "items": [{"attributes": {}}]}
                s2.sendall((json.dumps(bad) + "\\n").encode()); print(s2.makefile().readline().strip())
                s3 = socket.socket(socket.AF_UNIX); s3.connect(sys.argv[1])
                s3.sendall((json.dumps({"request": "lastClientState", "domain": "notes"}) + "\\n").encode()); print(s3.makefile().readline().strip())
                """
            let py = try run(executable: "/usr/bin/env", ["python3", "-c", script, socket], timeout: 60)
            #expect(py.status == 0 && py.lines.first?.contains("\"response\":\"ok\"") == true, "\(py.out)\(py.stderr)")
            #expect(py.lines.dropFirst().first?.contains("item 1: uniqueIdentifier is missing") == true, "\(py.out)")
            // The state of the last committed batch, as an app reads it back (fetchLastClientState).
            #expect(py.lines.last?.contains("\"response\":\"clientState\"") == true && py.lines.last?.contains("\"state\":\"c2\"") == true, "\(py.out)")
            #expect(Set(try d.find("--domain", "notes")) == ["notes:s1", "notes:s2"])
            #expect(try d.fsindex("donate", "--domain", "notes", "--last-client-state").out == "c2\n")
            #expect(try d.fsindex("forget", "--domain", "notes", "--id", "s1").out.contains("fsindexd: forgot 1 items"))
            #expect(try d.find("--domain", "notes") == ["notes:s2"])
        }
    }

    @Test("a provider's command brings its domain back after the index is rebuilt, and its failures show in status")
    func providerRoundTrip() throws {
        let f = try CLIFixture()
        let fsindex = Binaries.directory.appendingPathComponent("fsindex").path
        // A real command: reads the identifiers it is asked for (none: all) and donates them.
        let cli = try f.tree.create("notes-cli", contents: """
            #!/bin/sh
            ids=$(cat)
            echo "asked: ${ids:-all}" >> "$0.log"
            [ -n "$ids" ] || ids="n1 n2"
            for id in $ids; do printf '{"uniqueIdentifier": "%s", "attributes": {"title": "Note %s", "textContent": "provided budget"}}\\n' "$id" "$id"; done \\
              | "\(fsindex)" donate --domain notes --client-state "from-provider"
            """)
        _ = chmod(cli.string, 0o755)
        let config = try f.tree.create("config.toml", contents: "[[provider]]\ndomain = \"notes\"\nreindex = [\"\(cli.string)\"]\ntimeout = 30\n")
        try f.tree.create("root/a.txt", contents: "a file\n")
        // The first index has no notes: the provider is asked for all of them.
        #expect(try run("fsindex", ["index", "--config", config.string, f.root], env: ["FSINDEX_INDEX_DIR": f.index]).status == 0)
        #expect(Set(try f.fsfind("--domain", "notes").lines) == ["notes:n1", "notes:n2"])
        // A rebuild loses them (erase + index here); they come back through the provider.
        #expect(try f.fsindex("erase").status == 0)
        #expect(try run("fsindex", ["index", "--config", config.string, f.root], env: ["FSINDEX_INDEX_DIR": f.index]).status == 0)
        #expect(Set(try f.fsfind("--domain", "notes").lines) == ["notes:n1", "notes:n2"])
        // By identifiers, on request.
        let one = try run("fsindex", ["reindex", "--config", config.string, "--domain", "notes", "--id", "n2"], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(one.status == 0 && one.out.contains("acknowledged 1 items"), "\(one.stderr)")
        // Items due again: one that expired is asked for by its identifier at the next index.
        let soon = Date().addingTimeInterval(1.5).timeIntervalSince1970
        #expect(try donate(f, [Self.item("n3", title: "Soon", text: "x", extra: ", \"expirationDate\": \(soon)")]).status == 0)
        // Past its expiration date by the real clock, before the next index.
        #expect(eventually(10, every: .milliseconds(100)) { Date().timeIntervalSince1970 > soon + 0.1 })
        #expect(try run("fsindex", ["index", "--config", config.string, f.root], env: ["FSINDEX_INDEX_DIR": f.index]).status == 0)
        let log = (try? String(contentsOfFile: cli.string + ".log", encoding: .utf8)) ?? ""
        #expect(log.split(separator: "\n") == ["asked: all", "asked: all", "asked: n2", "asked: n3"], "\(log)")
        #expect(try f.fsfind("--domain", "notes").lines.contains("notes:n3"))
        // A failing and a hanging command: status says so, with a retry later.
        let failing = try f.tree.create("fail.toml", contents: "[[provider]]\ndomain = \"notes\"\nreindex = [\"/bin/sh\", \"-c\", \"echo broken >&2; exit 3\"]\n")
        let r = try run("fsindex", ["reindex", "--config", failing.string, "--domain", "notes"], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(r.status == 2 && r.stderr.contains("exited with status 3: broken"), "\(r.stderr)")
        let hanging = try f.tree.create("hang.toml", contents: "[[provider]]\ndomain = \"slow\"\nreindex = [\"/bin/sleep\", \"60\"]\ntimeout = 1\n")
        let h = try run("fsindex", ["reindex", "--config", hanging.string, "--domain", "slow"], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(h.status == 2 && h.stderr.contains("longer than its time limit of 1 s"), "\(h.stderr)")
        let status = try f.fsindex("status")
        #expect(status.out.contains("provider notes: reindex of all items failed 1×") && status.out.contains("provider slow:"), "\(status.out)")
        // Never through a shell: a command with shell syntax is one program name, not found.
        let shelly = try f.tree.create("shell.toml", contents: "[[provider]]\ndomain = \"x\"\nreindex = [\"echo hi; rm -rf /tmp/nothing\"]\n")
        let s = try run("fsindex", ["reindex", "--config", shelly.string, "--domain", "x"], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(s.status == 2 && s.stderr.contains("not found"), "\(s.stderr)")
    }
}
