import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 22's faults of the shared index, with the built binaries, a real PostgreSQL and a real
/// second user (`nobody`): permissions that change after publishing (F2), a NUL in a text value
/// (F3, F16), one refused item among many, and fsindexd publishing only what it watches.
@Suite("Shared index faults (issue 22)", .blocking, .postgres)
struct SharedIndexFaultTests {
    /// A fresh database, with the role `nobody` (peer authentication: only uid 65534 gets it).
    static func database() throws -> (ThrowawayPostgres, String) {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        try? pg.psql("postgres", "CREATE ROLE nobody LOGIN")
        return (pg, db)
    }

    /// What `nobody` finds in the shared index.
    static func findAsNobody(_ pg: ThrowawayPostgres, _ db: String, _ args: String...) throws -> Set<String> {
        let r = try run("fsfind", ["--index-url", pg.url(database: db, user: "nobody")] + args, asUser: "65534")
        #expect(r.status == 0 || r.status == 1, "\(args): \(r.stderr)")
        return Set(r.lines)
    }

    /// Opens every folder from `path` up to `/` to others (the temporary folder may not be):
    /// adds read and search for others, keeping every other bit. Setting 0755 outright took
    /// /tmp's sticky bit and its write permission for all (apt-key and other users' tests then
    /// failed on the same machine).
    static func openUpwards(_ path: FilePath) {
        var folder = path
        while folder.string != "/" {
            var st = stat()
            if stat(folder.string, &st) == 0, st.st_mode & 0o005 != 0o005 { chmod(folder.string, (st.st_mode & 0o7777) | 0o005) }
            folder = folder.removingLastComponent()
        }
    }

    static func indexAndPublish(_ tree: TemporaryTree, _ url: String, roots: [String]) throws -> CommandResult {
        let i = try run("fsindex", ["index", "--index-dir", tree.path("index").string] + roots)
        #expect(i.status == 0, "\(i.stderr)")
        return try run("fsindex", ["publish", "--index-dir", tree.path("index").string, "--index-url", url, "--host", "h"])
    }

    /// The binary form of a POSIX access ACL (`system.posix_acl_access`): version 2, then
    /// (tag, permissions, id) entries in the kernel's order.
    static func acl(_ entries: [(tag: UInt16, perm: UInt16, id: UInt32)]) -> [UInt8] {
        var out: [UInt8] = [2, 0, 0, 0]
        for e in entries {
            out += [UInt8(e.tag & 0xff), UInt8(e.tag >> 8), UInt8(e.perm), 0]
            out += [UInt8(e.id & 0xff), UInt8((e.id >> 8) & 0xff), UInt8((e.id >> 16) & 0xff), UInt8(e.id >> 24)]
        }
        return out
    }

    @Test("issue 22 F2: chmod 700 of a folder inside the root or above it, or an ACL that denies, hides what is below from another user after index and publish",
          .needsRoot)
    func folderPermissionsFollow() throws {
        let (pg, db) = try Self.database()
        let url = pg.url(database: db)
        let tree = try TemporaryTree(prefix: "fsindex-shared-chmod")
        try tree.create("top/root/open/top.txt", contents: "yak at the top")
        try tree.create("top/root/open/sub/inner.txt", contents: "yak inside the subfolder")
        Self.openUpwards(tree.path("top/root/open/sub"))
        chmod(tree.path("top/root/open/top.txt").string, 0o644)
        chmod(tree.path("top/root/open/sub/inner.txt").string, 0o644)
        let root = tree.path("top/root").string
        let top = tree.path("top/root/open/top.txt").string, inner = tree.path("top/root/open/sub/inner.txt").string
        var p = try Self.indexAndPublish(tree, url, roots: [root])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try Self.findAsNobody(pg, db, "yak") == [top, inner])
        // Another role may read the status, the failures table's counts included (not its paths).
        let status = try run("fsindex", ["status", "--index-url", pg.url(database: db, user: "nobody")], asUser: "65534")
        #expect(status.status == 0 && status.out.contains("h: "), "\(status.out) \(status.stderr)")
        let paths = try run(executable: pg.bin + "/psql", ["-h", pg.folder, "-p", String(pg.port), "-U", "nobody", "-d", db, "-Atc", "SELECT path FROM failures"],
                            asUser: "65534", timeout: 30)
        #expect(paths.status != 0 && paths.stderr.contains("permission denied"), "\(paths.out) \(paths.stderr)")

        // The owner closes the subfolder: nobody can no longer read inside it, nor find it.
        chmod(tree.path("top/root/open/sub").string, 0o700)
        #expect(try run(executable: "/bin/cat", [inner], asUser: "65534", timeout: 30).status != 0)
        p = try Self.indexAndPublish(tree, url, roots: [root])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try Self.findAsNobody(pg, db, "yak") == [top])
        #expect(try Self.findAsNobody(pg, db, "name:inner.txt").isEmpty)
        #expect(try Self.findAsNobody(pg, db, "--snippet", "subfolder").isEmpty)
        // Opened again, it is found again.
        chmod(tree.path("top/root/open/sub").string, 0o755)
        p = try Self.indexAndPublish(tree, url, roots: [root])
        #expect(try Self.findAsNobody(pg, db, "yak") == [top, inner])

        // A folder above the root is no item of the local index; publishing still sees it.
        chmod(tree.path("top").string, 0o700)
        p = try Self.indexAndPublish(tree, url, roots: [root])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try Self.findAsNobody(pg, db, "yak").isEmpty)
        chmod(tree.path("top").string, 0o755)
        p = try Self.indexAndPublish(tree, url, roots: [root])
        #expect(try Self.findAsNobody(pg, db, "yak") == [top, inner])

        // An ACL entry that denies nobody, with the mode still 0755.
        let deny = Self.acl([(0x01, 7, UInt32.max), (0x02, 0, 65534), (0x04, 5, UInt32.max), (0x10, 5, UInt32.max), (0x20, 5, UInt32.max)])
        if (try? TestXattrs.set(tree.path("top/root/open"), "system.posix_acl_access", bytes: deny)) != nil {
            #expect(try run(executable: "/bin/cat", [top], asUser: "65534", timeout: 30).status != 0)
            p = try Self.indexAndPublish(tree, url, roots: [root])
            #expect(p.status == 0, "\(p.stderr)")
            #expect(try Self.findAsNobody(pg, db, "yak").isEmpty)
        } else {
            print("the temporary folder's file system takes no POSIX ACL; the ACL part was not run")
        }
    }

    @Test("issue 22 F2: fsindexd --index-url follows a chmod 700 of a watched subfolder to the shared index", .needsRoot)
    func daemonFollowsChmod() async throws {
        try await offPool {
            let (pg, db) = try Self.database()
            let url = pg.url(database: db)
            let d = try DaemonFixture()
            try d.tree.create("root/top.txt", contents: "gnu on top")
            try d.tree.create("root/sub/inner.txt", contents: "gnu inside")
            Self.openUpwards(d.tree.path("root/sub"))
            chmod(d.tree.path("root/top.txt").string, 0o644)
            chmod(d.tree.path("root/sub/inner.txt").string, 0o644)
            let top = d.tree.path("root/top.txt").string, inner = d.tree.path("root/sub/inner.txt").string
            try d.start(["--root", d.root, "--index-url", url, "--host", "h"])
            try d.waitFor("nobody to find both files", seconds: 60) { try Self.findAsNobody(pg, db, "gnu") == [top, inner] }
            chmod(d.tree.path("root/sub").string, 0o700)
            try d.waitFor("the closed subfolder to leave nobody's answers", seconds: 30) { try Self.findAsNobody(pg, db, "gnu") == [top] }
            chmod(d.tree.path("root/sub").string, 0o755)
            try d.waitFor("the opened subfolder to come back", seconds: 30) { try Self.findAsNobody(pg, db, "gnu") == [top, inner] }
            d.stop()
        }
    }

    @Test("issue 22 F3 F16: a NUL in a comment xattr or a donated title is a space: the word after it is found in SQLite and in PostgreSQL, and every domain publishes",
          .userXattrs)
    func nulIsASpace() throws {
        let (pg, db) = try Self.database()
        let url = pg.url(database: db)
        let tree = try TemporaryTree(prefix: "fsindex-shared-nul")
        try tree.create("root/commented.txt", contents: "plain body")
        try TestXattrs.set(tree.path("root/commented.txt"), "user.xdg.comment", bytes: Array("draft\0omegafinal".utf8))
        try tree.create("notes.jsonl", contents: "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"alpha\\u0000zetaword\"}}\n")
        let index = tree.path("index").string
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        let donate = try run("fsindex", ["donate", "--index-dir", index, "--domain", "notes", tree.path("notes.jsonl").string])
        #expect(donate.status == 0, "\(donate.stderr)")
        let commented = tree.path("root/commented.txt").string
        // SQLite (F16): the words after the NUL are words.
        let local = try run("fsfind", ["--index-dir", index, "omegafinal"])
        #expect(local.lines == [commented], "\(local.out) \(local.stderr)")
        let localTitle = try run("fsfind", ["--index-dir", index, "--count", "zetaword"])
        #expect(localTitle.lines == ["1"], "\(localTitle.out) \(localTitle.stderr)")
        let show = try run("fsindex", ["show", "--index-dir", index, "--json", commented])
        #expect(show.out.contains("\"draft omegafinal\""), "\(show.out)")
        // PostgreSQL (F3): published, the root and the domain after it.
        let p = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "h"])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.out.contains("(2 domains"), "\(p.out)")
        let shared = try run("fsfind", ["--index-url", url, "omegafinal"])
        #expect(shared.lines == [commented], "\(shared.out) \(shared.stderr)")
        let sharedTitle = try run("fsfind", ["--index-url", url, "--count", "zetaword"])
        #expect(sharedTitle.lines == ["1"], "\(sharedTitle.out) \(sharedTitle.stderr)")
    }

    @Test("issue 22 F3: an item PostgreSQL refuses (a path too long for its index) is left out and recorded; the others and the domains after it publish")
    func refusedItemIsIsolated() throws {
        let (pg, db) = try Self.database()
        let url = pg.url(database: db)
        let tree = try TemporaryTree(prefix: "fsindex-shared-refused")
        try tree.create("root/ok.txt", contents: "kiwi is fine")
        // 12 folders of 240 random letters: about 2,900 bytes that do not compress, more than
        // a btree entry of PostgreSQL takes (2,704).
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let long = (0..<12).map { _ in String((0..<240).map { _ in letters.randomElement()! }) }.joined(separator: "/")
        try tree.create("root/" + long + "/deep.txt", contents: "kiwi deep down")
        try tree.create("notes.jsonl", contents: "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"kiwi note\"}}\n")
        let index = tree.path("index").string
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        #expect(try run("fsindex", ["donate", "--index-dir", index, "--domain", "notes", tree.path("notes.jsonl").string]).status == 0)
        let p = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "h"])
        #expect(p.status == 2, "\(p.out) \(p.stderr)")
        #expect(p.stderr.contains("deep.txt: not published") && p.stderr.contains("54000"), "\(p.stderr)")
        let found = try run("fsfind", ["--index-url", url, "kiwi"])
        #expect(found.lines.contains(tree.path("root/ok.txt").string) && !found.out.contains("deep.txt"), "\(found.out) \(found.stderr)")
        #expect(try run("fsfind", ["--index-url", url, "--count", "kiwi"]).lines == ["2"])
        #expect(try run("fsfind", ["--index-url", url, "--count", "kiwi note"]).lines == ["1"])
        // fsindex status says what was left out.
        let status = try run("fsindex", ["status", "--index-url", url])
        #expect(status.out.contains("not published in \(tree.path("root").string): 1 (") && status.out.contains("54000"), "\(status.out)")
        // Once the item is gone, the next pass clears the record.
        try FileManager.default.removeItem(atPath: tree.path("root/" + String(long.prefix(240))).string)
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        let again = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "h"])
        #expect(again.status == 0, "\(again.stderr)")
        let cleared = try run("fsindex", ["status", "--index-url", url])
        #expect(!cleared.out.contains("not published"), "\(cleared.out)")
    }

    @Test("issue 22: fsindexd --root R --index-url publishes R and the apps' domains, not the other roots of its local index")
    func daemonPublishesWhatItWatches() async throws {
        try await offPool {
            let (pg, db) = try Self.database()
            let url = pg.url(database: db)
            let d = try DaemonFixture()
            try d.tree.create("root/watched.txt", contents: "quokka watched")
            try d.tree.create("other/unwatched.txt", contents: "quokka not watched")
            try d.tree.create("notes.jsonl", contents: "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"quokka note\"}}\n")
            #expect(try d.fsindex("index", d.root, d.tree.path("other").string).status == 0)
            #expect(try d.fsindex("donate", "--domain", "notes", d.tree.path("notes.jsonl").string).status == 0)
            try d.start(["--root", d.root, "--index-url", url, "--host", "h"])
            try d.waitFor("the first full pass", seconds: 60) { d.log.contains("shared index: published") }
            let domains = try pg.psql(db, "SELECT string_agg(domain, ',' ORDER BY domain) FROM domains WHERE host = 'h'")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(domains == "\(d.root),notes", "\(domains)")
            let found = try run("fsfind", ["--index-url", url, "quokka"])
            #expect(!found.out.contains("unwatched.txt"), "\(found.out)")
            #expect(found.lines.contains(d.tree.path("root/watched.txt").string), "\(found.out) \(found.stderr)")
            d.stop()
        }
    }
}
