import Foundation
import SystemPackage
import TestSupport
import Testing

/// Runs the built `fsindex` / `fsfind` binaries as a user would, and captures what they print.
struct CommandResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
    var lines: [String] { out.split(separator: "\n").map(String.init) }
}

enum Binaries {
    /// The folder with the built executables: beside the test bundle, or `FSINDEX_BIN_DIR`.
    static var directory: URL {
        if let d = ProcessInfo.processInfo.environment["FSINDEX_BIN_DIR"] { return URL(fileURLWithPath: d) }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // swift-testing on Linux runs <build>/debug/FSIndexPackageTests.xctest
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("fsindex").path), url.path != "/" {
            url = url.deletingLastPathComponent()
        }
        return url
    }
}

/// Runs a command and waits; `user` runs it as another user through setpriv (tests as root).
@discardableResult
func run(_ tool: String, _ args: [String], env: [String: String] = [:], asUser: String? = nil,
         timeout: TimeInterval = 300) throws -> CommandResult {
    let p = Process()
    let binary = Binaries.directory.appendingPathComponent(tool).path
    if let asUser {
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", "--", binary] + args
    } else {
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
    }
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = "1"
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    // Read both pipes concurrently so a chatty child cannot block.
    nonisolated(unsafe) var errData = Data()
    let errThread = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errThread.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while errThread.isExecuting || !errThread.isFinished { usleep(1000) }
    return CommandResult(status: p.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

/// A tree and an index folder for one CLI test.
struct CLIFixture {
    let tree: TemporaryTree
    var root: String { tree.path("root").string }
    var index: String { tree.path("index").string }

    init() throws {
        tree = try TemporaryTree(prefix: "fsindex-cli")
        try tree.createDirectory("root")
    }

    @discardableResult
    func fsindex(_ args: String...) throws -> CommandResult { try run("fsindex", Array(args), env: ["FSINDEX_INDEX_DIR": index]) }
    @discardableResult
    func fsfind(_ args: String...) throws -> CommandResult { try run("fsfind", Array(args), env: ["FSINDEX_INDEX_DIR": index]) }
}
