import Foundation
import TestSupport
import Testing

/// fsindex-mcp's `suggest` tool through the official MCP Python SDK's client (issue 27): the same
/// objects as `fsindex suggest --json`, cut to the scopes; and `describe` naming completions.
@Suite("fsindex-mcp suggest with the official MCP client", .blocking, .mcpClient)
struct MCPSuggestTests {
    @Test("suggest gives the event starting soon first, with its reason, and nothing outside the scopes")
    func suggest() async throws {
        try await offPool {
            let x = try MCPServerTests.Fixture(reports: 1)
            let soon = SuggestCompleteCLITests.calendar([("Standup", Date().addingTimeInterval(3600))])
            try x.f.tree.create("root/cal/standup.ics", contents: soon)
            try x.f.tree.create("outside/secret.ics", contents: SuggestCompleteCLITests.calendar([("Secret", Date().addingTimeInterval(1800))]))
            #expect(try run("fsindex", ["index", x.root, x.f.tree.path("outside").string], env: x.env).status == 0)
            #expect(try run("fsindex", ["used", x.docs + "/report-1.txt", x.f.tree.path("outside/secret.ics").string], env: x.env).status == 0)
            let t = try x.session([Step.call("suggest", ["maxResults": 5]), Step.call("describe"), Step.call("suggest", ["colour": "red"])])
            #expect(!t.isError(0), "\(t.text(0))")
            let items = t.items(0)
            #expect(items.first?["path"] as? String == x.root + "/cal/standup.ics", "\(items)")
            let reasons = items.first?["reasons"] as? [[String: Any]] ?? []
            #expect(reasons.first?["reason"] as? String == "eventSoon" && reasons.first?["startsAt"] is String, "\(reasons)")
            #expect(items.count <= 5 && items.allSatisfy { ($0["path"] as? String)?.hasPrefix(x.root + "/") == true }, "\(items)")
            let used = items.first { $0["path"] as? String == x.docs + "/report-1.txt" }
            #expect((used?["reasons"] as? [[String: Any]])?.contains { $0["reason"] as? String == "recent" } == true, "\(items)")
            #expect(t.text(0).contains("eventSoon (starts at "))
            let d = t.structured(1)
            #expect((d["tools"] as? [String])?.contains("suggest") == true)
            #expect((d["completions"] as? String)?.contains("fsfind --complete") == true && t.text(1).contains("completions: fsfind --complete"))
            #expect(t.isError(2), "an unknown argument is refused")
        }
    }
}
