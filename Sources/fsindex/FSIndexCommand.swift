import SystemCalls
import Configuration
import ArgumentParser
import CommandSupport
import SharedIndex

struct FSIndexCommand: ParsableCommand {
    /// Parses the process's arguments as bytes (`ArgumentBytes`), so a path that is not UTF-8
    /// keeps its bytes instead of turning into U+FFFD.
    ///
    /// glibc's malloc gives each thread that allocates an arena of its own (up to 8 per core),
    /// and a crawl's extraction, writer and reader threads each left theirs part-empty: two
    /// arenas took 13 MiB off a first index's peak (152 → 139 MiB) at no measurable cost.
    static func main() {
        SystemCall.limitMallocArenas(2)
        main(ArgumentBytes.arguments())
    }

    static let configuration = CommandConfiguration(
        commandName: "fsindex",
        abstract: "Manage the FSIndex file index.",
        discussion: """
            Examples:
              fsindex setup                      index the XDG folders: write the config, start fsindexd
              fsindex index ~/Documents          index a folder (again: only what changed)
              fsindex show ~/Documents/report.pdf   the attributes stored for one file
              fsindex status                     roots, counts per kind, index size
              fsindex check                      compare the index with the disk
              fsindex reindex [PATH...]          read items again (asks fsindexd when it runs)
              fsindex used PATH...               record that you used files (ranks them higher)
              fsindex tag FILE +work -draft      add and remove tags (fsfind tag:work finds them)
              fsindex thumbnail FILE             the path of its thumbnail (made when missing)
              fsindex donate --domain notes F    an app's items, JSON lines, in one batch
              fsindex forget --domain notes      delete an app's items (--id ID: some of them)
              fsindex pause | resume             hold or resume fsindexd's indexing
              fsindex erase                      delete the index
              fsindex publish --index-url URL    send this machine's items to a shared PostgreSQL index
              fsindex forget --host NAME         drop a host's items from the shared index

            The index lives in $XDG_DATA_HOME/fsindex/default/ (~/.local/share/fsindex/default/)
            unless --index-dir or FSINDEX_INDEX_DIR says otherwise. Settings are read from
            $XDG_CONFIG_HOME/fsindex/config.toml or --config FILE.
            """,
        subcommands: [Setup.self, IndexCommand.self, Show.self, Extract.self, Failures.self, Status.self, Check.self, Reindex.self, Used.self, Suggest.self, Tag.self, Thumbnail.self, Pause.self, Resume.self, Erase.self, Donate.self, Forget.self, Publish.self, Open.self, SearchProvider.self])
}

extension IndexOptions {
    /// The shared index's URL, when one is given or configured.
    func sharedURL() throws -> SharedIndexURL? {
        guard let text = try settings().index.sharedURL(explicit: indexURL) else { return nil }
        return try SharedIndexURL(text)
    }
}

extension HostOption {
    /// The host name items are published under: `--host`, else `[index] host`, else the
    /// machine's name.
    func hostName(_ options: IndexOptions) throws -> String? {
        if let host { return host }
        return try options.settings().index.hostName(explicit: nil)
    }
}
