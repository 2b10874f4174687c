import Foundation
import TestSupport
import Testing

/// The manual pages under `Config/packaging/man` (issue 26): each renders without a single
/// warning, every option a command takes is on its page, and every key of the documented
/// config is on fsindex.toml(5) with its default. So a new option, subcommand or setting
/// without documentation fails here, not in a user's terminal.
@Suite("Manual pages", .blocking)
struct ManualPageTests {
    /// `<checkout>/Config/packaging/man`; `#filePath` is `<checkout>/Tests/CommandTests/…`.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/packaging/man")
    static let checkout = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let pages = ["fsfind.1", "fsindex.1", "fsindexd.1", "fsindex-mcp.1", "fsindex.toml.5", "fsindex-query.7"]

    static func source(_ page: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(page), encoding: .utf8)
    }

    // MARK: Rendering

    @Test("renders with groff without a warning", .enabled(if: Tool.exists("groff"), Tool.groffSkipReason), arguments: pages)
    func groffRendersCleanly(page: String) throws {
        // -t: the tables (tbl); -ww: every warning; -z: no output, only the diagnostics.
        let r = try run(executable: Tool.path("groff")!, ["-t", "-man", "-ww", "-z", "-Tutf8", Self.folder.appendingPathComponent(page).path],
                        timeout: 60)
        #expect(r.status == 0, "groff exited \(r.status) on \(page)")
        #expect(r.stderr.isEmpty, "groff warned on \(page):\n\(r.stderr)")
    }

    @Test("man -l shows it, with no warning", .enabled(if: Tool.exists("man"), Tool.manSkipReason), arguments: pages)
    func manRendersCleanly(page: String) throws {
        // man-db runs the preprocessors the page asks for and groff; --warnings passes -ww.
        // 80 columns, as on a terminal of that width (and in a pipe, man's default).
        let r = try run(executable: Tool.path("man")!, ["--warnings", "-l", Self.folder.appendingPathComponent(page).path],
                        env: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"], timeout: 60)
        #expect(r.status == 0, "man exited \(r.status) on \(page): \(r.stderr)")
        #expect(r.stderr.isEmpty, "man warned on \(page):\n\(r.stderr)")
        for heading in ["NAME", "DESCRIPTION", "SEE ALSO"] {
            #expect(r.lines.contains(heading), "\(page) has no \(heading) section")
        }
    }

    @Test("the section-1 pages have the sections of a real page", arguments: ["fsfind.1", "fsindex.1", "fsindexd.1", "fsindex-mcp.1"])
    func commandPageSections(page: String) throws {
        let headings = Set(try Self.source(page).split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { String($0.dropFirst(4)) })
        for h in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]
            where !(h == "OPTIONS" && headings.contains("COMMON OPTIONS")) {
            #expect(headings.contains(h), "\(page) has no \(h) section")
        }
    }

    /// The pages as the package installs them (`man1/`, `man5/`, `man7/`), read by name as a
    /// user would: `man fsfind`, `man 7 fsindex-query`, and fsfind-direct through its `.so`.
    @Test("man opens each page by name from an installed layout", .enabled(if: Tool.exists("man"), Tool.manSkipReason))
    func installedLayout() throws {
        let tree = try TemporaryTree(prefix: "fsindex-man")
        for page in Self.pages + ["fsfind-direct.1"] {
            try tree.create("man\(page.split(separator: ".").last!)/\(page)", contents: try Self.source(page))
        }
        let env = ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"]
        for (args, title) in [(["fsfind"], "FSFIND(1)"), (["fsfind-direct"], "FSFIND(1)"), (["fsindex"], "FSINDEX(1)"),
                              (["fsindexd"], "FSINDEXD(1)"), (["fsindex-mcp"], "FSINDEX-MCP(1)"),
                              (["5", "fsindex.toml"], "FSINDEX.TOML(5)"), (["7", "fsindex-query"], "FSINDEX-QUERY(7)")] {
            let r = try run(executable: Tool.path("man")!, ["--warnings", "-M", tree.path("").string] + args, env: env, timeout: 60)
            #expect(r.status == 0, "man \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)")
            #expect(r.stderr.isEmpty, "man \(args.joined(separator: " ")) warned: \(r.stderr)")
            #expect(r.lines.first?.hasPrefix(title) == true, "man \(args.joined(separator: " ")) showed \(r.lines.first ?? "nothing")")
        }
    }

    @Test("fsfind-direct(1) is fsfind(1)")
    func alias() throws {
        #expect(try Self.source("fsfind-direct.1") == ".so man1/fsfind.1\n")
        #expect(try Self.source("fsfind.1").contains("fsfind, fsfind\\-direct \\- "))
    }

    // MARK: Options against the commands

    /// The page text with roff's escapes for hyphens and fonts taken out, so that options read
    /// as typed: `\-\-index\-dir` is `--index-dir`.
    static func plain(_ roff: Substring) -> String {
        var s = String(roff).replacingOccurrences(of: "\\-", with: "-")
        for font in ["\\fB", "\\fI", "\\fR", "\\fP", "\\&"] { s = s.replacingOccurrences(of: font, with: "") }
        return s
    }

    /// Whether `text` names `option` (`--limit`, `-0`) as a whole word: `--index` is not
    /// `--index-dir`.
    static func mentions(_ text: String, _ option: String) -> Bool {
        var search = text.startIndex..<text.endIndex
        while let r = text.range(of: option, range: search) {
            let before = r.lowerBound == text.startIndex ? " " : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? " " : text[r.upperBound]
            let wordy: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            if !wordy(before) && !wordy(after) { return true }
            search = r.upperBound..<text.endIndex
        }
        return false
    }

    /// The text of `page` from the line `start` (exactly) to the next heading of the same or a
    /// higher level.
    static func section(_ page: String, startingWith start: (String) -> Bool) throws -> String? {
        let lines = try source(page).split(separator: "\n", omittingEmptySubsequences: false)
        guard let i = lines.firstIndex(where: { start(String($0)) }) else { return nil }
        let level = lines[i].hasPrefix(".SH") ? [".SH"] : [".SH", ".SS"]
        let end = lines[(i + 1)...].firstIndex { line in level.contains { line.hasPrefix($0 + " ") } } ?? lines.endIndex
        return plain(lines[i..<end].joined(separator: "\n")[...])
    }

    @Test("every option of fsfind, fsindexd and fsindex-mcp is on its page",
          arguments: [("fsfind-direct", "fsfind.1"), ("fsindexd", "fsindexd.1"), ("fsindex-mcp", "fsindex-mcp.1")])
    func toolOptionsDocumented(tool: String, page: String) throws {
        let help = try DumpedHelp.of(tool)
        let text = Self.plain(try Self.source(page)[...])
        let options = help.options
        #expect(!options.isEmpty, "\(tool) --experimental-dump-help listed no options")
        for option in options where !Self.mentions(text, option) {
            Issue.record("\(tool) takes \(option), but \(page) does not mention it")
        }
    }

    @Test("every fsindex subcommand has a section of fsindex(1) naming each of its options")
    func subcommandsDocumented() throws {
        let help = try DumpedHelp.of("fsindex")
        #expect(help.subcommands.count >= 15, "fsindex --experimental-dump-help listed \(help.subcommands.count) subcommands")
        // Options every command takes are written once, under COMMON OPTIONS.
        let common = try #require(try Self.section("fsindex.1") { $0 == ".SH COMMON OPTIONS" })
        for option in help.options where !Self.mentions(common, option) {
            Issue.record("fsindex takes \(option), but COMMON OPTIONS of fsindex.1 does not mention it")
        }
        for sub in help.subcommands {
            let name = sub.name
            guard let text = try Self.section("fsindex.1", startingWith: { $0 == ".SS fsindex \(name)" || $0.hasPrefix(".SS fsindex \(name) ") }) else {
                Issue.record("fsindex \(name) has no section (.SS fsindex \(name) …) in fsindex.1")
                continue
            }
            for option in sub.options where !Self.mentions(text, option) && !Self.mentions(common, option) {
                Issue.record("fsindex \(name) takes \(option), but its section of fsindex.1 does not mention it")
            }
        }
    }

    // MARK: Settings against the documented config

    /// One key of `Config/fsindex.toml`: its table, name, and default as written (nil for a
    /// key shown only in a comment, such as `me` or a provider's).
    struct ConfigKey: CustomStringConvertible {
        var table: String
        var name: String
        var value: String?
        var description: String { table.isEmpty ? name : "\(table) \(name)" }
    }

    static func configKeys() throws -> [ConfigKey] {
        let toml = try String(contentsOf: checkout.appendingPathComponent("Config/fsindex.toml"), encoding: .utf8)
        var table = ""
        var keys: [ConfigKey] = []
        for raw in toml.split(separator: "\n") {
            var line = raw.trimmingCharacters(in: .whitespaces)
            let commented = line.hasPrefix("#")
            if commented { line = line.drop { $0 == "#" || $0 == " " }.description }
            if line.hasPrefix("["), let close = line.lastIndex(of: "]"), !line.contains("=") {
                table = String(line[...close])
                continue
            }
            // `name = value`, the name in lower case and underscores (a comment's prose has none).
            guard let eq = line.range(of: " = ") else { continue }
            let name = String(line[..<eq.lowerBound])
            guard !name.isEmpty, name.allSatisfy({ $0.isLowercase || $0 == "_" }) else { continue }
            keys.append(ConfigKey(table: table, name: name, value: commented ? nil : String(line[eq.upperBound...])))
        }
        return keys
    }

    @Test("every key of Config/fsindex.toml is on fsindex.toml(5), under its table, with its default")
    func configDocumented() throws {
        let keys = try Self.configKeys()
        #expect(keys.count >= 30, "read only \(keys.count) keys from Config/fsindex.toml")
        #expect(keys.contains { $0.table == "[[provider]]" && $0.name == "reindex" })
        #expect(keys.contains { $0.table == "[agent]" && $0.name == "me" && $0.value == nil })
        for key in keys {
            let heading = key.table.isEmpty ? ".SH TOP LEVEL" : ".SH \(key.table)"
            guard let text = try Self.section("fsindex.toml.5", startingWith: { $0 == heading }) else {
                Issue.record("fsindex.toml.5 has no section \(heading) for \(key)")
                continue
            }
            // Each key is a .TP entry: `.BR name " = default"` or `.B name`.
            let lines = text.split(separator: "\n").map(String.init)
            let tags = zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map { Self.tag($0.1) }
            guard let tag = tags.first(where: { $0 == key.name || $0.hasPrefix(key.name + " = ") }) else {
                Issue.record("\(key) is not documented in fsindex.toml.5 (no .TP entry under \(heading))")
                continue
            }
            if let value = key.value {
                #expect(tag == "\(key.name) = \(value)", "\(key): Config/fsindex.toml says \(value), fsindex.toml.5 says \(tag)")
            }
        }
    }

    /// A `.TP` tag as it reads: `.BR exclude " = [\(dq*\(ti\(dq]"` is `exclude = ["*~"]`.
    static func tag(_ line: String) -> String {
        var s = line
        for macro in [".BR ", ".B ", ".BI ", ".IR ", ".I "] where s.hasPrefix(macro) { s.removeFirst(macro.count); break }
        s = s.replacingOccurrences(of: "\" = ", with: "= ").replacingOccurrences(of: " \" =", with: " =")
        if s.hasSuffix("\"") { s.removeLast() }
        s = s.replacingOccurrences(of: "\\(dq", with: "\"").replacingOccurrences(of: "\\(ti", with: "~")
        return s
    }
}

/// What swift-argument-parser's `--experimental-dump-help` says a command takes.
struct DumpedHelp {
    var name: String
    /// The options and flags a user sees in `--help`, as typed: `--limit`, `-0`.
    var options: [String]
    var subcommands: [DumpedHelp]

    static func of(_ tool: String) throws -> DumpedHelp {
        let r = try run(tool, ["--experimental-dump-help"], timeout: 60)
        guard r.status == 0 else { throw Failure("\(tool) --experimental-dump-help exited \(r.status): \(r.stderr)") }
        guard let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any],
              let command = json["command"] as? [String: Any] else {
            throw Failure("\(tool) --experimental-dump-help printed no command: \(r.out.prefix(200))")
        }
        return DumpedHelp(command)
    }

    init(_ command: [String: Any]) {
        name = command["commandName"] as? String ?? ""
        var options: [String] = []
        for argument in command["arguments"] as? [[String: Any]] ?? [] {
            guard argument["kind"] as? String != "positional", argument["shouldDisplay"] as? Bool ?? true else { continue }
            for n in argument["names"] as? [[String: Any]] ?? [] {
                guard let name = n["name"] as? String else { continue }
                switch n["kind"] as? String {
                case "long": options.append("--" + name)
                case "short": options.append("-" + name)
                case "longWithSingleDash": options.append("-" + name)
                default: break
                }
            }
        }
        self.options = options
        subcommands = (command["subcommands"] as? [[String: Any]] ?? []).map(DumpedHelp.init)
            .filter { $0.name != "help" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}

/// Programs the documentation tests use, found on PATH; a test that needs one that is missing
/// is skipped with the Debian package to install.
enum Tool {
    static func path(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static func exists(_ name: String) -> Bool { path(name) != nil }

    static let groffSkipReason: Comment = "needs groff (apt-get install groff-base)"
    static let manSkipReason: Comment = "needs man (apt-get install man-db)"
}
