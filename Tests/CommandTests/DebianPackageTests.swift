import Foundation
import TestSupport
import Testing

/// The Debian package (issue 26): `Config/packaging/build-deb` from the release build, its
/// layout and size, lintian, and the commands run from the unpacked files (the multi-call
/// links, the worker in /usr/libexec, fsindexd and fsfind through it), then installed with apt.
/// It packages the release build README's first command makes (`--no-build`: `swift test`
/// holds the build folder, so a build from inside it would wait for ever).
enum DebianPackage {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static var releaseDirectory: URL { packageRoot.appendingPathComponent(".build/release") }
    static let buildScript = packageRoot.appendingPathComponent("Config/packaging/build-deb").path

    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why the package cannot be built here, or nil.
    static let skipReason: String? = {
        for exe in ["fsindex", "fsindex-worker"]
        where !FileManager.default.isExecutableFile(atPath: releaseDirectory.appendingPathComponent(exe).path) {
            return "needs the release build (README's first command: swift build -c release --static-swift-stdlib); \(exe) is missing"
        }
        for t in ["dpkg-deb", "dpkg-shlibdeps", "strip"] where tool(t) == nil {
            return "needs \(t) (apt-get install dpkg-dev binutils)"
        }
        return nil
    }()

    /// The packages, built once for every test here: their paths, or why they could not be
    /// built. The model's package (`--model`) is built too where the sentence model could be
    /// installed for the tests; `modelDeb` is nil elsewhere.
    static let built: Result<(deb: String, modelDeb: String?, scratch: TemporaryTree), BuildFailure> = {
        do {
            let scratch = try TemporaryTree(prefix: "fsindex-deb")
            let model = try? SentenceModelFixture.folder.get()
            let r = try run(executable: buildScript, ["--no-build"] + (model.map { ["--model", $0] } ?? []) + [scratch.path("out").string],
                            timeout: 600)
            let printed = r.lines
            guard r.status == 0, printed.count == (model == nil ? 1 : 2),
                  printed.allSatisfy({ $0.hasSuffix(".deb") && FileManager.default.fileExists(atPath: $0) }) else {
                return .failure(BuildFailure(message: "build-deb exited \(r.status), printed \(r.out.debugDescription):\n\(r.stderr)"))
            }
            return .success((printed[0], model == nil ? nil : printed[1], scratch))
        } catch {
            return .failure(BuildFailure(message: "\(error)"))
        }
    }()

    struct BuildFailure: Error, CustomStringConvertible { var message: String; var description: String { message } }

    static func deb() throws -> String { try built.get().deb }

    /// The package's files under a fresh folder (dpkg-deb -x).
    static func unpacked() throws -> TemporaryTree {
        let tree = try TemporaryTree(prefix: "fsindex-deb-root")
        let r = try run(executable: tool("dpkg-deb")!, ["-x", try deb(), tree.path("root").string], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        return tree
    }

    static func field(_ name: String) throws -> String {
        try run(executable: tool("dpkg-deb")!, ["-f", try deb(), name], timeout: 60).out.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@Suite("Debian package", .blocking, .serialized, .enabled(if: DebianPackage.skipReason == nil, Comment(rawValue: DebianPackage.skipReason ?? "")))
struct DebianPackageTests {
    @Test("build-deb writes fsindex_VERSION_ARCH.deb with every file where Debian expects it, in at most 60 MB")
    func layoutAndSize() throws {
        let deb = try DebianPackage.deb()
        let arch = try run(executable: DebianPackage.tool("dpkg")!, ["--print-architecture"], timeout: 30).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(URL(fileURLWithPath: deb).lastPathComponent == "fsindex_\(try DebianPackage.field("Version"))_\(arch).deb")
        let listing = try run(executable: DebianPackage.tool("dpkg-deb")!, ["-c", deb], timeout: 60).lines
        func entry(_ path: String) -> String? { listing.first { $0.hasSuffix(" ." + path) || $0.contains(" ." + path + " -> ") } }
        for path in ["/usr/bin/fsindex", "/usr/bin/fsfind", "/usr/libexec/fsindex/fsindex-worker",
                     "/usr/lib/systemd/user/fsindexd.service", "/usr/share/doc/fsindex/copyright",
                     "/usr/share/doc/fsindex/changelog.gz", "/usr/share/doc/fsindex/fsindex.toml",
                     "/usr/share/man/man1/fsfind.1.gz", "/usr/share/man/man1/fsindex.1.gz", "/usr/share/man/man1/fsindexd.1.gz",
                     "/usr/share/man/man1/fsindex-mcp.1.gz", "/usr/share/man/man5/fsindex.toml.5.gz", "/usr/share/man/man7/fsindex-query.7.gz",
                     "/usr/share/gnome-shell/search-providers/org.fsindex.SearchProvider.ini", "/usr/share/applications/org.fsindex.FSIndex.desktop",
                     "/usr/share/dbus-1/services/org.fsindex.SearchProvider.service", "/usr/share/dbus-1/services/org.fsindex.KRunner.service",
                     "/usr/share/krunner/dbusplugins/org.fsindex.KRunner.desktop"] {
            #expect(entry(path)?.hasPrefix("-rw") == true || entry(path)?.hasPrefix("-rwx") == true, "\(path) missing or not a file")
        }
        for name in ["fsindexd", "fsindex-mcp", "fsfind-direct"] {
            #expect(entry("/usr/bin/" + name)?.hasSuffix(" -> fsindex") == true, "/usr/bin/\(name) is not a link to fsindex")
        }
        for name in ["fsfind", "fsindex", "fsindexd", "fsindex-mcp"] {
            #expect(entry("/usr/share/bash-completion/completions/" + name) != nil)
            #expect(entry("/usr/share/zsh/vendor-completions/_" + name) != nil)
            #expect(entry("/usr/share/fish/vendor_completions.d/" + name + ".fish") != nil)
        }
        #expect(listing.allSatisfy { $0.contains("root/root") }, "files not owned by root")
        // Installed-Size is in KiB; the goal is 60 MB (10^6 bytes).
        let kib = try #require(Int(try DebianPackage.field("Installed-Size")))
        #expect(kib * 1024 <= 60_000_000, "installed size \(kib) KiB")
        let depends = try DebianPackage.field("Depends")
        for library in ["libc6", "libsqlite3-0", "libpoppler-glib8", "libmagic1", "shared-mime-info"] {
            #expect(depends.contains(library), "Depends lacks \(library): \(depends)")
        }
    }

    @Test("from the unpacked files: index, fsfind-direct, fsindexd answering fsfind and following a change, the worker found in /usr/libexec, the time functions in another zone and locale")
    func runsUnpacked() async throws {
        try await offPool {
            let unpacked = try DebianPackage.unpacked()
            let bin = unpacked.path("root/usr/bin").string
            let work = try TemporaryTree(prefix: "fsindex-deb-run")
            try work.create("docs/heron.txt", contents: "the grey heron waits by the water")
            try work.create("docs/old.txt", contents: "an old heron note")
            let old = Date().addingTimeInterval(-40 * 86400).timeIntervalSince1970
            var times = [timespec(tv_sec: Int(old), tv_nsec: 0), timespec(tv_sec: Int(old), tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, work.path("docs/old.txt").string, &times, 0) == 0)
            try work.createDirectory("run")
            _ = chmod(work.path("run").string, 0o700)
            // No FSINDEX_WORKER: the worker must be found in ../libexec/fsindex from usr/bin.
            let env = ["FSINDEX_INDEX_DIR": work.path("index").string, "XDG_RUNTIME_DIR": work.path("run").string,
                       "XDG_CONFIG_HOME": work.path("config").string, "XDG_DATA_HOME": work.path("data").string,
                       "XDG_STATE_HOME": work.path("state").string, "HOME": work.path("home").string,
                       "FSINDEX_WORKER": "", "TZ": "America/St_Johns", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"]
            let docs = work.path("docs").string
            let indexed = try run(executable: bin + "/fsindex", ["index", docs], env: env, timeout: 120)
            #expect(indexed.status == 0, "\(indexed.stderr)")
            #expect(!indexed.stderr.contains("extractionError"))
            let direct = try run(executable: bin + "/fsfind-direct", ["grey", "heron"], env: env, timeout: 60)
            #expect(direct.lines == [docs + "/heron.txt"], "\(direct.stderr)")
            // The words came from the worker (a file read by nothing else would have no text).
            let shown = try run(executable: bin + "/fsindex", ["show", "--json", docs + "/heron.txt"], env: env, timeout: 60)
            #expect(shown.out.contains("grey heron"), "\(shown.out)\n\(shown.stderr)")
            // Time functions in a half-hour zone with a German locale: ICU's trimmed data keeps
            // the zones and the week data; a file of 40 days ago is not "this month"'s.
            let recent = try run(executable: bin + "/fsfind-direct", ["kMDItemFSContentChangeDate >= $time.today(-7) && heron"], env: env, timeout: 60)
            #expect(recent.lines == [docs + "/heron.txt"], "\(recent.stderr)")
            let older = try run(executable: bin + "/fsfind-direct", ["kMDItemFSContentChangeDate < $time.this_month && heron"], env: env, timeout: 60)
            #expect(older.lines == [docs + "/old.txt"], "\(older.stderr)")

            // No daemon yet: the small fsfind (Embedded Swift) becomes fsfind-direct, with its
            // arguments as they were.
            var traced = env
            traced["FSFIND_TRACE"] = "1"
            let fallback = try run(executable: bin + "/fsfind", ["--limit", "5", "grey", "heron"], env: traced, timeout: 60)
            #expect(fallback.lines == [docs + "/heron.txt"] && fallback.stderr.contains("reading the index directly"), "\(fallback.stderr)")

            var e = ProcessInfo.processInfo.environment
            for (k, v) in env { e[k] = v }
            e["FSINDEX_WORKER"] = nil
            let log = work.path("daemon.log").string
            let daemon = try startLogged(bin + "/fsindexd", ["--foreground", "--root", docs], environment: e, log: log)
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGTERM); daemon.waitUntilExit() } }
            let through = try eventually(60, every: .milliseconds(100)) {
                let r = try run(executable: bin + "/fsfind", ["grey"], env: traced, timeout: 60)
                return r.stderr.contains("answered by fsindexd") && r.lines == [docs + "/heron.txt"]
            }
            #expect(through, "fsfind never answered through fsindexd; its log:\n\(String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))")
            try work.create("docs/egret.txt", contents: "a little egret arrives")
            let found = try eventually(60, every: .milliseconds(100)) {
                try run(executable: bin + "/fsfind", ["egret"], env: env, timeout: 60).lines == [docs + "/egret.txt"]
            }
            #expect(found, "the daemon did not index a new file")
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
            #expect(daemon.terminationStatus == 0)
            let mcp = try run(executable: bin + "/fsindex-mcp", ["--help"], env: env, timeout: 60)
            #expect(mcp.status == 0 && mcp.out.contains("USAGE: fsindex-mcp"), "\(mcp.out)\(mcp.stderr)")
        }
    }

    @Test("build-deb --model writes fsindex-model-minilm_VERSION_all.deb, which fsindex recommends; unpacked beside fsindex, the model is found and the first index reads names and titles by meaning",
          .sentenceModel)
    func modelPackage() async throws {
        try await offPool {
            let modelDeb = try #require(try DebianPackage.built.get().modelDeb)
            #expect(URL(fileURLWithPath: modelDeb).lastPathComponent
                    == "fsindex-model-minilm_\(try DebianPackage.field("Version"))_all.deb")
            #expect(try DebianPackage.field("Recommends").contains("fsindex-model-minilm"))
            let dpkgDeb = DebianPackage.tool("dpkg-deb")!
            let arch = try run(executable: dpkgDeb, ["-f", modelDeb, "Architecture"], timeout: 60).out
            #expect(arch.trimmingCharacters(in: .whitespacesAndNewlines) == "all")
            // Both files, root's, readable by all and writable by no one else: what the model's
            // loader asks of a file it trusts.
            let listing = try run(executable: dpkgDeb, ["-c", modelDeb], timeout: 60).lines
            for file in ["model.safetensors", "vocab.txt"] {
                let entry = listing.first { $0.hasSuffix(" ./usr/share/fsindex/models/all-MiniLM-L6-v2/" + file) }
                #expect(entry?.hasPrefix("-rw-r--r-- root/root") == true, "\(listing)")
            }
            #expect(listing.contains { $0.hasSuffix(" ./usr/share/doc/fsindex-model-minilm/copyright") })

            // The two packages' files in one root, as apt would lay them out; no FSINDEX_MODEL_DIR
            // and an empty home: the model can only come from usr/share beside usr/bin.
            let unpacked = try DebianPackage.unpacked()
            let x = try run(executable: dpkgDeb, ["-x", modelDeb, unpacked.path("root").string], timeout: 120)
            #expect(x.status == 0, "\(x.stderr)")
            let bin = unpacked.path("root/usr/bin").string
            let work = try TemporaryTree(prefix: "fsindex-deb-model")
            try work.create("docs/pause.md", contents: "# Sleeping a thread\n\nHow to suspend a program for a while.\n")
            try work.create("docs/heron.txt", contents: "the grey heron waits by the water")
            try work.createDirectory("run")
            _ = chmod(work.path("run").string, 0o700)
            let env = ["FSINDEX_INDEX_DIR": work.path("index").string, "XDG_CONFIG_HOME": work.path("config").string,
                       "XDG_DATA_HOME": work.path("data").string, "XDG_STATE_HOME": work.path("state").string,
                       "XDG_RUNTIME_DIR": work.path("run").string, "HOME": work.path("home").string, "FSINDEX_WORKER": "", "FSINDEX_MODEL_DIR": ""]
            let indexed = try run(executable: bin + "/fsindex", ["index", work.path("docs").string], env: env, timeout: 300)
            #expect(indexed.status == 0, "\(indexed.stderr)")
            #expect((indexed.out + indexed.stderr).contains("by meaning: "), "\(indexed.out)\(indexed.stderr)")
            let status = try run(executable: bin + "/fsindex", ["status"], env: env, timeout: 60)
            #expect(status.lines.contains { $0.hasPrefix("by meaning: ") && !$0.hasPrefix("by meaning: 0 ") }, "\(status.out)\(status.stderr)")
        }
    }

    @Test("lintian reports no errors in the model's package", .sentenceModel,
          .enabled(if: DebianPackage.tool("lintian") != nil, "needs lintian (apt-get install lintian)"))
    func modelPackageLintian() throws {
        let modelDeb = try #require(try DebianPackage.built.get().modelDeb)
        let r = try run(executable: DebianPackage.tool("lintian")!, ["--fail-on", "error", "--no-tag-display-limit", modelDeb], timeout: 600)
        #expect(r.status == 0 && !r.lines.contains { $0.hasPrefix("E: ") }, "lintian:\n\(r.out)\(r.stderr)")
    }

    @Test("each installed man page opens with man -l", .enabled(if: DebianPackage.tool("man") != nil, "needs man (apt-get install man-db)"))
    func manPagesOpen() throws {
        let unpacked = try DebianPackage.unpacked()
        for page in ["man1/fsfind.1.gz", "man1/fsindex.1.gz", "man1/fsindexd.1.gz", "man1/fsindex-mcp.1.gz",
                     "man5/fsindex.toml.5.gz", "man7/fsindex-query.7.gz"] {
            let r = try run(executable: DebianPackage.tool("man")!, ["-l", unpacked.path("root/usr/share/man/" + page).string],
                            env: ["MANPAGER": "cat", "MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""], timeout: 60)
            #expect(r.status == 0 && r.out.count > 500, "\(page): \(r.stderr)")
            #expect(r.stderr.isEmpty, "\(page): \(r.stderr)")
        }
    }

    @Test("the search providers' desktop file is valid", .enabled(if: DebianPackage.tool("desktop-file-validate") != nil, "needs desktop-file-validate (apt-get install desktop-file-utils)"))
    func desktopFileValid() throws {
        let unpacked = try DebianPackage.unpacked()
        let r = try run(executable: DebianPackage.tool("desktop-file-validate")!,
                        [unpacked.path("root/usr/share/applications/org.fsindex.FSIndex.desktop").string], timeout: 60)
        #expect(r.status == 0 && r.out.isEmpty && r.stderr.isEmpty, "\(r.out)\(r.stderr)")
        let ini = try String(contentsOfFile: unpacked.path("root/usr/share/gnome-shell/search-providers/org.fsindex.SearchProvider.ini").string, encoding: .utf8)
        #expect(ini.contains("DesktopId=org.fsindex.FSIndex.desktop\n") && ini.contains("BusName=org.fsindex.SearchProvider\n")
                && ini.contains("ObjectPath=/org/fsindex/SearchProvider\n") && ini.contains("Version=2\n"))
    }

    @Test("lintian reports no errors", .enabled(if: DebianPackage.tool("lintian") != nil, "needs lintian (apt-get install lintian)"))
    func lintian() throws {
        let r = try run(executable: DebianPackage.tool("lintian")!, ["--fail-on", "error", "--no-tag-display-limit", try DebianPackage.deb()], timeout: 600)
        #expect(r.status == 0, "lintian:\n\(r.out)\(r.stderr)")
        #expect(!r.lines.contains { $0.hasPrefix("E: ") }, "\(r.out)")
    }

    @Test("apt-get installs it: man finds the pages, the completions are where bash looks, fsindex setup starts fsindexd and fsfind answers through it; then it is removed",
          .enabled(if: getuid() == 0 && DebianPackage.tool("apt-get") != nil, "needs root and apt-get"),
          .enabled(if: !FileManager.default.fileExists(atPath: "/usr/bin/fsindex"), "fsindex is installed on this machine already; the test would replace it"))
    func installsWithApt() throws {
        let deb = try DebianPackage.deb()
        let install = try run(executable: DebianPackage.tool("apt-get")!, ["install", "-y", "--no-install-recommends", deb],
                              env: ["DEBIAN_FRONTEND": "noninteractive"], timeout: 600)
        defer { _ = try? run(executable: DebianPackage.tool("dpkg")!, ["--purge", "fsindex"], timeout: 300) }
        #expect(install.status == 0, "\(install.out)\n\(install.stderr)")
        #expect(try run(executable: "/usr/bin/fsfind", ["--help"], timeout: 60).out.contains("--group-by"))
        #expect(try run(executable: "/usr/bin/fsindexd", ["--help"], timeout: 60).out.contains("fsindexd"))
        if let man = DebianPackage.tool("man") {
            #expect(try run(executable: man, ["-w", "fsfind"], timeout: 60).out.contains("/usr/share/man/man1/fsfind.1.gz"))
            #expect(try run(executable: man, ["-w", "7", "fsindex-query"], timeout: 60).out.contains("/usr/share/man/man7/fsindex-query.7.gz"))
        }
        #expect(FileManager.default.fileExists(atPath: "/usr/share/bash-completion/completions/fsfind"))

        // `fsindex setup` from the installed files, in a home of its own: no systemd user manager
        // (PATH holds no systemctl), so it starts /usr/bin/fsindexd itself; fsfind answers
        // through it with a file of the XDG Documents folder; --undo stops it.
        let home = try TemporaryTree(prefix: "fsindex-deb-home")
        try home.createDirectory("bin")
        try home.createDirectory("run")
        _ = chmod(home.path("run").string, 0o700)
        try home.create("home/.config/user-dirs.dirs", contents: "XDG_DOCUMENTS_DIR=\"$HOME/Documents\"\n")
        try home.create("home/Documents/tern.txt", contents: "an arctic tern")
        let env = ["HOME": home.path("home").string, "XDG_CONFIG_HOME": home.path("home/.config").string,
                   "XDG_DATA_HOME": home.path("data").string, "XDG_STATE_HOME": home.path("state").string,
                   "XDG_RUNTIME_DIR": home.path("run").string, "PATH": home.path("bin").string,
                   "DBUS_SESSION_BUS_ADDRESS": "", "FSINDEX_INDEX_DIR": "", "FSINDEX_WORKER": ""]
        let setup = try run(executable: "/usr/bin/fsindex", ["setup"], env: env, timeout: 180)
        #expect(setup.status == 0, "\(setup.out)\n\(setup.stderr)")
        let answered = try eventually(90, every: .milliseconds(100)) {
            var traced = env
            traced["FSFIND_TRACE"] = "1"
            let r = try run(executable: "/usr/bin/fsfind", ["arctic", "tern"], env: traced, timeout: 60)
            return r.stderr.contains("answered by fsindexd") && r.lines == [home.path("home/Documents/tern.txt").string]
        }
        #expect(answered, "fsfind did not find the Documents file through the fsindexd setup started")

        // GNOME Shell's search reaches the installed provider: D-Bus starts /usr/bin/fsindex
        // search-provider from /usr/share/dbus-1/services on the first call, and it answers from
        // the index setup made. (The bus is ended by hand: this test's processes inherit a
        // blocked SIGTERM, so dbus-run-session's would not end it.)
        if let session = DebianPackage.tool("dbus-run-session"), DebianPackage.tool("gdbus") != nil {
            var busEnv = env
            busEnv["PATH"] = "/usr/bin:/bin"
            busEnv["DBUS_SESSION_BUS_ADDRESS"] = nil
            let script = """
                gdbus call --session --dest org.fsindex.SearchProvider --object-path /org/fsindex/SearchProvider \\
                    --method org.gnome.Shell.SearchProvider2.GetInitialResultSet "['arctic', 'te']"
                bus=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.DBus | sed 's/.*uint32 \\([0-9]*\\).*/\\1/')
                kill -KILL "$bus"
                """
            let searched = try run(executable: session, ["--", "/bin/bash", "-c", script], env: busEnv, timeout: 120)
            #expect(searched.out == "(['\(home.path("home/Documents/tern.txt").string)'],)\n", "\(searched.out)\n\(searched.stderr)")
        }
        let undo = try run(executable: "/usr/bin/fsindex", ["setup", "--undo"], env: env, timeout: 120)
        #expect(undo.status == 0, "\(undo.out)\n\(undo.stderr)")

        let removed = try run(executable: DebianPackage.tool("dpkg")!, ["--purge", "fsindex"], timeout: 300)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/fsindex"))
    }
}

@Suite("Debian package: the release build", .blocking)
struct ReleaseBuildCommandTests {
    /// build-deb builds the package as README's first command builds `.build/release` (which
    /// CI and the package tests package): one set of flags, or sizes that differ from the ones
    /// README gives.
    @Test("README's release build and build-deb's are the same command")
    func sameCommand() throws {
        let script = try String(contentsOfFile: DebianPackage.buildScript, encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("release_build=") })
        let command = line.dropFirst("release_build=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        #expect(command.hasPrefix("swift build -c release --static-swift-stdlib"))
        let readme = try String(contentsOf: DebianPackage.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let quickStart = try #require(readme.split(separator: "\n").first { $0.contains("apt-get install") && $0.contains("swift build -c release") })
        #expect(quickStart.contains("&& \(command) &&"), "README's first command does not build with: \(command)")
    }
}
