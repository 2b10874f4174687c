import Foundation
import TestSupport
import Testing

extension MCPServerTests {
    /// An error's text with the path it names taken out, to compare two answers.
    static func withoutPath(_ text: String, _ path: String) -> String {
        text.replacingOccurrences(of: path, with: "PATH")
    }

    static func error(_ entry: [String: Any]) -> String { entry["error"] as? String ?? "" }

    @Test("issue 22 F17: whatever is outside the scopes gets one answer, there or not, and no path above a scope is shown")
    func noOracle() async throws {
        try await offPool {
            let x = try Fixture()
            // A link in the scope to the root of the file system.
            #expect(symlink("/", x.docs + "/sys") == 0)
            let present = "/etc/passwd", missing = "/etc/no-such-file-zq7"
            let climb = x.docs + "/../../../../../../.."
            let t = try MCPClient.session([
                Step.read("file://" + climb + present),
                Step.read("file://" + climb + missing),
                Step.subscribe("file://" + climb + present),
                Step.subscribe("file://" + climb + missing),
                Step.read("file://" + x.docs + "/sys" + present),
                Step.read("file://" + x.docs + "/sys" + missing),
                Step.call("read_text", ["path": x.docs + "/sys" + present]),
                Step.call("read_text", ["path": x.docs + "/sys" + missing]),
                Step.call("count", ["query": "budget", "scopes": ["/etc"]]),
                Step.call("count", ["query": "budget", "scopes": ["/no-such-folder-zq7"]]),
                Step.call("search", ["query": "budget", "fetchAttributes": ["domainIdentifier"]]),
                Step.read("file://" + x.docs + "/./sub/../report-2.txt"),
                Step.call("count", ["query": "budget", "scopes": [x.docs + "/sys/etc"]]),
                Step.call("count", ["query": "budget", "scopes": [x.docs + "/sys/no-such-folder-zq7"]]),
            ], server: MCPClient.server(["--config", x.config, "--scope", x.docs]), env: x.env)

            // resources/read and resources/subscribe: outside, whether the file is there or not.
            for (a, b) in [(0, 1), (2, 3), (4, 5)] {
                #expect(Self.error(t[a]).contains("outside the folders"), "\(t[a])")
                #expect(Self.withoutPath(Self.error(t[a]), present) == Self.withoutPath(Self.error(t[b]), missing), "\(t[a]) against \(t[b])")
            }
            #expect(t.isError(6) && t.text(6).contains("outside the folders"), "\(t.text(6))")
            #expect(Self.withoutPath(t.text(6), present) == Self.withoutPath(t.text(7), missing), "\(t.text(6)) against \(t.text(7))")
            #expect(t.isError(8) && t.isError(9))
            #expect(Self.withoutPath(t.text(8), "/etc") == Self.withoutPath(t.text(9), "/no-such-folder-zq7"), "\(t.text(8)) against \(t.text(9))")

            #expect(t.isError(12) && t.text(12).contains("outside the folders"), "\(t.text(12))")
            #expect(Self.withoutPath(t.text(12), "/etc") == Self.withoutPath(t.text(13), "/no-such-folder-zq7"), "\(t.text(12)) against \(t.text(13))")
            // The index's root (x.root) is above the scope: the items say the scope instead.
            let domains = Set(t.items(10).compactMap { $0["domainIdentifier"] as? String })
            #expect(!t.items(10).isEmpty && domains == [x.docs], "\(domains)")
            #expect(!t.text(10).contains("\"domainIdentifier\":\"\(x.root)\""), "\(t.text(10))")
            // A path inside the scope still reads, `.` and `..` taken as written.
            #expect(((t[11]["contents"] as? [[String: Any]])?.first?["text"] as? String ?? "").hasPrefix("Budget report 2."), "\(t[11])")
        }
    }

    @Test("also open (issue 22): maxResults above the cap is cut to the cap, partial with the total, not an error")
    func clampedMaxResults() async throws {
        try await offPool {
            let x = try Fixture(reports: 12)
            let t = try x.session([
                Step.call("search", ["query": "budget", "maxResults": 6]),
                Step.call("search", ["query": "budget", "maxResults": 1_000_000]),
                Step.call("search", ["query": "budget", "maxResults": 0]),
                Step.listTools,
            ], ["--max-results", "5"])
            for i in [0, 1] {
                #expect(!t.isError(i), "\(t.text(i))")
                #expect(t.items(i).count == 5, "\(t.text(i))")
                #expect(t.structured(i)["status"] as? String == "partial" && t.structured(i)["total"] as? Int == 15, "\(t.structured(i))")
            }
            #expect(t.isError(2) && t.text(2).contains("1 or more"), "\(t.text(2))")
            // The schema has no maximum (a client that checks it would refuse 6 itself) and says the cap.
            let search = (t[3]["tools"] as? [[String: Any]])?.first { $0["name"] as? String == "search" }
            let property = ((search?["inputSchema"] as? [String: Any])?["properties"] as? [String: Any])?["maxResults"] as? [String: Any]
            #expect(property?["maximum"] == nil && (property?["description"] as? String ?? "").contains("cut to 5"), "\(String(describing: property))")
        }
    }
}
