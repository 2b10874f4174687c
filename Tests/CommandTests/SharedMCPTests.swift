import Foundation
import TestSupport
import Testing

/// fsindex-mcp over the shared PostgreSQL index, driven by the official MCP Python SDK: the
/// same tools over the same tree answer the same as over the embedded SQLite index (issue 15:
/// "fsfind and fsindex-mcp run the same query language against PostgreSQL").
@Suite("fsindex-mcp on the shared PostgreSQL index", .blocking, .mcpClient, .postgres)
struct SharedMCPTests {
    @Test("search, count, table, statistic and read_text answer over PostgreSQL as over SQLite")
    func sameAnswers() async throws {
        try await offPool {
            let x = try MCPServerTests.Fixture()
            let pg = try ThrowawayPostgres.shared()
            let url = try pg.makeDatabase()
            let publish = try run("fsindex", ["publish", "--index-url", url, "--host", "mcp-host"], env: x.env)
            #expect(publish.status == 0, "\(publish.stderr)")
            let steps = [
                Step.call("search", ["query": "budget"]),
                Step.call("search", ["query": "kind:mail from:me"]),
                Step.call("count", ["query": "budget"]),
                Step.call("table", ["query": "", "groupBy": "extension"]),
                Step.call("statistic", ["query": "budget", "attribute": "fileSize"]),
                Step.call("read_text", ["path": "docs/report-1.txt", "length": 40]),
                Step.call("search", ["query": "budget", "scopes": [x.docs + "/sub"]]),
                Step.call("search", ["query": "kMDItemFSName == \"*(\""]),
                Step.call("describe"),
            ]
            let local = try x.session(steps)
            let shared = try x.session(steps, ["--index-url", url])
            for i in 0..<8 {
                #expect(local.isError(i) == shared.isError(i), "step \(i): \(local.text(i)) / \(shared.text(i))")
            }
            // The right answers, over both.
            for t in [local, shared] {
                #expect(t.paths(0) == Set((1...3).map { x.docs + "/report-\($0).txt" } + [x.docs + "/sub/deep.txt", x.root + "/mail/from-me.eml", x.root + "/mail/from-bob.eml"]),
                        "\(t.text(0))")
                #expect(t.paths(1) == [x.root + "/mail/from-me.eml"], "\(t.text(1))")
                #expect(t.structured(2)["count"] as? Int == 6, "\(t.text(2))")
                #expect(t.paths(6) == [x.docs + "/sub/deep.txt"], "\(t.text(6))")
                #expect(!t.isError(7), "\(t.text(7))")
            }
            // The table and the statistic, value for value.
            func rows(_ t: MCPTranscript) -> [String: Int] {
                var out: [String: Int] = [:]
                for row in t.structured(3)["rows"] as? [[String: Any]] ?? [] { out[row["value"] as? String ?? "?"] = row["count"] as? Int }
                return out
            }
            #expect(rows(shared) == rows(local) && rows(local)["txt"] == 4, "\(rows(shared)) / \(rows(local))")
            for key in ["count", "min", "max", "sum"] {
                #expect(shared.structured(4)[key] as? Int == local.structured(4)[key] as? Int, "\(key): \(shared.structured(4)) / \(local.structured(4))")
            }
            // read_text gives the text the watcher indexed, from the shared index.
            #expect(shared.structured(5)["text"] as? String == local.structured(5)["text"] as? String, "\(shared.text(5))")
            #expect((shared.structured(5)["text"] as? String)?.hasPrefix("Budget report 1.") == true)
            // describe answers, with the scope's items counted there.
            let scopes = shared.structured(8)["scopes"] as? [[String: Any]] ?? []
            #expect(scopes.first?["path"] as? String == x.root && (scopes.first?["items"] as? Int ?? 0) >= 9, "\(shared.text(8))")
            // And it is the shared index that answered: a file indexed locally but not yet
            // published is found over SQLite only, until it is published.
            try x.f.tree.create("root/docs/late-budget.txt", contents: "a late budget line")
            let index = try run("fsindex", ["index", x.root], env: x.env)
            #expect(index.status == 0, "\(index.stderr)")
            let late = x.docs + "/late-budget.txt"
            let probe = [Step.call("search", ["query": "late"])]
            #expect(try x.session(probe).paths(0) == [late])
            #expect(try x.session(probe, ["--index-url", url]).paths(0).isEmpty)
            _ = try run("fsindex", ["publish", "--index-url", url, "--host", "mcp-host"], env: x.env)
            #expect(try x.session(probe, ["--index-url", url]).paths(0) == [late])
            // The same paths published by a second host (issue 29): each result names its host;
            // before, the file was given once, from either host.
            let other = try run("fsindex", ["publish", "--index-url", url, "--host", "mcp-other"], env: x.env)
            #expect(other.status == 0, "\(other.stderr)")
            let twice = try x.session(probe, ["--index-url", url])
            #expect(twice.items(0).count == 2 && twice.paths(0) == [late], "\(twice.text(0))")
            #expect(Set(twice.items(0).compactMap { $0["host"] as? String }) == ["mcp-host", "mcp-other"], "\(twice.text(0))")
            #expect(!(local.items(0).contains { $0["host"] != nil }), "\(local.text(0))")
        }
    }
}
