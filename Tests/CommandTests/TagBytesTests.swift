import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("fsindex tag: tags given as bytes (issue 22, F18)", .blocking, .serialized, .userXattrs)
struct TagBytesTests {
    @Test("a tag that is not UTF-8 is refused by name and nothing is written; a UTF-8 one, also one near U+10FFFF, is written as its bytes")
    func notUTF8() throws {
        let tree = try TemporaryTree(prefix: "fsindex-tagbytes")
        let env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "XDG_RUNTIME_DIR": tree.path("run").string,
                   "XDG_CONFIG_HOME": tree.path("config").string]
        let a = try tree.create("root/a.txt", contents: "first file")
        try TestXattrs.set(a, "user.xdg.tags", "keep")
        let fsindex = Binaries.directory.appendingPathComponent("fsindex").path
        // The shell passes the byte 0xFF itself (Process would pass only UTF-8).
        let refused = try run(executable: "/bin/sh", ["-c", "\"$1\" tag \"$2\" +ok \"+$(printf 'bad\\377')\"", "sh", fsindex, a.string],
                              env: env, timeout: 60)
        #expect(refused.status == 2, "\(refused.out)\(refused.stderr)")
        #expect(refused.stderr.contains("+bad\\xFF holds bytes that are not UTF-8 text"), "\(refused.stderr)")
        #expect(TestXattrs.get(a, "user.xdg.tags") == "keep")
        // A real code point of the range that carries bytes (U+10FFFF, private use) is a tag.
        let high = try run("fsindex", ["tag", a.string, "+x\u{10FFFF}"], env: env)
        #expect(high.status == 0, "\(high.stderr)")
        #expect(TestXattrs.get(a, "user.xdg.tags") == "keep,x\u{10FFFF}")
    }
}
