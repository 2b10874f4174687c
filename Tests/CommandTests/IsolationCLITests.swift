import Foundation
import SystemPackage
import TestSupport
import Testing

/// Bad input through the real commands: truncated copies of every corpus file, and files that
/// make a worker crash or hang, end as recorded failures, never as a crash or a hang of `fsindex`.
@Suite("Isolation, as users see it", .blocking)
struct IsolationCLITests {
    @Test("truncated copies of every corpus file are indexed; each problem is reported and listed",
          .realCorpus)
    func truncatedCopies() throws {
        let f = try CLIFixture()
        var copies = 0
        let e = try #require(FileManager.default.enumerator(atPath: RealCorpus.root.string), "cannot list \(RealCorpus.root)")
        while let p = e.nextObject() as? String {
            let source = RealCorpus.root.string + "/" + p
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDir), !isDir.boolValue,
                  !(p as NSString).lastPathComponent.hasPrefix("."), p != "NOTICE.md" else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: source))
            // Half of each file, keeping its name (and so the type a name suggests).
            let flat = p.replacingOccurrences(of: "/", with: "__")
            try f.tree.create("root/" + flat, bytes: Array(data.prefix(data.count / 2)))
            copies += 1
        }
        #expect(copies > 100)
        let start = Date()
        let r = try f.fsindex("index", "--json", f.root)
        #expect(r.status == 0 || r.status == 2, "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 240)
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(report["seen"] as? Int == copies + 1)
        #expect(report["indexed"] as? Int == copies + 1)
        let problems = r.stderr.split(separator: "\n")
        for line in problems {
            #expect(line.hasPrefix("fsindex: \(f.root)/"), "unexpected output: \(line)")
        }
        // Every problem is a listed failure with its reason, and truncation is seen in many formats.
        let failures = try f.fsindex("failures").lines
        #expect(failures.count == problems.count)
        #expect(failures.count >= 10, "\(failures)")
        for line in failures {
            let fields = line.split(separator: "\t", maxSplits: 1)
            #expect(fields.count == 2 && !fields[1].isEmpty, "\(line)")
        }
        // Names stay searchable whatever happened to the content.
        #expect(try f.fsfind("--name", "pdf__testPDF.pdf").lines == [f.root + "/pdf__testPDF.pdf"])
    }

    @Test("a crashing and a hanging file: fsindex reports both, status counts them, failures lists them")
    func crashAndHang() throws {
        let f = try CLIFixture()
        try f.tree.create("root/crash.txt", contents: "FSINDEX-TEST-FAULT:crash\n")
        try f.tree.create("root/hang.txt", contents: "FSINDEX-TEST-FAULT:hang\n")
        try f.tree.create("root/fine.txt", contents: "a perfectly fine wallaby")
        try f.tree.create("config.toml", contents: "[extraction]\ntimeout = 2\n")
        let env = ["FSINDEX_INDEX_DIR": f.index, "FSINDEX_WORKER": Binaries.directory.appendingPathComponent("fsindex-test-worker").path]
        let r = try run("fsindex", ["index", "--config", f.tree.path("config.toml").string, f.root], env: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains("crash.txt: plain-text: crashed (SIGSEGV"), "\(r.stderr)")
        #expect(r.stderr.contains("hang.txt: plain-text: took longer than 2 s"), "\(r.stderr)")
        #expect(try f.fsfind("wallaby").lines == [f.root + "/fine.txt"])
        let status = try f.fsindex("status").stdout
        #expect(String(decoding: status, as: UTF8.self).contains("failures: 2 items"))
        let listed = try f.fsindex("failures", "--json").lines
        #expect(listed.count == 2)
        #expect(listed.allSatisfy { $0.contains("\"extractor\":\"plain-text\"") })
        // Indexing again does not try them again.
        let again = try run("fsindex", ["index", "--config", f.tree.path("config.toml").string, f.root], env: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.isEmpty)
    }

    @Test("issue 11: fsindex status says whether workers confine their reads with Landlock, in text and JSON")
    func sandboxStatus() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "a numbat")
        _ = try f.fsindex("index", f.root)
        let text = String(decoding: try f.fsindex("status").stdout, as: UTF8.self)
        let json = try #require(try JSONSerialization.jsonObject(with: try f.fsindex("status", "--json").stdout) as? [String: Any])
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("sandbox: ") }, "\(text)")
        #expect(json["sandbox"] as? String == String(line.dropFirst("sandbox: ".count)))
        if let abi = json["landlockABI"] as? Int {
            #expect(abi >= 1)
            #expect(line == "sandbox: Landlock ABI \(abi): workers read only library data and the file they are given")
        } else {
            #expect(line.hasPrefix("sandbox: no Landlock ("), "\(line)")
            #expect(line.hasSuffix("workers can read any file their user can"), "\(line)")
        }
    }

    @Test("killing fsindex while its worker hangs on a file ends the worker too")
    func workerDiesWithParent() throws {
        let f = try CLIFixture()
        try f.tree.create("root/hang.txt", contents: "FSINDEX-TEST-FAULT:hang\n")
        try f.tree.create("config.toml", contents: "[extraction]\ntimeout = 120\n")
        let p = Process()
        p.executableURL = Binaries.directory.appendingPathComponent("fsindex")
        p.arguments = ["extract", "--config", f.tree.path("config.toml").string, f.root + "/hang.txt"]
        var env = ProcessInfo.processInfo.environment
        env["FSINDEX_WORKER"] = Binaries.directory.appendingPathComponent("fsindex-test-worker").path
        p.environment = env
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The worker is the child of fsindex that is busy with the file.
        var worker: Int32 = 0
        _ = eventually(5, every: .milliseconds(25)) {
            let children = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/task/\(p.processIdentifier)/children", encoding: .utf8)) ?? ""
            worker = children.split(separator: " ").compactMap { Int32($0) }.first ?? 0
            return worker != 0
        }
        #expect(worker > 0)
        // Well into the hang: fsindex still runs, waiting for the worker.
        let endedEarly = eventually(0.3) { !p.isRunning }
        #expect(!endedEarly)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let gone = eventually(2, every: .milliseconds(20)) {
            let stat = (try? String(contentsOfFile: "/proc/\(worker)/stat", encoding: .utf8)) ?? ""
            return stat.isEmpty || stat.contains(") Z ")   // exited (a zombie until init reaps it)
        }
        #expect(gone, "the worker \(worker) outlived its parent")
        if !gone { kill(worker, SIGKILL) }
    }

    @Test("without a worker binary nothing is parsed in-process: a clear error, exit 2, nothing indexed")
    func missingWorker() throws {
        let f = try CLIFixture()
        try f.tree.create("root/a.txt", contents: "a numbat")
        let env = ["FSINDEX_INDEX_DIR": f.index, "FSINDEX_WORKER": f.tree.path("no-such-worker").string]
        let r = try run("fsindex", ["index", f.root], env: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains("cannot start fsindex-worker: FSINDEX_WORKER=") && r.stderr.contains("is not an executable file"),
                "\(r.stderr)")
        #expect(try f.fsfind("numbat").status != 0)
        let e = try run("fsindex", ["extract", f.root + "/a.txt"], env: env)
        #expect(e.status == 2)
        #expect(e.stderr.contains("cannot start fsindex-worker"))
    }

    @Test("fsindex extract shows the stages and attributes of one file, and stores nothing")
    func extractCommand() throws {
        let f = try CLIFixture()
        try f.tree.create("root/page.html", contents: "<html><head><title>Numbat facts</title></head><body>termites</body></html>")
        let r = try f.fsindex("extract", f.root + "/page.html")
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        for stage in ["filesystem", "type", "html", "total"] { #expect(text.contains("  \(stage) "), "\(text)") }
        #expect(text.contains("title") && text.contains("\"Numbat facts\""))
        let json = try #require(try JSONSerialization.jsonObject(with: try f.fsindex("extract", "--json", f.root + "/page.html").stdout)
                                as? [String: Any])
        let stages = try #require(json["stages"] as? [[String: Any]])
        #expect(stages.map { $0["name"] as? String } == ["filesystem", "type", "html", "xattrs"])   // xattrs: read by the parent, as `fsindex index` does
        #expect((json["attributes"] as? [String: Any])?["textContent"] as? String == "termites")
        // Nothing was stored: there is no index at all.
        #expect(!FileManager.default.fileExists(atPath: f.index + "/index.sqlite"))
        let missing = try f.fsindex("extract", f.root + "/nope.txt")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.txt"))
    }
}

@Suite("No parser in the parent", .blocking)
struct ParserFreeParentTests {
    /// The C libraries that parse files; only `fsindex-worker` may link them.
    static let parsers = ["libpoppler", "libgmime", "libgsf", "libexif", "libexempi", "libiptcdata", "libtag",
                          "libarchive", "libxml2", "libmagic", "libuchardet", "libexttextcat"]

    static func linked(_ tool: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        p.arguments = [Binaries.directory.appendingPathComponent(tool).path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("ldd of fsindex, fsindexd and fsfind lists no parser library", arguments: ["fsindex", "fsindexd", "fsfind"])
    func parentLinksNoParser(tool: String) throws {
        let libraries = try Self.linked(tool)
        #expect(!libraries.isEmpty)
        for parser in Self.parsers { #expect(!libraries.contains(parser + "."), "\(tool) links \(parser)") }
    }

    @Test("the worker does link them (the check above can fail)")
    func workerLinksParsers() throws {
        let libraries = try Self.linked("fsindex-worker")
        for parser in ["libpoppler", "libmagic", "libxml2", "libarchive"] { #expect(libraries.contains(parser + "."), "\(parser)") }
    }
}
