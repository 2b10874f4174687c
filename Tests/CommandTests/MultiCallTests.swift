import Foundation
import TestSupport
import Testing

/// `fsindex` is also fsindexd, fsindex-mcp and fsfind-direct, by the name it is started under
/// (the package installs those names as links to it).
@Suite("The multi-call fsindex", .blocking)
struct MultiCallTests {
    /// Links named as the package names them, to the built fsindex.
    static func links() throws -> TemporaryTree {
        let tree = try TemporaryTree(prefix: "fsindex-multicall")
        for name in ["fsindexd", "fsindex-mcp", "fsfind-direct", "fsfind", "fsindex-renamed"] {
            #expect(symlink(Binaries.directory.appendingPathComponent("fsindex").path, tree.path(name).string) == 0)
        }
        return tree
    }

    @Test("each name runs its own command: its help, and fsfind-direct's query answered from the index")
    func dispatchesOnItsName() throws {
        let tree = try Self.links()
        func help(_ name: String) throws -> String { try run(executable: tree.path(name).string, ["--help"], timeout: 60).out }
        #expect(try help("fsindexd").contains("USAGE: fsindexd"))
        #expect(try help("fsindex-mcp").contains("USAGE: fsindex-mcp"))
        #expect(try help("fsfind-direct").contains("USAGE: fsfind"))
        #expect(try help("fsfind").contains("--group-by"))
        // Any other name is fsindex itself.
        #expect(try help("fsindex-renamed").contains("USAGE: fsindex <subcommand>"))

        try tree.create("docs/ibis.txt", contents: "a scarlet ibis")
        let env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "FSINDEX_WORKER": Binaries.directory.appendingPathComponent("fsindex-worker").path]
        #expect(try run(executable: tree.path("fsindex-renamed").string, ["index", tree.path("docs").string], env: env, timeout: 120).status == 0)
        let found = try run(executable: tree.path("fsfind-direct").string, ["scarlet"], env: env, timeout: 60)
        #expect(found.lines == [tree.path("docs/ibis.txt").string], "\(found.stderr)")
    }
}
