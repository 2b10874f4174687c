import Foundation
import SystemPackage
import TestSupport
import Testing

/// The mode bits of a path (`st_mode & 07777`).
func modeBits(_ path: String) -> mode_t {
    var st = stat()
    guard stat(path, &st) == 0 else { return 0 }
    return st.st_mode & 0o7777
}

@Suite("The index folder", .blocking)
struct IndexFolderTests {
    @Test("issue 11: --index-dir on an existing folder keeps its mode (as /tmp's 1777); a folder made for the index is 0700, the database 0600")
    func existingFolderKeepsItsMode() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "alpha")
        let shared = try f.tree.createDirectory("shared").string
        #expect(chmod(shared, 0o1777) == 0)
        let r = try run("fsindex", ["index", "--index-dir", shared, f.root])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(modeBits(shared) == 0o1777)
        #expect(modeBits(shared + "/index.sqlite") == 0o600)
        #expect(try run("fsfind", ["--index-dir", shared, "alpha"]).lines == [f.root + "/a.txt"])

        let made = f.tree.path("new/parent/index").string
        #expect(try run("fsindex", ["index", "--index-dir", made, f.root]).status == 0)
        #expect(modeBits(made) == 0o700)
        #expect(modeBits(f.tree.path("new/parent").string) == 0o700)
        #expect(modeBits(made + "/index.sqlite") == 0o600)
    }
}
