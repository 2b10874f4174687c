import Foundation
import TestSupport
import Testing

/// `--group-by extension` and `--group-by folder`: groups no attribute stores, taken from the
/// name and the path (also the MCP table's).
@Suite("fsfind: group by extension and folder", .blocking)
struct GroupByDerivedTests {
    @Test("extensions lowercased after the last dot (none without one); folders as paths")
    func derived() throws {
        let f = try CLIFixture()
        for name in ["a.TXT", "b.txt", "c.tar.gz", "trailing.", "noext", "sub/d.txt", "sub/e.md"] {
            try f.tree.create("root/" + name, contents: "budget \(name)\n")
        }
        let indexed = try f.fsindex("index", f.root)
        #expect(indexed.status == 0, "\(indexed.stderr)")
        let ext = try f.fsfind("--group-by", "extension", "budget")
        #expect(ext.status == 0, "\(ext.stderr)")
        let rows = Dictionary(uniqueKeysWithValues: ext.lines.map { line -> (String, Int) in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            return (String(parts[1]), Int(parts[0]) ?? -1)
        })
        #expect(rows == ["txt": 3, "gz": 1, "md": 1, "(none)": 2], "\(ext.out)")
        let folders = try f.fsfind("--group-by", "folder", "--json", "budget")
        let values = folders.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let counts = Dictionary(uniqueKeysWithValues: values.compactMap { o in (o["value"] as? String).map { ($0, o["count"] as? Int ?? -1) } })
        #expect(counts == [f.root: 5, f.root + "/sub": 2], "\(folders.out)")
    }
}
