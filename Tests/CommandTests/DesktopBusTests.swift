import Foundation
import SystemPackage
import TestSupport
import Testing

/// The search boxes on a real session bus: `dbus-run-session` gives each test a bus of its own,
/// D-Bus starts `fsindex search-provider` from the package's activation files (their `Exec=`
/// pointed at the built binary), and `gdbus` calls every method as GNOME Shell and KRunner do.
/// Opening goes through the real xdg-open to a test handler made the default for its type with
/// `xdg-mime default`.
@Suite("Search providers on a session bus", .blocking, .serialized,
       .enabled(if: DesktopFixture.toolsPresent, "needs dbus-run-session, gdbus and xdg-mime (dbus, libglib2.0-bin, xdg-utils)"))
struct DesktopBusTests {
    @Test("GNOME Shell's SearchProvider2: activation, initial and narrowed results, metas, activation of a result, LaunchSearch")
    func gnomeSearchProvider() throws {
        let f = try DesktopFixture()
        let p = "--dest org.fsindex.SearchProvider --object-path /org/fsindex/SearchProvider --method org.gnome.Shell.SearchProvider2"
        let budget = f.docs + "/budget.txt", minutes = f.docs + "/minutes.txt"
        // A thumbnail in the freedesktop cache (made by the worker), and an app's item with a
        // donated picture: both are shown as the result's icon.
        let thumbnail = try f.fsindex("thumbnail", f.docs + "/photo.png")
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let thumbnailPath = thumbnail.out.trimmingCharacters(in: .newlines)
        let picture = Data(ImageFixture.png(width: 16, height: 16)).base64EncodedString()
        try f.tree.create("note.json", contents: #"{"uniqueIdentifier": "n-7", "attributes": {"title": "Lighthouse keeper note", "contentURL": "https://notes.example/n/7", "thumbnailData": "\#(picture)"}}"# + "\n")
        let donated = try f.fsindex("donate", "--domain", "notes", f.tree.path("note.json").string)
        #expect(donated.status == 0, "\(donated.stderr)")
        let out = try f.session("""
            step initial gdbus call --session \(p).GetInitialResultSet "['annual']"
            step narrowed gdbus call --session \(p).GetSubsearchResultSet "['\(budget)', '\(minutes)']" "['annual', 'bud']"
            step metas gdbus call --session \(p).GetResultMetas "['\(budget)', '\(f.docs)/photo.png', 'notes:n-7']"
            step activate gdbus call --session \(p).ActivateResult "'\(budget)'" "['annual']" 0
            waitfor "$T/opened"
            step launch gdbus call --session \(p).LaunchSearch "['annual', 'budget']" 0
            waitfor "$T/launched"
            step bad gdbus call --session \(p).ActivateResult "'/no/such/file'" "['x']" 0
            step unindexed gdbus call --session \(p).ActivateResult "'/etc/hostname'" "['x']" 0
            """)
        // Ranked as fsfind ranks them.
        let ranked = try f.fsfind("annual").lines
        #expect(Set(ranked) == [budget, minutes])
        #expect(out["initial"] == "([" + ranked.map { "'\($0)'" }.joined(separator: ", ") + "],)", "\(out)")
        #expect(out["narrowed"] == "(['\(budget)'],)")
        let metas = out["metas"] ?? ""
        #expect(metas.contains("'id': <'\(budget)'>"), "\(metas)")
        #expect(metas.contains("'name': <'budget.txt'>"))
        #expect(metas.contains("'description': <'\(f.docs)'>"))
        #expect(metas.contains("'icon': <('themed', <['text-plain', 'text-x-generic']>)>"))
        #expect(metas.contains("'name': <'photo.png'>"))
        #expect(metas.contains("'icon': <('file', <'file://\(thumbnailPath)'>)>"), "\(metas)")
        #expect(metas.contains("'name': <'Lighthouse keeper note'>"))
        #expect(metas.contains("'description': <'https://notes.example/n/7'>"))
        #expect(metas.contains("'icon': <('file', <'file://\(f.tree.path("cache").string)/fsindex/thumbnails/"), "\(metas)")
        #expect(try f.tree.read("opened") == budget + "\n")
        // The terms after `--`: fsfind reads them as query words whatever they are.
        #expect(try f.tree.read("launched") == "--\nannual\nbudget\n")
        #expect(out["bad"]?.contains("org.fsindex.Error.Failed") == true)
        #expect(out["bad"]?.contains("/no/such/file") == true)
        // A file the index does not hold is not opened for any caller on the bus.
        #expect(out["unindexed"]?.contains("no such result: /etc/hostname") == true, "\(out["unindexed"] ?? "")")
        // The open was recorded as a use, through the index (no fsindexd runs here).
        let shown = try JSONSerialization.jsonObject(with: try f.fsindex("show", "--json", budget).stdout) as? [String: Any]
        #expect(shown?["useCount"] as? Int == 1)
    }

    @Test("KRunner: Match, Actions, Config, Run (open and open-folder) and Teardown")
    func krunner() throws {
        let f = try DesktopFixture()
        let k = "--dest org.fsindex.KRunner --object-path /runner --method org.kde.krunner1"
        let budget = f.docs + "/budget.txt"
        let out = try f.session("""
            step match gdbus call --session \(k).Match "budget.txt"
            step actions gdbus call --session \(k).Actions
            step config gdbus call --session \(k).Config
            step run gdbus call --session \(k).Run "'\(budget)'" "''"
            waitfor "$T/opened"
            step folder gdbus call --session \(k).Run "'\(budget)'" "'open-folder'"
            waitfor "$T/folder-opened"
            step complete gdbus call --session \(k).Match "lightho"
            step runcomplete gdbus call --session \(k).Run "'complete:lighthouse'" "''"
            waitfor "$T/launched"
            step teardown gdbus call --session \(k).Teardown
            step after gdbus call --session \(k).Match "lighthouse"
            """)
        let match = out["match"] ?? ""
        #expect(match.hasPrefix("([('\(budget)', 'budget.txt', 'text-plain', 100, 1.0, {"), "\(match)")
        #expect(match.contains("'subtext': <'\(f.docs)'>"))
        #expect(match.contains("'urls': <['file://\(budget)']>"))
        #expect(out["actions"] == "([('open-folder', 'Open Containing Folder', 'document-open-folder')],)")
        #expect(out["config"] == "({'MinLetterCount': <3>},)")
        #expect(out["run"] == "()")
        #expect(try f.tree.read("opened") == budget + "\n")
        #expect(try f.tree.read("folder-opened") == f.docs + "\n")
        // The last word completed from the index's words, below the results; running it shows
        // the whole answer ([desktop] launch_search).
        let complete = out["complete"] ?? ""
        #expect(complete.contains("('\(budget)', 'budget.txt', 'text-plain', 30, 1.0, {"), "\(complete)")
        #expect(complete.contains("('complete:lighthouse', 'lighthouse', 'edit-find', 10, 0.10000000000000001, {'subtext': <'1 item — show all'>})"), "\(complete)")
        #expect(try f.tree.read("launched") == "--\nlighthouse\n")
        #expect(out["teardown"] == "()")
        #expect(out["after"]?.contains("'\(budget)', 'budget.txt', 'text-plain', 30") == true)
    }

    /// Issue 40, A1, A3, A4: what any program on the session bus can try.
    @Test("a program on the bus: terms that look like options are refused, hostile donated URLs are not opened, a flood of ids is refused at once")
    func hostileCaller() throws {
        let f = try DesktopFixture()
        let p = "--dest org.fsindex.SearchProvider --object-path /org/fsindex/SearchProvider --method org.gnome.Shell.SearchProvider2"
        let k = "--dest org.fsindex.KRunner --object-path /runner --method org.kde.krunner1"
        let budget = f.docs + "/budget.txt"
        // Apps' items whose contentURL must not reach the opener.
        let launcher = try f.tree.create("docs/evil.desktop", contents: "[Desktop Entry]\nType=Application\nName=x\nExec=touch \(f.tree.root.string)/pwned\n")
        try f.tree.create("docs/disguised.txt", contents: "[Desktop Entry]\nType=Application\nExec=touch \(f.tree.root.string)/pwned\n")
        let hostile: [(id: String, url: String, reason: String)] = [
            ("shadow", "file:///nonexistent/shadow", "is not readable by you"),
            ("js", "javascript:alert(1)", "its scheme javascript: is not one that is opened"),
            ("desktop", "file://" + launcher.string, "is a .desktop launcher"),
            ("disguised", "file://" + f.docs + "/disguised.txt", "is a .desktop launcher"),
            ("bare", f.docs + "/budget.txt", "not an absolute URL"),
            ("newline", "http://a\nb", "a space or a control character"),
            ("option", "--manual", "starts with -"),
        ]
        let lines = hostile.map { h in
            String(decoding: try! JSONSerialization.data(withJSONObject: ["uniqueIdentifier": h.id, "attributes": ["title": "quokka \(h.id)", "contentURL": h.url]]), as: UTF8.self)
        }
        try f.tree.create("hostile.json", contents: lines.joined(separator: "\n") + "\n")
        let donated = try f.fsindex("donate", "--domain", "hostile", f.tree.path("hostile.json").string)
        #expect(donated.status == 0, "\(donated.stderr)")
        let flood = (0..<5000).map { "'/flood/\($0)'" }.joined(separator: ", ")
        let same = Array(repeating: "'\(budget)'", count: 3).joined(separator: ", ")
        var script = """
            step evil gdbus call --session \(p).LaunchSearch "['--config=/tmp/evil.toml', '--open=1', 'x']" 0
            step control gdbus call --session \(p).LaunchSearch "['x\\u001by']" 0
            step krunner gdbus call --session \(k).Run "'complete:--config=/tmp/evil.toml --open=1 x'" "''"
            step flood gdbus call --session \(p).GetResultMetas "[\(flood)]"
            step same gdbus call --session \(p).GetResultMetas "[\(same)]"
            step after gdbus call --session \(p).GetInitialResultSet "['annual']"

            """
        for h in hostile {
            script += "step activate-\(h.id) gdbus call --session \(p).ActivateResult \"'hostile:\(h.id)'\" \"['quokka']\" 0\n"
            script += "step run-\(h.id) gdbus call --session \(k).Run \"'hostile:\(h.id)'\" \"''\"\n"
        }
        let started = Date()
        let out = try f.session(script)
        // A1: refused on the bus; nothing launched.
        #expect(out["evil"]?.contains("refused search term \"--config=/tmp/evil.toml\"") == true, "\(out["evil"] ?? "")")
        #expect(out["control"]?.contains("Error") == true, "\(out["control"] ?? "")")
        #expect(out["krunner"]?.contains("refused search term") == true, "\(out["krunner"] ?? "")")
        let launched = try f.tree.read("launched")
        #expect(launched == "", "launched: \(launched)")
        // A4: the flood refused at once; the same id thrice answered once; searching goes on.
        #expect(out["flood"]?.contains("refused: 5000 result ids in one call; at most 256") == true, "\(out["flood"]?.prefix(300) ?? "")")
        #expect(out["same"]?.components(separatedBy: "'id': <'\(budget)'>").count == 2, "\(out["same"] ?? "")")
        #expect(out["after"]?.contains(budget) == true, "\(out["after"] ?? "")")
        #expect(Date().timeIntervalSince(started) < 120)
        // A3: every hostile URL refused with its reason, by the Shell's and KRunner's calls, and
        // by `fsindex open`; nothing opened.
        for h in hostile {
            for step in ["activate-\(h.id)", "run-\(h.id)"] {
                #expect(out[step]?.contains("its contentURL is not opened") == true && out[step]?.contains(h.reason) == true, "\(step): \(out[step] ?? "")")
            }
            let opened = try f.fsindex("open", "hostile:\(h.id)")
            #expect(opened.status == 2 && opened.stderr.contains(h.reason), "\(h.id): \(opened.stderr)")
        }
        #expect(try f.tree.read("url-opened") == "")
        #expect(try f.tree.read("opened") == "")
        #expect(!FileManager.default.fileExists(atPath: f.tree.path("pwned").string))
        // An app's own scheme, declared when it donated, is opened by its handler; the same URL
        // from an app that declared none is refused, and no app may declare javascript.
        try f.tree.create("app.json", contents: #"{"uniqueIdentifier": "n-1", "attributes": {"title": "app note", "contentURL": "notesapp://n/1"}}"# + "\n")
        #expect(try f.fsindex("donate", "--domain", "undeclared", f.tree.path("app.json").string).status == 0)
        let undeclared = try f.fsindex("open", "undeclared:n-1")
        #expect(undeclared.status == 2 && undeclared.stderr.contains("its scheme notesapp: is not one that is opened"), "\(undeclared.stderr)")
        let declared = try f.fsindex("donate", "--domain", "notesapp", "--url-scheme", "notesapp", f.tree.path("app.json").string)
        #expect(declared.status == 0, "\(declared.stderr)")
        let app = try f.fsindex("open", "notesapp:n-1")
        #expect(app.status == 0, "\(app.stderr)")
        #expect(try f.tree.read("app-opened") == "notesapp://n/1\n")
        let js = try f.fsindex("donate", "--domain", "evil", "--url-scheme", "javascript", f.tree.path("app.json").string)
        #expect(js.status == 2 && js.stderr.contains("URL scheme \"javascript\" cannot be an app's own"), "\(js.stderr)")
        // A launcher among the files is not opened either, though it is indexed.
        let file = try f.fsindex("open", launcher.string)
        #expect(file.status == 2 && file.stderr.contains("a .desktop launcher is never opened"), "\(file.stderr)")
    }

    @Test("with fsindexd running the provider asks it, and without, reads the index: the same answer; typing more narrows")
    func answeredByTheDaemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.tree.create("root/lighthouse.txt", contents: "the keeper's log of the lighthouse lamp")
            try d.tree.create("root/lamp.txt", contents: "a lamp manual")
            try d.start()
            try d.waitFor("the files to be indexed") { try run("fsfind-direct", ["lamp"], env: d.env).lines.count == 2 }
            var env = d.env
            env["FSINDEX_TRACE"] = "1"
            let p = "--dest org.fsindex.SearchProvider --object-path /org/fsindex/SearchProvider --method org.gnome.Shell.SearchProvider2"
            let lighthouse = d.root + "/lighthouse.txt"
            let script = """
                step initial gdbus call --session \(p).GetInitialResultSet "['lamp']"
                step narrowed gdbus call --session \(p).GetSubsearchResultSet "['\(lighthouse)', '\(d.root)/lamp.txt']" "['lamp', 'keep']"
                """
            let served = try busSession(tree: d.tree, env: env, script)
            let ranked = try run("fsfind-direct", ["lamp"], env: d.env).lines
            #expect(served.steps["initial"] == "([" + ranked.map { "'\($0)'" }.joined(separator: ", ") + "],)", "\(served)")
            #expect(served.steps["narrowed"] == "(['\(lighthouse)'],)")
            #expect(served.stderr.contains("trace: GetInitialResultSet in "), "\(served.stderr)")
            #expect(served.stderr.contains("ms, answered by fsindexd\n"), "\(served.stderr)")
            #expect(served.stderr.contains("ms, answered by fsindexd, narrowed\n"), "\(served.stderr)")
            d.stop()
            let alone = try busSession(tree: d.tree, env: env, script)
            #expect(alone.steps == served.steps)
            #expect(alone.stderr.contains("ms, answered from the index\n"), "\(alone.stderr)")
            #expect(!alone.stderr.contains("by fsindexd"))
        }
    }

    @Test("fsindex open and fsfind --open: the default application gets the file or the donated item's URL, and the use is recorded")
    func openCommands() throws {
        let f = try DesktopFixture()
        let budget = f.docs + "/budget.txt"
        func uses(_ path: String) throws -> Int {
            let shown = try JSONSerialization.jsonObject(with: try f.fsindex("show", "--json", path).stdout) as? [String: Any]
            return shown?["useCount"] as? Int ?? 0
        }
        let opened = try f.fsindex("open", budget)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try f.tree.read("opened") == budget + "\n")
        #expect(try uses(budget) == 1)
        let ranked = try f.fsfind("annual").lines
        #expect(ranked.count == 2)
        let before = try uses(ranked[1])
        let second = try f.fsfind("--open", "2", "annual")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.lines == [ranked[1]])
        #expect(try f.tree.read("opened") == budget + "\n" + ranked[1] + "\n")
        #expect(try uses(ranked[1]) == before + 1)
        let third = try f.fsfind("--open", "3", "annual")
        #expect(third.status == 1)
        #expect(third.stderr.contains("no result 3 to open"))

        try f.tree.create("note.json", contents: #"{"uniqueIdentifier": "n-42", "attributes": {"title": "Lighthouse note", "contentURL": "https://notes.example/n/42"}}"# + "\n")
        #expect(try f.fsindex("donate", "--domain", "notes", f.tree.path("note.json").string).status == 0)
        let url = try f.fsindex("open", "notes:n-42")
        #expect(url.status == 0, "\(url.stderr)")
        #expect(try f.tree.read("url-opened") == "https://notes.example/n/42\n")

        let missing = try f.fsindex("open", f.docs + "/gone.txt")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("gone.txt: no such file or directory"))
        // No application for the type: xdg-open's failure, named.
        try f.tree.create("docs/data.xyz-unknown", contents: "\u{0}\u{1}binary")
        let unhandled = try f.fsindex("open", f.docs + "/data.xyz-unknown")
        #expect(unhandled.status == 2)
        #expect(unhandled.stderr.contains("xdg-open failed"), "\(unhandled.stderr)")
    }
}

/// An index of a few files, a desktop of one test handler, and a session bus to run gdbus on.
struct DesktopFixture {
    static let toolsPresent = ["/usr/bin/dbus-run-session", "/usr/bin/gdbus", "/usr/bin/xdg-mime", "/usr/bin/xdg-open"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    let tree: TemporaryTree
    var docs: String { tree.path("docs").string }
    let env: [String: String]

    init() throws {
        tree = try TemporaryTree(prefix: "fsindex-desktop")
        try tree.create("docs/budget.txt", contents: "the annual budget review for the lighthouse")
        try tree.create("docs/minutes.txt", contents: "minutes of the annual meeting")
        // A real PNG, for its type's icon and its thumbnail.
        try tree.create("docs/photo.png", bytes: ImageFixture.png(width: 300, height: 200))
        let t = tree.root.string
        // The test handler: writes its argument to a file named for what it opened.
        try tree.create("bin/handler", contents: "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \"\(t)/$FSINDEX_TEST_LOG\"\n")
        try tree.create("bin/launch", contents: "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"\(t)/launched\"\n")
        try tree.create("mailcap", contents: "")
        try tree.chmod("bin/handler", 0o755)
        try tree.chmod("bin/launch", 0o755)
        for (name, type, log) in [("fsindex-test-text", "text/plain", "opened"), ("fsindex-test-folder", "inode/directory", "folder-opened"),
                                  ("fsindex-test-url", "x-scheme-handler/https", "url-opened"),
                                  ("fsindex-test-app", "x-scheme-handler/notesapp", "app-opened")] {
            try tree.create("data/applications/\(name).desktop", contents: """
                [Desktop Entry]
                Type=Application
                Name=\(name)
                Exec=env FSINDEX_TEST_LOG=\(log) \(t)/bin/handler %u
                MimeType=\(type);

                """)
        }
        try tree.create("config/fsindex/config.toml", contents: "[desktop]\nlaunch_search = [\"\(t)/bin/launch\"]\n")
        env = ["FSINDEX_INDEX_DIR": tree.path("index").string, "XDG_DATA_HOME": tree.path("data").string,
               "XDG_CONFIG_HOME": tree.path("config").string, "XDG_CACHE_HOME": tree.path("cache").string,
               "WAYLAND_DISPLAY": "wayland-fsindex-test",
               // No text browser as xdg-open's last resort (lynx comes with xdg-utils' recommends).
               "BROWSER": "/nonexistent/no-browser",
               // Nor the machine's or the user's mailcap, which xdg-open's generic mode asks
               // through run-mailcap before it gives up (an empty file of the test's own).
               "MAILCAPS": tree.path("mailcap").string, "HOME": tree.path("home").string,
               "XDG_CURRENT_DESKTOP": "", "DISPLAY": "", "T": t]
        for (name, type) in [("fsindex-test-text", "text/plain"), ("fsindex-test-folder", "inode/directory"), ("fsindex-test-url", "x-scheme-handler/https"),
                             ("fsindex-test-app", "x-scheme-handler/notesapp")] {
            let r = try run(executable: "/usr/bin/xdg-mime", ["default", "\(name).desktop", type], env: env, timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let indexed = try fsindex("index", docs)
        #expect(indexed.status == 0, "\(indexed.stderr)")
    }

    @discardableResult
    func fsindex(_ args: String...) throws -> CommandResult { try run("fsindex", Array(args), env: env, timeout: 120) }
    @discardableResult
    func fsfind(_ args: String...) throws -> CommandResult { try run("fsfind", Array(args), env: env, timeout: 120) }

    func session(_ script: String) throws -> [String: String] {
        try busSession(tree: tree, env: env, script).steps
    }
}

/// Runs `script` in a session bus of its own whose services are the package's activation files
/// (their `Exec=` pointed at the built fsindex), with `step NAME COMMAND...` recording each
/// call's output; returns them by name, and the bus's standard error (the provider's log).
func busSession(tree: TemporaryTree, env: [String: String], _ script: String) throws -> (steps: [String: String], stderr: String) {
    let exe = Binaries.directory.appendingPathComponent("fsindex").path
    let packaging = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/packaging/desktop")
    for name in ["org.fsindex.SearchProvider.service", "org.fsindex.KRunner.service"] {
        let text = try String(contentsOf: packaging.appendingPathComponent(name), encoding: .utf8)
        #expect(text.contains("Exec=/usr/bin/fsindex search-provider\n"))
        try tree.create("services/" + name, contents: text.replacingOccurrences(of: "/usr/bin/fsindex", with: exe))
    }
    try tree.create("bus.conf", contents: """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(tree.root.string)</listen>
          <servicedir>\(tree.path("services").string)</servicedir>
          <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
        </busconfig>
        """)
    try tree.create("script.sh", contents: """
        set -u
        step() { name=$1; shift; printf '@@%s\\n' "$name"; "$@" 2>&1; }
        waitfor() { for i in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "waited in vain for $1"; }
        \(script)
        printf '@@end\\n'
        # Processes started by Foundation's Process (this test's) inherit a blocked SIGTERM,
        # so dbus-run-session's SIGTERM would not end the bus: end it here. The provider
        # then sees the bus go and leaves.
        bus=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
            --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.DBus | sed 's/.*uint32 \\([0-9]*\\).*/\\1/')
        kill -KILL "$bus"
        """)
    let r = try run(executable: "/usr/bin/dbus-run-session",
                    ["--config-file=" + tree.path("bus.conf").string, "--", "/bin/bash", tree.path("script.sh").string],
                    env: env, timeout: 180)
    var out: [String: String] = [:]
    var name: String?
    var lines: [String] = []
    for line in r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        if line.hasPrefix("@@") {
            if let name { out[name] = lines.joined(separator: "\n") }
            name = String(line.dropFirst(2))
            lines = []
        } else {
            lines.append(line)
        }
    }
    #expect(out["end"] != nil || name == "end", "the session did not finish: \(r.out)\n\(r.stderr)")
    return (out, r.stderr)
}

extension TemporaryTree {
    func read(_ relative: String) throws -> String {
        (try? String(contentsOfFile: path(relative).string, encoding: .utf8)) ?? ""
    }
}
