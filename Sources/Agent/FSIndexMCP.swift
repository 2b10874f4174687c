import CommandSupport
import ArgumentParser
import Configuration
import Foundation
import Indexing
import Logging
import SystemCalls
import SystemPackage

/// `fsindex-mcp`: the index as a tool for language-model agents, over MCP on stdio (Apple's
/// SpotlightSearchTool with a FileSource, for Linux). Read-only: it never writes the index,
/// never runs a program, and never shows a file outside its scopes or one the user cannot read.
/// A library command, run by the `fsindex-mcp` executable and by the multi-call `fsindex`.
package struct FSIndexMCP: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "fsindex-mcp",
        abstract: "Serve the index to language-model agents over the Model Context Protocol (stdio).",
        discussion: """
            Add it to an MCP client as a stdio server, e.g. in "mcpServers":
              "files": {"command": "fsindex-mcp", "args": ["--scope", "/home/ada/Documents"]}
            Tools: search, count, table, statistic, read_text, describe.
            Options override [agent] of the config. Logs go to stderr.
            """)

    @OptionGroup var index: IndexOptions

    @Option(name: .long, help: ArgumentHelp("A folder the agent may search (repeatable; default: [agent] scopes, else the index's roots).", valueName: "dir"))
    var scope: [String] = []

    @Option(name: .customLong("max-results"), help: ArgumentHelp("Results per search at most (default 20, at most 200).", valueName: "n"))
    var maxResults: Int?

    @Option(name: .long, help: ArgumentHelp("full (JSON per item) or compact (one line per item).", valueName: "format"))
    var format: String?

    @Option(name: .long, help: ArgumentHelp("complete, focused:KIND,... or dynamic:TECHNIQUE,... (text, names, dates, numbers, people, places).", valueName: "guidance"))
    var guidance: String?

    @Flag(name: .long, help: "Log each call to stderr.")
    var verbose = false

    package static func main() async {
        await main(ArgumentBytes.arguments())
    }

    package init() {}

    package func run() async throws {
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = .warning
            return h
        }
        var logger = Logger(label: "fsindex-mcp")
        logger.logLevel = verbose ? .debug : .warning
        let location = index.location()
        let session = try ToolRun.reporting("fsindex-mcp") {
            var options = try AgentOptions.load(settings: try index.settings(), location: location, scopes: scope, maxResults: maxResults,
                                                format: format, guidance: guidance)
            // With the shared index, give --scope: its files are not this machine's roots.
            if let url = index.indexURL { options.sharedURL = url }
            return AgentSession(options: options, location: location)
        }
        logger.info("serving \(session.options.scopes.display.joined(separator: ", ")) from \(location.directory.string)")
        try await AgentServer.run(session, version: "0.12.0", logger: logger)
    }
}
