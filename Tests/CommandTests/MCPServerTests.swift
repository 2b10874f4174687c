import Foundation
import SystemPackage
import TestSupport
import Testing

/// fsindex-mcp driven by the official MCP Python SDK's stdio client, on generated trees indexed
/// by the built fsindex: tools/list, every tool, scopes, caps, compact against full, guidance,
/// "me", errors, resources and a subscription seeing a change.
@Suite("fsindex-mcp with the official MCP client", .blocking, .mcpClient)
struct MCPServerTests {
    /// A tree of reports, mail and notes, indexed, with a config that says who "me" is.
    struct Fixture {
        let f: CLIFixture
        var root: String { f.root }
        var docs: String { f.root + "/docs" }
        var config: String { f.tree.path("config.toml").string }
        var env: [String: String] {
            // The same folders as `DaemonFixture` over this tree, so that a daemon started on it
            // is the one the server asks.
            ["FSINDEX_INDEX_DIR": f.index, "HOME": f.tree.path("home").string, "XDG_CONFIG_HOME": f.tree.path("config").string,
             "XDG_RUNTIME_DIR": f.tree.path("run").string]
        }

        static let sentences = [
            "The quarterly budget rose by four percent while travel costs fell sharply.",
            "Planning for the next year starts in March with a review of every department.",
            "Each team lead sends an estimate of staff and equipment before the end of February.",
            "The board approves the final figures at its spring meeting in the old library.",
        ]

        init(reports: Int = 3) throws {
            f = try CLIFixture()
            try f.tree.createDirectory("home")
            try f.tree.create("config/fsindex/config.toml", contents: DaemonFixture.baseConfig)
            try f.tree.createDirectory("run")
            _ = chmod(f.tree.path("run").string, 0o700)
            try f.tree.create("config.toml", contents: "[agent]\nme = { name = \"Ada Lovelace\", emails = [\"ada@example.org\"] }\n")
            for i in 1...reports {
                try f.tree.create("root/docs/report-\(i).txt", contents: "Budget report \(i).\n" + Self.sentences.joined(separator: " ") + "\n")
            }
            try f.tree.create("root/docs/sub/deep.txt", contents: "A budget note deep in a sub folder.\n")
            try f.tree.create("root/notes.md", contents: "# Notes\n\nNothing about money here, only weaving patterns.\n")
            try f.tree.create("root/mail/from-me.eml", contents: MeCLITests.message(from: "Ada Lovelace <ada@example.org>", to: "Bob <bob@example.org>",
                                                                                    subject: "Budget", body: "The budget draft is attached."))
            try f.tree.create("root/mail/from-bob.eml", contents: MeCLITests.message(from: "Bob <bob@example.org>", to: "Ada Lovelace <ada@example.org>",
                                                                                     subject: "Re: Budget", body: "Thanks for the budget."))
            try f.tree.create("outside/secret.txt", contents: "budget secret outside the scopes\n")
            let r = try run("fsindex", ["index", root, f.tree.path("outside").string], env: env)
            #expect(r.status == 0, "\(r.stderr)")
        }

        func session(_ steps: [[String: Any]], _ args: [String] = []) throws -> MCPTranscript {
            try MCPClient.session(steps, server: MCPClient.server(["--config", config, "--scope", root] + args), env: env)
        }
    }

    @Test("tools/list gives the seven tools with input and output schemas; every tool answers with structured content, text and tokens")
    func everyTool() async throws {
        try await offPool {
            let x = try Fixture()
            let t = try x.session([
                Step.listTools,
                Step.call("search", ["query": "budget", "fetchAttributes": ["fileSize", "authors"]], progress: true),
                Step.call("count", ["query": "budget"]),
                Step.call("table", ["query": "", "groupBy": "extension"]),
                Step.call("table", ["query": "", "groupBy": "folder"]),
                Step.call("statistic", ["query": "budget", "attribute": "fileSize"]),
                Step.call("statistic", ["query": "", "attribute": "contentModificationDate"]),
                Step.call("read_text", ["path": "docs/report-1.txt", "length": 40]),
                Step.call("read_text", ["path": x.docs + "/report-1.txt", "offset": 40]),
                Step.call("describe"),
            ])
            #expect(t.initialize["name"] as? String == "fsindex-mcp")
            let tools = t[0]["tools"] as? [[String: Any]] ?? []
            #expect(tools.compactMap { $0["name"] as? String } == ["search", "count", "table", "statistic", "read_text", "describe", "suggest"])
            for tool in tools {
                #expect(tool["inputSchema"] is [String: Any] && tool["outputSchema"] is [String: Any], "\(tool["name"] ?? "")")
            }
            // search: items with the five fields and the fetched attributes; outside/ is not a scope.
            #expect(!t.isError(1), "\(t.text(1))")
            let items = t.items(1)
            // Fetched attributes are keys of the items that have them: the mails' authors.
            #expect(items.filter { $0["authors"] != nil }.count == 2, "\(items)")
            #expect(t.paths(1) == Set((1...3).map { x.docs + "/report-\($0).txt" } + [x.docs + "/sub/deep.txt", x.root + "/mail/from-me.eml", x.root + "/mail/from-bob.eml"]))
            for item in items {
                for key in ["path", "name", "kind", "score", "contentModificationDate", "fileSize"] {
                    #expect(item.keys.contains(key), "\(key) missing in \(item)")
                }
            }
            let search = t.structured(1)
            #expect(search["status"] as? String == "final" && search["total"] as? Int == 6)
            let progress = t[1]["progress"] as? [[Any]] ?? []
            #expect(progress.count >= 2 && (progress.last?[0] as? Double) == (progress.last?[1] as? Double), "\(progress)")
            // The same query shares a query token; each call has its own stage token.
            #expect(search["queryToken"] as? String == t.structured(2)["queryToken"] as? String)
            #expect(search["stageToken"] as? String != t.structured(2)["stageToken"] as? String)
            #expect(t.structured(2)["count"] as? Int == 6)
            #expect(t.text(2).contains("count: 6"))
            // table by extension and by folder (folders in the scopes only).
            let ext = t.structured(3)["rows"] as? [[String: Any]] ?? []
            #expect(ext.contains { $0["value"] as? String == "txt" && $0["count"] as? Int == 4 }, "\(ext)")
            #expect(ext.contains { $0["value"] as? String == "eml" && $0["count"] as? Int == 2 })
            let folders = t.structured(4)["rows"] as? [[String: Any]] ?? []
            // Every folder in the scope, and the scope's own item under the scope (not the folder above it).
            #expect(Set(folders.compactMap { $0["value"] as? String }) == [x.root, x.docs, x.docs + "/sub", x.root + "/mail"], "\(folders)")
            #expect(folders.first { $0["value"] as? String == x.root }?["count"] as? Int == 4, "\(folders)")
            // statistic over numbers and dates.
            let size = t.structured(5)
            #expect(size["count"] as? Int == 6 && (size["min"] as? Int ?? 0) > 0 && (size["max"] as? Int ?? 0) >= (size["min"] as? Int ?? 0), "\(size)")
            let dates = t.structured(6)
            #expect((dates["min"] as? String)?.hasPrefix("20") == true && dates["sum"] is NSNull, "\(dates)")
            // read_text in parts: the first 40 characters, then the rest from offset 40.
            let part1 = t.structured(7), part2 = t.structured(8)
            #expect(part1["text"] as? String == String(("Budget report 1.\n" + Fixture.sentences.joined(separator: " ")).prefix(40)))
            #expect(part1["status"] as? String == "partial" && part1["nextOffset"] as? Int == 40, "\(part1)")
            #expect(((part1["text"] as? String ?? "") + (part2["text"] as? String ?? "")) == "Budget report 1.\n" + Fixture.sentences.joined(separator: " ") + "\n")
            #expect(part2["status"] as? String == "final" && part2["nextOffset"] is NSNull)
            // describe: the scope with its counts per kind, attributes, the language, me, guidance.
            let d = t.structured(9)
            let scopes = d["scopes"] as? [[String: Any]] ?? []
            #expect(scopes.count == 1 && scopes.first?["path"] as? String == x.root)
            #expect((scopes.first?["items"] as? Int ?? 0) >= 9, "\(scopes)")
            #expect((d["attributes"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == "authors" })
            #expect((d["queryLanguage"] as? [String] ?? []).count >= 3)
            #expect((d["me"] as? [String: Any])?["name"] as? String == "Ada Lovelace")
            #expect((d["guidance"] as? [String: Any])?["mode"] as? String == "complete")
        }
    }

    @Test("scopes: the server's folders bound everything; a call's scopes narrow them and never widen them")
    func scopes() async throws {
        try await offPool {
            let x = try Fixture()
            let outside = x.f.tree.path("outside").string
            let t = try MCPClient.session([
                Step.call("search", ["query": "budget"]),
                Step.call("search", ["query": "budget", "scopes": [x.docs + "/sub"]]),
                Step.call("search", ["query": "budget", "scopes": [outside]]),
                Step.call("search", ["query": "budget", "scopes": [x.f.tree.root.string]]),
                Step.call("count", ["query": "budget", "scopes": ["/etc"]]),
                Step.call("read_text", ["path": outside + "/secret.txt"]),
                Step.call("read_text", ["path": "../outside/secret.txt"]),
                Step.call("read_text", ["path": x.root + "/mail/from-me.eml"]),
                Step.read("file://" + outside + "/secret.txt"),
                Step.read("file://" + x.docs + "/report-2.txt"),
            ], server: MCPClient.server(["--config", x.config, "--scope", x.docs]), env: x.env)
            #expect(t.paths(0) == Set((1...3).map { x.docs + "/report-\($0).txt" } + [x.docs + "/sub/deep.txt"]))
            #expect(t.paths(1) == [x.docs + "/sub/deep.txt"])
            #expect(t.isError(2) && t.text(2).contains("outside the folders this server searches"), "\(t.text(2))")
            // A folder holding the server's scope narrows to the scope.
            #expect(t.paths(3) == t.paths(0), "\(t.text(3))")
            #expect(t.isError(4) && t.text(4).contains("/etc is outside"), "\(t.text(4))")
            #expect(t.isError(5) && t.text(5).contains("outside the folders"), "\(t.text(5))")
            #expect(t.isError(6) && t.text(6).contains("outside the folders"), "\(t.text(6))")
            #expect(t.isError(7) && t.text(7).contains("outside the folders"), "\(t.text(7))")
            #expect((t[8]["error"] as? String ?? "").contains("outside the folders"), "\(t[8])")
            #expect(((t[9]["contents"] as? [[String: Any]])?.first?["text"] as? String ?? "").hasPrefix("Budget report 2."))
            #expect(!t.stderr.contains("secret"))
        }
    }

    @Test("a file the user cannot read is never shown nor read, though the index holds it", .needsRoot)
    func unreadable() async throws {
        try await offPool {
            let x = try Fixture()
            // The index and tree readable by nobody; one report not.
            _ = try run(executable: "/bin/chmod", ["-R", "a+rwX", x.f.tree.root.string], timeout: 30)
            _ = chmod(x.docs + "/report-2.txt", 0o600)
            var env = x.env
            env["HOME"] = "/nonexistent"
            let server = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                          try Binaries.forOtherUsers(MCPClient.server([])[0]), "--config", x.config, "--scope", x.docs]
            let t = try MCPClient.session([
                Step.call("search", ["query": "budget"]),
                Step.call("count", ["query": "budget"]),
                Step.call("read_text", ["path": x.docs + "/report-2.txt"]),
            ], server: server, env: env)
            #expect(!t.paths(0).isEmpty && !t.paths(0).contains(x.docs + "/report-2.txt"), "\(t.text(0))")
            #expect(t.structured(1)["count"] as? Int == t.paths(0).count)
            #expect(t.isError(2) && t.text(2).contains("cannot be read by this user"), "\(t.text(2))")
        }
    }

    @Test("caps: --max-results bounds every search; a cut answer is partial with the total")
    func caps() async throws {
        try await offPool {
            let x = try Fixture(reports: 12)
            let t = try x.session([
                Step.call("search", ["query": "budget"]),
                Step.call("search", ["query": "budget", "maxResults": 3]),
                Step.call("search", ["query": "budget", "maxResults": 6]),
                Step.call("search", ["query": "budget report", "maxResults": 2, "stages": [["name": "recency_boost", "weight": 2]]]),
                Step.listTools,
            ], ["--max-results", "5"])
            #expect(t.items(0).count == 5)
            #expect(t.structured(0)["status"] as? String == "partial" && t.structured(0)["total"] as? Int == 15, "\(t.structured(0))")
            #expect(t.items(1).count == 3 && t.structured(1)["total"] as? Int == 15)
            // More than the cap is cut to it (issue 22; see clampedMaxResults).
            #expect(!t.isError(2) && t.items(2).count == 5 && t.structured(2)["status"] as? String == "partial", "\(t.text(2))")
            #expect(t.items(3).count == 2 && t.structured(3)["status"] as? String == "partial")
            let scores = t.items(3).compactMap { $0["score"] as? Double }
            #expect(scores.count == 2 && scores[0] >= scores[1] && scores[1] > 0, "\(scores)")
            let search = (t[4]["tools"] as? [[String: Any]])?.first { $0["name"] as? String == "search" }
            let described = ((search?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any]).flatMap { ($0["maxResults"] as? [String: Any])?["description"] as? String }
            #expect(described?.contains("most: 5") == true, "\(String(describing: described))")
            // Never more than 200, whatever the host asks.
            let r = try run("fsindex-mcp", ["--max-results", "500", "--scope", x.root], env: x.env)
            #expect(r.status == 2 && r.stderr.contains("from 1 to 200"), "\(r.stderr)")
        }
    }

    @Test("compact: one line per item, paths relative to the scope, at most 40% of the full format for 20 results")
    func compactAgainstFull() async throws {
        try await offPool {
            let x = try Fixture(reports: 24)
            let steps = [Step.call("search", ["query": "budget", "maxResults": 20])]
            let full = try x.session(steps)
            let compact = try x.session(steps, ["--format", "compact"])
            #expect(full.items(0).count == 20)
            let lines = compact.structured(0)["lines"] as? [String] ?? []
            #expect(lines.count == 20)
            #expect(lines.allSatisfy { !$0.hasPrefix("/") && !$0.contains("\"path\"") && $0.split(separator: "\t", omittingEmptySubsequences: false).count == 4 }, "\(lines.prefix(3))")
            #expect(lines.contains { $0.hasPrefix("docs/report-") && $0.contains(".txt\ttext\t20") }, "\(lines.prefix(3))")
            #expect(compact.structured(0)["columns"] as? [String] == ["path", "kind", "modified", "summary"])
            func size(_ t: MCPTranscript) throws -> Int {
                t.text(0).count + String(decoding: try JSONSerialization.data(withJSONObject: t.structured(0), options: [.sortedKeys]), as: UTF8.self).count
            }
            let f = try size(full), c = try size(compact)
            print("compact against full, 20 results: \(c) against \(f) characters (\(c * 100 / max(f, 1)) %)")
            #expect(c * 100 <= f * 40, "compact \(c) characters, full \(f)")
        }
    }

    @Test("guidance: focused kinds limit searches; dynamic techniques take tools and fields out of tools/list")
    func guidance() async throws {
        try await offPool {
            let x = try Fixture()
            let focused = try x.session([Step.call("search", ["query": "budget"]), Step.call("count", ["query": "budget"])], ["--guidance", "focused:mail"])
            #expect(focused.paths(0) == [x.root + "/mail/from-me.eml", x.root + "/mail/from-bob.eml"], "\(focused.text(0))")
            #expect(focused.structured(1)["count"] as? Int == 2)
            func tools(_ t: MCPTranscript) -> [String: [String: Any]] {
                var d: [String: [String: Any]] = [:]
                for tool in t[0]["tools"] as? [[String: Any]] ?? [] { d[tool["name"] as? String ?? ""] = tool }
                return d
            }
            func fields(_ tool: [String: Any]?) -> Set<String> {
                Set(((tool?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
            }
            let text = try x.session([Step.listTools, Step.call("statistic", ["query": "", "attribute": "fileSize"])], ["--guidance", "dynamic:text"])
            let t = tools(text)
            #expect(Set(t.keys) == ["search", "count", "table", "read_text", "describe"])
            #expect(fields(t["search"]) == ["query", "maxResults", "fetchAttributes"])
            #expect(fields(t["count"]) == ["query"])
            let groupBy = ((t["table"]?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any])?["groupBy"] as? [String: Any]
            #expect(groupBy?["enum"] as? [String] == ["kind", "contentType"])
            #expect(text.isError(1) && text.text(1).contains("not a tool of this server"))
            let full = try x.session([Step.listTools])
            let dates = try x.session([Step.listTools], ["--guidance", "dynamic:dates,places"])
            let d = tools(dates)
            #expect(Set(d.keys) == ["search", "count", "table", "statistic", "describe", "suggest"])
            #expect(fields(d["search"]) == ["query", "scopes", "maxResults", "fetchAttributes", "sort", "stages"])
            // Less to read: the guided list is smaller than the complete one.
            let size = { (t: MCPTranscript) in (try? JSONSerialization.data(withJSONObject: t[0]["tools"] ?? [])).map(\.count) ?? 0 }
            #expect(size(text) < size(full) && size(dates) < size(full))
            let bad = try run("fsindex-mcp", ["--guidance", "dynamic:smells", "--scope", x.root], env: x.env)
            #expect(bad.status == 2 && bad.stderr.contains("\"smells\" is not a technique"), "\(bad.stderr)")
        }
    }

    @Test("me: from:me and to:me in the tool, from [agent] me of the config")
    func me() async throws {
        try await offPool {
            let x = try Fixture()
            let t = try x.session([Step.call("search", ["query": "from:me"]), Step.call("search", ["query": "to:me budget"]),
                                   Step.call("count", ["query": "author:me"])])
            #expect(t.paths(0) == [x.root + "/mail/from-me.eml"], "\(t.text(0))")
            #expect(t.paths(1) == [x.root + "/mail/from-bob.eml"])
            #expect(t.structured(2)["count"] as? Int == 1)
        }
    }

    @Test("summaries: items carry textContentSummary, compact lines cut it short, read_text gives it")
    func summaries() async throws {
        try await offPool {
            let x = try Fixture()
            let full = try x.session([Step.call("search", ["query": "budget report 1"]),
                                      Step.call("read_text", ["path": "docs/report-1.txt", "length": 10]),
                                      Step.call("search", ["query": "deep", "fetchAttributes": ["textContentSummary"]])])
            let item = full.items(0).first { ($0["path"] as? String)?.hasSuffix("report-1.txt") == true }
            let summary = item?["textContentSummary"] as? String ?? ""
            // Extractive: sentences of the text itself, at most 300 characters.
            #expect(!summary.isEmpty && summary.count <= 300, "\(full.text(0))")
            #expect(Fixture.sentences.contains { summary.contains($0) }, "\(summary)")
            #expect(full.structured(1)["textContentSummary"] as? String == summary)
            // A text under 200 characters has none (asked for, the key is left out).
            let deep = full.items(2).first
            #expect(deep != nil && deep?["textContentSummary"] == nil, "\(full.text(2))")
            let compact = try x.session([Step.call("search", ["query": "budget report 1"])], ["--format", "compact"])
            let line = (compact.structured(0)["lines"] as? [String] ?? []).first { $0.hasPrefix("docs/report-1.txt") } ?? ""
            let cut = line.split(separator: "\t", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            #expect(!cut.isEmpty && cut.count <= 60 && summary.hasPrefix(cut.replacingOccurrences(of: "…", with: "")), "\(line)")
        }
    }

    @Test("bad arguments and bad queries are tool errors with fsfind's message, and the server keeps answering")
    func errors() async throws {
        try await offPool {
            let x = try Fixture()
            let t = try x.session([
                Step.call("search", ["query": "budget AND (report"]),
                Step.call("search", ["query": "kind:pdff"]),
                Step.call("search", ["query": "budget", "colour": "red"]),
                Step.call("search", ["query": 42]),
                Step.call("search", ["query": "budget", "maxResults": 0]),
                Step.call("search", ["query": "budget", "fetchAttributes": ["nonsense"]]),
                Step.call("search", ["query": "budget", "stages": [["name": "magic_boost"]]]),
                Step.call("search", ["query": String(repeating: "a", count: 200_000)]),
                Step.call("read_text", ["path": x.root + "/docs/nope.txt"]),
                Step.call("read_text", ["path": x.root + "/docs/report-1.txt", "length": 40_000]),
                Step.call("table", ["query": "", "groupBy": "colour"]),
                Step.call("statistic", ["query": "", "attribute": "title"]),
                Step.call("nosuchtool"),
                Step.call("count", ["query": "budget"]),
            ])
            #expect(t.isError(0) && t.text(0).contains("^"), "\(t.text(0))")
            #expect(t.isError(1) && t.text(1).contains("is not a kind"), "\(t.text(1))")
            #expect(t.isError(2) && t.text(2).contains("colour"))
            #expect(t.isError(3) && t.text(3).contains("must be a string"))
            #expect(t.isError(4) && t.text(4).contains("1 or more"), "\(t.text(4))")
            #expect(t.isError(5) && t.text(5).contains("nonsense"))
            #expect(t.isError(6) && t.text(6).contains("recency_boost"))
            #expect(t.isError(7) && t.text(7).contains("limit"), "\(t.text(7).prefix(200))")
            #expect(t.isError(8) && t.text(8).contains("no such file"), "\(t.text(8))")
            #expect(t.isError(9) && t.text(9).contains("32000"))
            #expect(t.isError(10) && t.text(10).contains("kind, contentType"))
            #expect(t.isError(11) && t.text(11).contains("holds text"))
            #expect(t.isError(12) || t[12]["error"] != nil)
            #expect(!t.isError(13) && t.structured(13)["count"] as? Int == 6)
        }
    }

    @Test("resources: results are file:// resources; a subscription hears from fsindexd when the file changes")
    func subscription() async throws {
        try await offPool {
            let x = try Fixture()
            let uri = "file://" + x.docs + "/report-1.txt"
            // Without fsindexd, a subscription is refused with the reason, not accepted in silence.
            let alone = try x.session([Step.subscribe(uri)])
            #expect((alone[0]["error"] as? String ?? "").contains("need fsindexd running"), "\(alone[0])")

            let daemon = try DaemonFixture(tree: x.f.tree)
            try daemon.start(["--root", x.root])
            defer { daemon.stop() }
            let t = try x.session([
                Step.call("search", ["query": "budget report", "maxResults": 3]),
                Step.listResources,
                Step.subscribe(uri),
                Step.write(x.docs + "/report-1.txt", "Budget report 1, rewritten with new figures.\n"),
                Step.waitUpdate(uri, timeout: 60),
                Step.read(uri),
            ])
            let resources = (t[1]["resources"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
            #expect(resources.count == 3 && resources.allSatisfy { $0.hasPrefix("file://" + x.root) }, "\(resources)")
            #expect(t[2]["ok"] as? Bool == true, "\(t[2])")
            #expect(t[4]["updated"] as? Bool == true, "\(t[4]); daemon log:\n\(daemon.log)")
            #expect(((t[5]["contents"] as? [[String: Any]])?.first?["text"] as? String ?? "").contains("rewritten"))
        }
    }
}
