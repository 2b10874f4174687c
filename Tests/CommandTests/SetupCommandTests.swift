import Foundation
import SystemPackage
import TestSupport
import Testing

/// `fsindex setup` in a home of its own: the config written with the default roots, fsindexd
/// started (no systemd user manager here: PATH holds no systemctl), the XDG folder and the files
/// directly in HOME found, not a file in another folder of HOME; `--undo` stops it and removes
/// what setup wrote (issue 26).
@Suite("fsindex setup", .blocking, .serialized)
struct SetupCommandTests {
    final class Home: @unchecked Sendable {
        let tree: TemporaryTree
        var home: String { tree.path("home").string }
        var config: String { home + "/.config/fsindex/config.toml" }
        var env: [String: String] {
            ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": tree.path("data").string,
             "XDG_STATE_HOME": tree.path("state").string, "XDG_RUNTIME_DIR": tree.path("run").string,
             "FSINDEX_INDEX_DIR": tree.path("index").string,
             // No systemctl, and no session bus: the user's own systemd is never touched.
             "PATH": tree.path("bin").string, "DBUS_SESSION_BUS_ADDRESS": ""]
        }
        var started: [Int32] = []

        init() throws {
            tree = try TemporaryTree(prefix: "fsindex-setup")
            try tree.createDirectory("bin")
            try tree.createDirectory("run")
            _ = chmod(tree.path("run").string, 0o700)
            try tree.create("home/.config/user-dirs.dirs", contents: """
                XDG_DESKTOP_DIR="$HOME/Desktop"
                XDG_DOCUMENTS_DIR="$HOME/Documents"
                XDG_MUSIC_DIR="$HOME"

                """)
            try tree.create("home/Documents/report.txt", contents: "kittiwake report")
            try tree.create("home/top.txt", contents: "kittiwake top")
            try tree.create("home/Projects/hidden.txt", contents: "kittiwake project")
        }

        deinit { for pid in started { kill(pid, SIGKILL) } }

        func fsindex(_ args: String...) throws -> CommandResult { try run("fsindex", Array(args), env: env, timeout: 120) }

        func json(_ r: CommandResult) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], "\(r.out)\n\(r.stderr)")
        }

        /// fsfind's answer, as paths relative to HOME.
        func found(_ words: String) throws -> Set<String> {
            Set(try run("fsfind", [words], env: env).lines.map { String($0.dropFirst(home.count + 1)) })
        }

        func waitFor(_ what: String, seconds: Double = 90, _ condition: () throws -> Bool) throws {
            try TestSupport.waitFor(what, seconds: seconds, every: .milliseconds(100), context: {
                "fsindexd's log:\n" + ((try? String(contentsOfFile: tree.path("state/fsindex/fsindexd.log").string, encoding: .utf8)) ?? "")
            }, condition)
        }

        static func isGone(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.dropFirst().first == "Z"
        }
    }

    @Test("issue 26: setup writes the config, starts fsindexd, which finds Documents and the files directly in HOME; --undo reverses it")
    func setupAndUndo() async throws {
        try await offPool {
            let h = try Home()
            let r = try h.fsindex("setup", "--json")
            #expect(r.status == 0, "\(r.stderr)")
            let report = try h.json(r)
            if let pid = (report["pid"] as? NSNumber)?.int32Value { h.started.append(pid) }
            #expect(report["configAction"] as? String == "written")
            #expect(report["manager"] as? String == "none")
            let roots = (report["roots"] as? [[String: String]]) ?? []
            #expect(roots == [["path": h.home + "/Documents", "depth": "recursive"], ["path": h.home, "depth": "files-only"]], "\(roots)")
            let leftOut = (report["leftOut"] as? [[String: String]]) ?? []
            #expect(leftOut.contains { $0["path"] == h.home + "/Desktop" && $0["reason"] == "does not exist" }, "\(leftOut)")
            let pid = try #require((report["pid"] as? NSNumber)?.int32Value, "\(report)")

            // The config holds the roots written out, under setup's marker.
            let config = try String(contentsOfFile: h.config, encoding: .utf8)
            #expect(config.hasPrefix("# Written by `fsindex setup`"))
            #expect(config.contains("roots = [\n    \"\(h.home)/Documents\",\n]") && config.contains("shallow_roots = [\n    \"\(h.home)\",\n]"), "\(config)")

            // The daemon runs and indexes: Documents at every depth, HOME's own files only.
            try h.waitFor("fsindexd to index Documents and HOME") { try h.found("kittiwake") == ["Documents/report.txt", "top.txt"] }
            try h.tree.create("home/later.txt", contents: "kittiwake later")
            try h.tree.create("home/Projects/later.txt", contents: "kittiwake later project")
            try h.waitFor("the new file directly in HOME") { try h.found("kittiwake").contains("later.txt") }
            #expect(try h.found("kittiwake") == ["Documents/report.txt", "top.txt", "later.txt"])
            // fsindex status says which root is files-only.
            let status = try h.json(try h.fsindex("status", "--json"))
            let depths = Dictionary(uniqueKeysWithValues: ((status["roots"] as? [[String: Any]]) ?? []).map { ($0["domain"] as? String ?? "", $0["depth"] as? String ?? "") })
            #expect(depths == [h.home: "files-only", h.home + "/Documents": "recursive"], "\(status)")
            let lines = try h.fsindex("status").lines
            #expect(lines.contains { $0.hasPrefix("  \(h.home)  ") && $0.contains("items (files directly inside, no subfolders)") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("  \(h.home)/Documents  ") && !$0.contains("files directly inside") }, "\(lines)")

            // Again: the config is kept, the daemon found running.
            let again = try h.fsindex("setup")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.out.contains("exists; left as it is") && again.out.contains("already runs") && again.out.contains("(pid \(pid))"), "\(again.out)")
            #expect(again.out.contains("\(h.home)  (files directly inside, no subfolders)"), "\(again.out)")

            // Undo: the daemon stopped, the config removed, the index kept.
            let undo = try h.fsindex("setup", "--undo", "--json")
            #expect(undo.status == 0, "\(undo.stderr)")
            let undone = try h.json(undo)
            #expect(undone["configAction"] as? String == "removed")
            #expect((undone["pid"] as? NSNumber)?.int32Value == pid)
            #expect(Home.isGone(pid))
            #expect(!FileManager.default.fileExists(atPath: h.config))
            #expect(FileManager.default.fileExists(atPath: h.tree.path("index/index.sqlite").string))
            #expect(((undone["steps"] as? [String]) ?? []).contains { $0.contains("`fsindex erase` deletes it") })
        }
    }

    @Test("issue 26: --undo leaves a config the user changed, and one setup did not write")
    func undoKeepsEditedConfig() async throws {
        try await offPool {
            let h = try Home()
            let r = try h.fsindex("setup", "--json")
            #expect(r.status == 0, "\(r.stderr)")
            if let pid = (try h.json(r)["pid"] as? NSNumber)?.int32Value { h.started.append(pid) }
            let edited = try String(contentsOfFile: h.config, encoding: .utf8) + "[crawl]\ninclude_hidden = true\n"
            try edited.write(toFile: h.config, atomically: true, encoding: .utf8)
            let undo = try h.fsindex("setup", "--undo")
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(undo.out.contains("left \(h.config): changed since setup wrote it"), "\(undo.out)")
            #expect(try String(contentsOfFile: h.config, encoding: .utf8) == edited)
            for pid in h.started { #expect(Home.isGone(pid)) }

            try "roots = []\n".write(toFile: h.config, atomically: true, encoding: .utf8)
            let mine = try h.fsindex("setup", "--undo")
            #expect(mine.out.contains("not written by fsindex setup") && mine.out.contains("no fsindexd was running"), "\(mine.out)")
            #expect(FileManager.default.fileExists(atPath: h.config))
        }
    }

    @Test("issue 26: setup runs the fsindexd beside the path it was invoked by (a symlink, as in the package), and skips one that is not executable")
    func daemonBesideInvokedPath() async throws {
        try await offPool {
            let h = try Home()
            let real = Binaries.directory.path
            // bin/fsindex is a symlink to the built fsindex; bin/fsindexd, beside it, is a script
            // that says it ran, then runs the built fsindexd.
            try h.tree.createDirectory("links")
            #expect(symlink(real + "/fsindex", h.tree.path("links/fsindex").string) == 0)
            let mark = h.tree.path("fsindexd-ran").string
            let script = try h.tree.create("links/fsindexd", contents: "#!/bin/sh\necho ran > \"\(mark)\"\nexec \"\(real)/fsindexd\" \"$@\"\n")
            #expect(chmod(script.string, 0o755) == 0)
            let r = try run(executable: h.tree.path("links/fsindex").string, ["setup", "--json"], env: h.env, timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            if let pid = (try h.json(r)["pid"] as? NSNumber)?.int32Value { h.started.append(pid) }
            #expect(FileManager.default.fileExists(atPath: mark), "the fsindexd beside the invoked path did not run: \(r.out)")
            #expect(try h.fsindex("setup", "--undo").status == 0)

            // Not executable there: the one beside the resolved executable runs instead.
            try FileManager.default.removeItem(atPath: mark)
            #expect(chmod(script.string, 0o644) == 0)
            let fallback = try run(executable: h.tree.path("links/fsindex").string, ["setup", "--json"], env: h.env, timeout: 120)
            #expect(fallback.status == 0, "\(fallback.stderr)")
            if let pid = (try h.json(fallback)["pid"] as? NSNumber)?.int32Value { h.started.append(pid) }
            #expect(!FileManager.default.fileExists(atPath: mark))
            #expect(try h.fsindex("setup", "--undo").status == 0)
        }
    }
}
