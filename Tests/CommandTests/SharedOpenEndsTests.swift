import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 29's open ends of the shared PostgreSQL index, with the built binaries and a real
/// server: `index`/`donate --index-url` publish, `show --index-url` reads the shared index,
/// results name their host where two hosts hold the path, and POSIX ACLs decide who sees a row
/// (with real users: `daemon` granted by ACL entries, `nobody` not).
@Suite("Shared index open ends (issue 29)", .blocking, .postgres)
struct SharedOpenEndsTests {
    /// A URL whose server cannot be reached: an empty socket folder.
    static func unreachableURL(_ tree: TemporaryTree) throws -> String {
        let folder = try tree.createDirectory("no-server")
        return "postgresql://fsindex@/fsindex?host=\(folder.string)&port=5432"
    }

    static func find(_ url: String, _ args: String...) throws -> [String] {
        let r = try run("fsfind", ["--index-url", url] + args)
        #expect(r.status == 0 || r.status == 1, "\(args): \(r.stderr)")
        return r.lines
    }

    static func jsonLines(_ r: CommandResult) -> [[String: Any]] {
        r.lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test("fsindex index --index-url and donate --index-url publish what they wrote, as publish would; an unreachable server is exit 2 and the local index keeps it")
    func indexAndDonatePublish() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-openends-publish")
        let index = tree.path("index").string
        let root = tree.path("root").string
        try tree.create("root/a.txt", contents: "the first narwhal")
        var r = try run("fsindex", ["index", "--index-dir", index, "--index-url", url, "--host", "h", root])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("published 2 items") && r.out.contains("as host h"), "\(r.out)")
        #expect(try SharedIndexCommandTests.status(url) == ["h": 2])
        #expect(try Self.find(url, "narwhal") == [tree.path("root/a.txt").string])

        // A new file and a removed one: the next index sends both changes.
        try tree.create("root/b.txt", contents: "the second narwhal")
        try FileManager.default.removeItem(atPath: tree.path("root/a.txt").string)
        r = try run("fsindex", ["index", "--index-dir", index, "--index-url", url, "--host", "h", root])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("published 2 items and removed 1"), "\(r.out)")
        #expect(try Self.find(url, "narwhal") == [tree.path("root/b.txt").string])

        // A donation goes on to the shared index, its domain only.
        try tree.create("notes.jsonl", contents: "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"donated okapi\"}}\n")
        r = try run("fsindex", ["donate", "--index-dir", index, "--index-url", url, "--host", "h", "--domain", "notes", tree.path("notes.jsonl").string])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("donated 1 items") && r.out.contains("published 1 items"), "\(r.out)")
        #expect(try Self.find(url, "--count", "okapi") == ["1"])
        #expect(try SharedIndexCommandTests.status(url) == ["h": 3])

        // Another watcher (another local index) of the same host cannot take the domain.
        r = try run("fsindex", ["index", "--index-dir", tree.path("index2").string, "--index-url", url, "--host", "h", root])
        #expect(r.status == 2 && r.stderr.contains("is published by another watcher"), "\(r.out) \(r.stderr)")

        // The server cannot be reached: said, exit 2, and the local index has what was written.
        let away = try Self.unreachableURL(tree)
        try tree.create("root/c.txt", contents: "the third narwhal")
        r = try run("fsindex", ["index", "--index-dir", index, "--index-url", away, "--host", "h", root])
        #expect(r.status == 2, "\(r.out) \(r.stderr)")
        #expect(r.stderr.contains("cannot reach") && r.stderr.contains("not published"), "\(r.stderr)")
        #expect(try run("fsfind", ["--index-dir", index, "--count", "narwhal"]).lines == ["2"])
        try tree.create("more.jsonl", contents: "{\"uniqueIdentifier\": \"n2\", \"attributes\": {\"title\": \"another okapi\"}}\n")
        r = try run("fsindex", ["donate", "--index-dir", index, "--index-url", away, "--domain", "notes", tree.path("more.jsonl").string])
        #expect(r.status == 2 && r.stderr.contains("cannot reach"), "\(r.out) \(r.stderr)")
        #expect(try run("fsfind", ["--index-dir", index, "--count", "okapi"]).lines == ["2"])
        // And `fsindex publish` sends them once the server is there.
        r = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "h"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.find(url, "--count", "narwhal") == ["2"])
        #expect(try Self.find(url, "--count", "okapi") == ["2"])
    }

    @Test("fsindex index --index-url leaves out what the server refuses, records it in the failures table and exits 2; the rest is published")
    func indexRecordsFailures() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-openends-refused")
        try tree.create("root/ok.txt", contents: "tapir is fine")
        // A path longer than a btree entry of PostgreSQL takes (see SharedIndexFaultTests).
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let long = (0..<12).map { _ in String((0..<240).map { _ in letters.randomElement()! }) }.joined(separator: "/")
        try tree.create("root/" + long + "/deep.txt", contents: "tapir deep down")
        let r = try run("fsindex", ["index", "--index-dir", tree.path("index").string, "--index-url", url, "--host", "h", tree.path("root").string])
        #expect(r.status == 2, "\(r.out) \(r.stderr)")
        #expect(r.stderr.contains("deep.txt: not published") && r.stderr.contains("54000"), "\(r.stderr)")
        #expect(try Self.find(url, "tapir") == [tree.path("root/ok.txt").string])
        let status = try run("fsindex", ["status", "--index-url", url])
        #expect(status.out.contains("not published in \(tree.path("root").string): 1 ("), "\(status.out)")
        // The local index has both.
        #expect(try run("fsfind", ["--index-dir", tree.path("index").string, "--count", "tapir"]).lines == ["2"])
    }

    @Test("the same path on two hosts prints as HOST:PATH and has a host field in JSON; a path of one host prints as before; SQLite's answers are unchanged")
    func hostOfAmbiguousPaths() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-openends-hosts")
        let index = tree.path("index").string
        try tree.create("root/both.txt", contents: "kiwi on both hosts")
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        for host in ["beta", "alpha"] {
            let p = try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", host])
            #expect(p.status == 0, "\(p.stderr)")
        }
        try tree.create("root/only.txt", contents: "kiwi on alpha alone")
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        #expect(try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", "alpha"]).status == 0)
        let both = tree.path("root/both.txt").string, only = tree.path("root/only.txt").string

        #expect(Set(try Self.find(url, "kiwi")) == ["alpha:" + both, "beta:" + both, only])
        #expect(Set(try Self.find(url, "-0", "kiwi").joined().split(separator: "\0").map(String.init)) == ["alpha:" + both, "beta:" + both, only])
        // Decided over the index, not the page: one result of two still names its host.
        let first = try Self.find(url, "--limit", "1", "--sort", "name", "name:both")
        #expect(first.count == 1 && (first == ["alpha:" + both] || first == ["beta:" + both]), "\(first)")
        let json = Self.jsonLines(try run("fsfind", ["--index-url", url, "--json", "kiwi"]))
        #expect(json.count == 3)
        var hosts: [String: Set<String>] = [:]
        for o in json { hosts[o["path"] as? String ?? "?", default: []].insert(o["host"] as? String ?? "(none)") }
        #expect(hosts == [both: ["alpha", "beta"], only: ["(none)"]], "\(json)")
        #expect(try Self.find(url, "--count", "kiwi") == ["3"])
        // The local index knows one host: paths as ever.
        let local = try run("fsfind", ["--index-dir", index, "kiwi"])
        #expect(Set(local.lines) == [both, only], "\(local.out)")
        #expect(!(Self.jsonLines(try run("fsfind", ["--index-dir", index, "--json", "kiwi"])).contains { $0["host"] != nil }))
    }

    @Test("fsindex show --index-url reads the item from the shared index: every host that holds it, its name first, --host one of them, JSON one line each")
    func showShared() throws {
        let pg = try ThrowawayPostgres.shared()
        let url = try pg.makeDatabase()
        let tree = try TemporaryTree(prefix: "fsindex-openends-show")
        let index = tree.path("index").string
        let file = try tree.create("root/report.txt", contents: "The quarterly report of the shared index, read from the server.").string
        #expect(try run("fsindex", ["index", "--index-dir", index, tree.path("root").string]).status == 0)
        for host in ["beta", "alpha"] {
            #expect(try run("fsindex", ["publish", "--index-dir", index, "--index-url", url, "--host", host]).status == 0)
        }
        // Gone from the local index: what show prints comes from the server.
        let localJSON = Self.jsonLines(try run("fsindex", ["show", "--index-dir", index, "--json", file]))
        let localText = try run("fsindex", ["show", "--index-dir", index, file]).lines
        #expect(localJSON.count == 1 && localText.contains { $0.hasPrefix("textContent") })
        #expect(try run("fsindex", ["erase", "--index-dir", index]).status == 0)
        #expect(try run("fsindex", ["show", "--index-dir", index, file]).status != 0)

        let shown = try run("fsindex", ["show", "--index-url", url, "--json", file])
        #expect(shown.status == 0, "\(shown.stderr)")
        let objects = Self.jsonLines(shown)
        #expect(objects.map { $0["host"] as? String } == ["alpha", "beta"], "\(shown.out)")
        for var o in objects {
            o["host"] = nil
            #expect(NSDictionary(dictionary: o) == NSDictionary(dictionary: localJSON[0]), "\(o) / \(localJSON[0])")
        }
        let text = try run("fsindex", ["show", "--index-url", url, file])
        #expect(text.status == 0, "\(text.stderr)")
        let blocks = text.out.components(separatedBy: "\n\n").map { $0.split(separator: "\n").map(String.init) }
        #expect(blocks.count == 2, "\(text.out)")
        for (block, host) in zip(blocks, ["alpha", "beta"]) {
            #expect(block.first?.replacingOccurrences(of: " ", with: "") == "host=\"\(host)\"", "\(block)")
            // The attributes as the local show printed them (aligned to the same width).
            #expect(block.dropFirst().map { $0.replacingOccurrences(of: " ", with: "") } == localText.map { $0.replacingOccurrences(of: " ", with: "") }, "\(block)")
        }
        let one = try run("fsindex", ["show", "--index-url", url, "--host", "beta", "--json", file])
        #expect(Self.jsonLines(one).map { $0["host"] as? String } == ["beta"], "\(one.out) \(one.stderr)")
        #expect(try run("fsindex", ["show", "--index-url", url, "--host", "gamma", file]).status == 1)
        #expect(try run("fsindex", ["show", "--index-url", url, tree.path("root/none.txt").string]).status == 1)
        // --host means a shared index's host.
        let misplaced = try run("fsindex", ["show", "--index-dir", index, "--host", "beta", file])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--index-url"), "\(misplaced.stderr)")
    }

    static let hasSetfacl = FileManager.default.isExecutableFile(atPath: "/usr/bin/setfacl")

    static func setfacl(_ args: String...) throws {
        let r = try run(executable: "/usr/bin/setfacl", args, timeout: 30)
        #expect(r.status == 0, "setfacl \(args): \(r.stderr)")
    }

    @Test("fsindexd --index-url follows setfacl to the shared index: an entry given, then taken away",
          .needsRoot, .enabled(if: hasSetfacl, "needs setfacl (Debian's acl package)"))
    func daemonFollowsACL() async throws {
        try await offPool {
            let pg = try ThrowawayPostgres.shared()
            let db = try pg.makeDatabaseNamed()
            try? pg.psql("postgres", "CREATE ROLE daemon LOGIN")
            let d = try DaemonFixture()
            let secret = try d.tree.create("root/secret.txt", contents: "margay kept from others").string
            let open = try d.tree.create("root/open.txt", contents: "margay for all").string
            SharedIndexFaultTests.openUpwards(d.tree.path("root"))
            chmod(secret, 0o600)
            chmod(open, 0o644)
            func daemonFinds() throws -> Set<String> {
                let f = try run("fsfind", ["--index-url", pg.url(database: db, user: "daemon"), "margay"], asUser: "1")
                return Set(f.lines)
            }
            try d.start(["--root", d.root, "--index-url", pg.url(database: db), "--host", "h"])
            try d.waitFor("daemon to find the open file", seconds: 60) { try daemonFinds() == [open] }
            try Self.setfacl("-m", "u:daemon:r", secret)
            try d.waitFor("the ACL entry to reach the shared index", seconds: 30) { try daemonFinds() == [secret, open] }
            try Self.setfacl("-x", "u:daemon", secret)
            try d.waitFor("the entry's removal to reach the shared index", seconds: 30) { try daemonFinds() == [open] }
            d.stop()
        }
    }

    @Test("an ACL entry lets a user find a file the mode keeps from them, and not a third user; a folder searchable through an ACL; the mask limits a named entry",
          .needsRoot, .enabled(if: hasSetfacl, "needs setfacl (Debian's acl package)"))
    func aclsDecide() throws {
        let pg = try ThrowawayPostgres.shared()
        let db = try pg.makeDatabaseNamed()
        let url = pg.url(database: db)
        try? pg.psql("postgres", "CREATE ROLE nobody LOGIN")
        try? pg.psql("postgres", "CREATE ROLE daemon LOGIN")
        let tree = try TemporaryTree(prefix: "fsindex-openends-acl")
        let user = try tree.create("root/by-user.txt", contents: "ocelot granted to daemon by name").string
        let group = try tree.create("root/by-group.txt", contents: "ocelot granted to the daemon group").string
        let masked = try tree.create("root/masked.txt", contents: "ocelot whose entry the mask empties").string
        let inner = try tree.create("root/closed/inner.txt", contents: "ocelot behind a folder daemon may search").string
        let open = try tree.create("root/open.txt", contents: "ocelot for everyone").string
        let denied = try tree.create("root/denied.txt", contents: "ocelot for all but nobody").string
        SharedIndexFaultTests.openUpwards(tree.path("root"))
        for f in [user, group, masked] { chmod(f, 0o600) }
        chmod(open, 0o644)
        chmod(denied, 0o644)
        chmod(inner, 0o644)
        chmod(tree.path("root/closed").string, 0o700)
        try Self.setfacl("-m", "u:daemon:r", user)
        try Self.setfacl("-m", "g:daemon:r", group)
        try Self.setfacl("-m", "u:daemon:r,m::---", masked)
        try Self.setfacl("-m", "u:daemon:x", tree.path("root/closed").string)
        try Self.setfacl("-m", "u:nobody:---", denied)
        // The kernel agrees: daemon reads the granted files, nobody does not, the mask wins.
        for (file, daemon, nobody) in [(user, true, false), (group, true, false), (masked, false, false), (inner, true, false), (open, true, true), (denied, true, false)] {
            #expect(try run(executable: "/bin/cat", [file], asUser: "1", timeout: 30).status == 0 ? daemon : !daemon, "daemon: \(file)")
            #expect(try run(executable: "/bin/cat", [file], asUser: "65534", timeout: 30).status == 0 ? nobody : !nobody, "nobody: \(file)")
        }
        let r = try SharedIndexFaultTests.indexAndPublish(tree, url, roots: [tree.path("root").string])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Set(try Self.find(url, "ocelot")) == [user, group, masked, inner, open, denied])
        func found(_ role: String, _ uid: String) throws -> Set<String> {
            let f = try run("fsfind", ["--index-url", pg.url(database: db, user: role), "ocelot"], asUser: uid)
            #expect(f.status == 0 || f.status == 1, "\(f.stderr)")
            return Set(f.lines)
        }
        #expect(try found("daemon", "1") == [user, group, inner, open, denied])
        #expect(try found("nobody", "65534") == [open])
        // show as each role: the ACL decides there too.
        #expect(try run("fsindex", ["show", "--index-url", pg.url(database: db, user: "daemon"), user], asUser: "1").status == 0)
        #expect(try run("fsindex", ["show", "--index-url", pg.url(database: db, user: "nobody"), user], asUser: "65534").status == 1)

        // The ACL changes: the entry goes from the file, the folder's search goes to nobody.
        try Self.setfacl("-x", "u:daemon", user)
        try Self.setfacl("-m", "u:nobody:x", tree.path("root/closed").string)
        let again = try SharedIndexFaultTests.indexAndPublish(tree, url, roots: [tree.path("root").string])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try found("daemon", "1") == [group, inner, open, denied])
        #expect(try found("nobody", "65534") == [inner, open])

        // A database of before ACLs (v2) is upgraded in place: its rows are sent again. A
        // reading policy of another name (an earlier migration's) that reads the mode alone
        // shows nobody what an ACL entry denies, until the upgrade drops it.
        try pg.psql(db, """
            DROP POLICY items_readable ON items;
            CREATE POLICY items_readable ON items FOR SELECT USING (EXISTS (SELECT 1 FROM accounts a WHERE a.host = items.host
                AND a.role = current_user AND fsindex_readable(a.uid, a.gids, items.owner, items.grp, items.mode, items.access)));
            CREATE POLICY items_by_mode ON items FOR SELECT USING (EXISTS (SELECT 1 FROM accounts a WHERE a.host = items.host
                AND a.role = current_user AND fsindex_readable(a.uid, a.gids, items.owner, items.grp, items.mode, items.access)));
            DROP FUNCTION fsindex_readable(integer, integer[], integer, integer, integer, integer[], integer[]);
            DROP FUNCTION fsindex_allows(integer, integer[], integer, integer, integer, integer, integer[], integer);
            DROP FUNCTION fsindex_acl_replace(integer[], integer, integer, integer[]);
            ALTER TABLE items DROP COLUMN acl;
            DELETE FROM fsindex_migrations WHERE id = 'v4-acl';
            """)
        #expect(try found("nobody", "65534") == [open, denied])
        let upgraded = try run("fsindex", ["publish", "--index-dir", tree.path("index").string, "--index-url", url, "--host", "h"])
        #expect(upgraded.status == 0 && upgraded.out.contains("published 8 items"), "\(upgraded.out) \(upgraded.stderr)")
        #expect(try pg.psql(db, "SELECT count(*) FROM items WHERE acl IS NULL").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(try found("daemon", "1") == [group, inner, open, denied])
        #expect(try found("nobody", "65534") == [inner, open])
        #expect(try pg.psql(db, "SELECT string_agg(policyname, ',') FROM pg_policies WHERE tablename = 'items'")
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "items_readable")
    }
}
