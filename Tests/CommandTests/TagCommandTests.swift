import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("fsindex tag", .blocking, .serialized, .userXattrs)
struct TagCommandTests {
    @Test("adds and removes tags (order kept, no duplicates), prints them, and updates the index without fsindexd")
    func addRemovePrint() throws {
        let tree = try TemporaryTree(prefix: "fsindex-tag")
        let env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "XDG_RUNTIME_DIR": tree.path("run").string,
                   "XDG_CONFIG_HOME": tree.path("config").string]
        let a = try tree.create("root/a.txt", contents: "first file")
        let b = try tree.create("root/b.txt", contents: "second file")
        try TestXattrs.set(a, "user.xdg.tags", "keep")
        let indexed = try run("fsindex", ["index", tree.path("root").string], env: env)
        #expect(indexed.status == 0, "\(indexed.stderr)")

        let added = try run("fsindex", ["tag", a.string, b.string, "+work", "+Draft"], env: env)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.lines == ["\(a.string): keep, work, Draft", "\(b.string): work, Draft"])
        #expect(TestXattrs.get(a, "user.xdg.tags") == "keep,work,Draft")

        let again = try run("fsindex", ["tag", a.string, "+WORK", "-draft", "+final"], env: env)
        #expect(again.lines == ["\(a.string): keep, work, final"])
        #expect(try run("fsindex", ["tag", b.string], env: env).lines == ["\(b.string): work, Draft"])

        // No daemon runs: the command updated the items itself.
        #expect(Set(try run("fsfind", ["tag:work"], env: env).lines) == [a.string, b.string])
        #expect(try run("fsfind", ["tag:final"], env: env).lines == [a.string])
        #expect(try run("fsfind", ["tag:draft"], env: env).lines == [b.string])

        let emptied = try run("fsindex", ["tag", b.string, "-work", "-draft"], env: env)
        #expect(emptied.lines == ["\(b.string): (no tags)"])
        #expect(TestXattrs.get(b, "user.xdg.tags") == nil)
        #expect(try run("fsfind", ["tag:work"], env: env).lines == [a.string])
    }

    @Test("refuses what cannot be tagged, with a clear message: no xattrs on the file system, a symlink, a comma")
    func errors() throws {
        let tree = try TemporaryTree(prefix: "fsindex-tag")
        let env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "XDG_RUNTIME_DIR": tree.path("run").string]
        let file = try tree.create("f.txt", contents: "x")
        try tree.symlink("link", to: "f.txt")

        let proc = try run("fsindex", ["tag", "/proc/version", "+work"], env: env)
        #expect(proc.status == 2)
        #expect(proc.stderr.contains("the file system of /proc/version does not store tags (extended attributes)"), "\(proc.stderr)")

        let link = try run("fsindex", ["tag", tree.path("link").string, "+work"], env: env)
        #expect(link.status == 2)
        #expect(link.stderr.contains("is a symbolic link"), "\(link.stderr)")
        #expect(TestXattrs.get(file, "user.xdg.tags") == nil)

        let comma = try run("fsindex", ["tag", file.string, "+a,b"], env: env)
        #expect(comma.status == 2 && comma.stderr.contains("holds a comma"))

        // One bad path does not stop the others.
        let mixed = try run("fsindex", ["tag", "/proc/version", file.string, "+ok"], env: env)
        #expect(mixed.status == 2)
        #expect(mixed.lines == ["\(file.string): ok"])
    }

    @Test("with fsindexd running, a tag change arrives through IN_ATTRIB")
    func throughDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            let file = try d.tree.create("root/plan.txt", contents: "harbour plan")
            try d.start()
            #expect(try d.find("tag:work").isEmpty)
            let tagged = try d.fsindex("tag", file.string, "+work")
            #expect(tagged.status == 0, "\(tagged.stderr)")
            try d.waitFor("the tag through IN_ATTRIB") { try d.find("tag:work") == [file.string] }
            try TestXattrs.set(file, "user.xdg.comment", "zeppelin hangar")
            try d.waitFor("the comment through IN_ATTRIB") { try d.find("zeppelin") == [file.string] }
            #expect(try d.find("harbour") == [file.string])   // the text is still there
        }
    }
}
