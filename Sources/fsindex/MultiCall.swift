import Agent
import DaemonCommand
import FindCommand
import SystemCalls

/// One executable for fsindex, fsindexd, fsindex-mcp and fsfind-direct, which it becomes by the
/// name it is started under (argv[0]'s last component), as busybox does. Each of the four is a
/// static executable of about 50 MB, most of it the same Swift runtime, Foundation, ICU and
/// SQLite; as one they install in a quarter of the space (issue 26). The package installs the
/// other three names as links to this file; a build from source also has each on its own.
/// `fsfind` is a name too: the small fsfind replaces itself with fsfind-direct keeping its argv.
@main
enum MultiCall {
    enum Tool: Equatable {
        case index, daemon, agent, find
    }

    /// The tool a base name stands for; any other name is `fsindex` itself.
    static func tool(invokedAs argv0: String?) -> Tool {
        let name = argv0.map { $0.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? $0 } ?? ""
        switch name {
        case "fsindexd": return .daemon
        case "fsindex-mcp": return .agent
        case "fsfind", "fsfind-direct": return .find
        default: return .index
        }
    }

    static func main() async {
        switch tool(invokedAs: CommandLine.arguments.first) {
        case .daemon:
            FSIndexDaemon.prepareProcess()   // before the first await (see there)
            await FSIndexDaemon.main()
        case .agent: await FSIndexMCP.main()
        case .find: await FSFind.main()
        case .index: FSIndexCommand.main()
        }
    }
}
