import Foundation
import TestSupport
import Testing

/// The official MCP Python SDK's stdio client (PyPI `mcp`), driving the built `fsindex-mcp` as
/// an agent's host would. The SDK is installed once per build folder into a virtual environment
/// (`.build/mcp-venv`, or the one `FSINDEX_MCP_VENV` names); where that cannot be done (no
/// python3 with venv, no PyPI) the tests that need it are skipped with the reason.
enum MCPClient {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let driver = packageRoot.appendingPathComponent("Tests/Harnesses/mcp_driver.py").path
    static let skipReason = "needs the official MCP Python SDK: python3 with venv, and PyPI to install `mcp` into .build/mcp-venv"

    /// The venv's python, or why there is none. Made once (a static let runs once, other
    /// threads wait for it).
    static let python: Result<String, ProvisionError> = provision()

    static var isAvailable: Bool { (try? python.get()) != nil }

    struct ProvisionError: Error, CustomStringConvertible {
        var description: String
    }

    static func provision() -> Result<String, ProvisionError> {
        let venv = ProcessInfo.processInfo.environment["FSINDEX_MCP_VENV"] ?? packageRoot.appendingPathComponent(".build/mcp-venv").path
        let python = venv + "/bin/python"
        if let r = try? run(executable: python, ["-c", "import mcp"], timeout: 60), r.status == 0 { return .success(python) }
        do {
            let made = try run(executable: "/usr/bin/env", ["python3", "-m", "venv", "--clear", venv], timeout: 300)
            guard made.status == 0 else { return .failure(ProvisionError(description: "python3 -m venv failed: \(made.stderr)")) }
            let pip = try run(executable: venv + "/bin/pip", ["install", "--quiet", "--disable-pip-version-check", "mcp>=2.3,<3"], timeout: 600)
            guard pip.status == 0 else { return .failure(ProvisionError(description: "pip install mcp failed: \(pip.stderr)")) }
            return .success(python)
        } catch {
            return .failure(ProvisionError(description: "\(error)"))
        }
    }

    /// Runs a plan of steps (see mcp_driver.py) against `server args`, and returns what the
    /// client saw, one entry per step after the first (`init`).
    static func session(_ steps: [[String: Any]], server: [String], env: [String: String] = [:], timeout: TimeInterval = 180) throws -> MCPTranscript {
        let python = try python.get()
        let plan = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: steps).write(to: plan)
        defer { try? FileManager.default.removeItem(at: plan) }
        let r = try run(executable: python, [driver, plan.path] + server, env: env, timeout: timeout)
        guard r.status == 0, let entries = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] else {
            throw DriverFailed(description: "the MCP client failed (exit \(r.status)):\n\(r.stderr)\n\(r.out)")
        }
        return MCPTranscript(entries: entries, stderr: r.stderr)
    }

    struct DriverFailed: Error, CustomStringConvertible { var description: String }

    /// The built server, as a command line for the driver.
    static func server(_ args: [String]) -> [String] {
        [Binaries.directory.appendingPathComponent("fsindex-mcp").path] + args
    }
}

/// What the client saw.
struct MCPTranscript {
    var entries: [[String: Any]]
    var stderr: String

    var initialize: [String: Any] { entries[0] }
    /// The result of step `i` of the plan.
    subscript(_ i: Int) -> [String: Any] { entries[i + 1] }

    func structured(_ i: Int) -> [String: Any] { self[i]["structured"] as? [String: Any] ?? [:] }
    func isError(_ i: Int) -> Bool { self[i]["isError"] as? Bool ?? false }
    func text(_ i: Int) -> String { self[i]["text"] as? String ?? "" }
    func items(_ i: Int) -> [[String: Any]] { structured(i)["items"] as? [[String: Any]] ?? [] }
    func paths(_ i: Int) -> Set<String> { Set(items(i).compactMap { $0["path"] as? String }) }
}

/// Steps of a plan.
enum Step {
    static var listTools: [String: Any] { ["op": "list_tools"] }
    static func call(_ tool: String, _ args: [String: Any] = [:], progress: Bool = false) -> [String: Any] {
        ["op": "call", "tool": tool, "args": args, "progress": progress]
    }
    static func subscribe(_ uri: String) -> [String: Any] { ["op": "subscribe", "uri": uri] }
    static func read(_ uri: String) -> [String: Any] { ["op": "read_resource", "uri": uri] }
    static var listResources: [String: Any] { ["op": "list_resources"] }
    static func write(_ path: String, _ content: String) -> [String: Any] { ["op": "write_file", "path": path, "content": content] }
    static func waitUpdate(_ uri: String, timeout: Double = 60) -> [String: Any] { ["op": "wait_update", "uri": uri, "timeout": timeout] }
}

extension Trait where Self == ConditionTrait {
    /// For a test that drives fsindex-mcp with the official Python client.
    static var mcpClient: Self { .enabled(if: MCPClient.isAvailable, Comment(rawValue: MCPClient.skipReason)) }
}
