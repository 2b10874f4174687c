import ArgumentParser
import Configuration
import Foundation
import Indexing

/// The options every tool takes to say which index it works on, declared once so that their
/// names, help and defaults are the same in fsindex, fsindexd, fsfind and fsindex-mcp.
///
/// For example: `fsfind --index-dir ~/idx --config ./test.toml budget`,
/// `fsindexd --index-url postgres://…` (feed the shared index too),
/// `fsindex status --index-url postgres://…` (its hosts).
package struct IndexOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("index-dir"), help: ArgumentHelp("Folder of the index (default: $FSINDEX_INDEX_DIR, else $XDG_DATA_HOME/fsindex/default).", valueName: "dir"))
    package var indexDir: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("Settings file (default: $XDG_CONFIG_HOME/fsindex/config.toml).", valueName: "file"))
    package var config: String?

    @Option(name: .customLong("index-url"), help: ArgumentHelp("The shared index on a PostgreSQL server (default: [index] url). fsfind, fsindex-mcp and `fsindex show` query it instead of the local index; fsindexd, `fsindex publish`, and `fsindex index` and `donate` after writing, feed it.", valueName: "url"))
    package var indexURL: String?

    package init() {}

    /// The local index (`--index-dir`, else `FSINDEX_INDEX_DIR`, else XDG), a relative folder
    /// taken from `workingDirectory` when given (fsindexd answering for another process).
    package func location(workingDirectory: [UInt8]? = nil,
                         environment: [String: String] = ProcessInfo.processInfo.environment) -> IndexLocation {
        IndexLocation.resolve(explicit: indexDir, environment: environment, workingDirectory: workingDirectory)
    }

    /// The settings (`--config`, else the XDG file, else the defaults), or the error that names
    /// the file and the line at fault, for `ToolRun.reporting` to print (exit 2).
    package func settings() throws(SettingsError) -> Settings {
        try Settings.load(explicit: config)
    }

    /// The options as they were given, to hand to another process of ours (fsindexd starting
    /// itself in the background): exactly what was parsed, nothing added, nothing lost.
    package var arguments: [String] {
        var out: [String] = []
        if let indexDir { out += ["--index-dir", indexDir] }
        if let config { out += ["--config", config] }
        if let indexURL { out += ["--index-url", indexURL] }
        return out
    }
}

/// `--host`: this machine's name in the shared index, for the tools that publish to it
/// (fsindexd, `fsindex publish`) or drop a host's items (`fsindex forget --host`). Apart from
/// `IndexOptions` because the tools that only read have no use for it.
package struct HostOption: ParsableArguments, Sendable {
    @Option(name: .customLong("host"), help: ArgumentHelp("This machine's name in the shared index (default: [index] host, else the host name).", valueName: "name"))
    package var host: String?

    package init() {}

    /// As given, for another process of ours (see `IndexOptions.arguments`).
    package var arguments: [String] { host.map { ["--host", $0] } ?? [] }
}
