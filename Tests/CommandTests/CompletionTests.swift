import Foundation
import TestSupport
import Testing

/// The shell completions the package installs (issue 26): `Config/packaging/completions.sh`
/// generates them from the built commands, and each shell really completes with them.
@Suite("Shell completions", .blocking)
struct CompletionTests {
    static let script = ManualPageTests.checkout.appendingPathComponent("Config/packaging/completions.sh").path
    static let commands = ["fsfind", "fsindex", "fsindexd", "fsindex-mcp"]

    /// Runs completions.sh into a fresh folder and returns it (the tree keeps it alive).
    static func generate() throws -> (TemporaryTree, URL) {
        let tree = try TemporaryTree(prefix: "fsindex-completions")
        let out = URL(fileURLWithPath: tree.path("out").string)
        let r = try run(executable: "/bin/sh", [script, Binaries.directory.path, out.path], timeout: 120)
        guard r.status == 0 else { throw DumpedHelp.Failure("completions.sh exited \(r.status): \(r.stderr)") }
        #expect(r.out == out.path + "\n", "completions.sh should print OUT_DIR, printed \(r.out)")
        return (tree, out)
    }

    @Test("completions.sh writes a script per shell and command, each for the command's own name")
    func writesEveryScript() throws {
        let (tree, out) = try Self.generate()
        defer { withExtendedLifetime(tree) {} }   // the scripts live in it
        for name in Self.commands {
            for (file, registers) in [("bash/\(name)", "complete -o filenames -F _\(name) \(name)\n"),
                                      ("zsh/_\(name)", "#compdef \(name)\n"),
                                      ("fish/\(name).fish", "complete -c '\(name)'")] {
                let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
                if !text.contains(registers) {
                    Issue.record("\(file) does not register \(name) (\(registers.trimmingCharacters(in: .newlines)))")
                }
                // fsfind's come from fsfind-direct, whose name must not leak into them.
                if text.contains("fsfind-direct") { Issue.record("\(file) names fsfind-direct") }
            }
        }
    }

    /// swift-argument-parser's scripts call the command back (`fsfind ---completion …`) only
    /// for arguments with a custom completion. fsfind has none: the small fsfind client hands
    /// every argument to fsindexd or fsfind-direct as a query, and would need to pass such a
    /// call to fsfind-direct untouched if one were added.
    @Test("fsfind's completions never call fsfind back")
    func noCallBack() throws {
        let (tree, out) = try Self.generate()
        defer { withExtendedLifetime(tree) {} }   // the scripts live in it
        for file in ["bash/fsfind", "zsh/_fsfind", "fish/fsfind.fish"] {
            let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            // The helper is defined once; any further mention is a call.
            let calls = text.components(separatedBy: "__fsfind_custom_complete").count - 1
            if calls > 1 || text.contains("---completion") {
                Issue.record("\(file) calls fsfind back for a custom completion: make the small fsfind client pass ---completion to fsfind-direct")
            }
        }
    }

    @Test("completions.sh refuses a folder without the commands")
    func missingCommands() throws {
        let tree = try TemporaryTree(prefix: "fsindex-completions")
        try tree.createDirectory("empty")
        let r = try run(executable: "/bin/sh", [Self.script, tree.path("empty").string, tree.path("out").string], timeout: 60)
        #expect(r.status == 2)
        #expect(r.stderr.contains("fsfind-direct is missing"), "\(r.stderr)")
    }

    // MARK: bash

    /// What bash's completion function for `line` (the cursor at its end) offers: the script
    /// is sourced, COMP_* set as readline sets them, and the function `complete -p` names called.
    static func bashCompletions(_ out: URL, _ command: String, _ line: String) throws -> [String] {
        let program = """
            source "$1" || exit 3
            spec=$(complete -p \(command)) || exit 4
            function=${spec#*-F }; function=${function%% *}
            COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
            read -r -a COMP_WORDS <<< "$COMP_LINE"
            if [[ $COMP_LINE == *" " ]]; then COMP_WORDS+=(""); fi
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            "$function" \(command) "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let r = try run(executable: "/bin/bash", ["--norc", "--noprofile", "-c", program, "bash",
                                                  out.appendingPathComponent("bash/\(command)").path, line], timeout: 60)
        guard r.status == 0 else { throw DumpedHelp.Failure("bash completion of '\(line)' exited \(r.status): \(r.stderr)") }
        #expect(r.stderr.isEmpty, "bash completion of '\(line)' wrote to stderr: \(r.stderr)")
        return r.lines.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("bash completes options, subcommands and values")
    func bash() throws {
        let (tree, out) = try Self.generate()
        defer { withExtendedLifetime(tree) {} }   // the scripts live in it
        #expect(try Self.bashCompletions(out, "fsfind", "fsfind --gro") == ["--group-by"])
        #expect(try Self.bashCompletions(out, "fsindex", "fsindex ind") == ["index"])
        #expect(try Self.bashCompletions(out, "fsindex", "fsindex tag --conf") == ["--config"])
        #expect(try Self.bashCompletions(out, "fsindexd", "fsindexd --fore") == ["--foreground"])
        #expect(try Self.bashCompletions(out, "fsindex-mcp", "fsindex-mcp --max") == ["--max-results"])
        // An option's values: --sort takes the orders.
        let orders = try Self.bashCompletions(out, "fsfind", "fsfind --sort ")
        #expect(Set(orders) == ["relevance", "name", "size", "modified", "created", "used", "priority"], "\(orders)")
    }

    // MARK: fish and zsh

    @Test("fish completes fsfind --gro to --group-by", .enabled(if: Tool.exists("fish"), "needs fish (apt-get install fish)"))
    func fish() throws {
        let (tree, out) = try Self.generate()
        defer { withExtendedLifetime(tree) {} }   // the scripts live in it
        let file = out.appendingPathComponent("fish/fsfind.fish").path
        let r = try run(executable: Tool.path("fish")!, ["--no-config", "-c", "source $argv[1]; and complete -C 'fsfind --gro'", file],
                        timeout: 60)
        #expect(r.status == 0, "fish exited \(r.status): \(r.stderr)")
        #expect(r.stderr.isEmpty, "fish wrote to stderr: \(r.stderr)")
        // Each candidate is a line: the word, a tab, its description.
        let words = r.lines.map { String($0.prefix { $0 != "\t" }) }
        #expect(words == ["--group-by"], "\(r.out)")
        let sub = try run(executable: Tool.path("fish")!,
                          ["--no-config", "-c", "source $argv[1]; and complete -C 'fsindex ind'", out.appendingPathComponent("fish/fsindex.fish").path],
                          timeout: 60)
        #expect(sub.lines.map { String($0.prefix { $0 != "\t" }) } == ["index"], "\(sub.out)\(sub.stderr)")
    }

    @Test("zsh loads every script without an error", .enabled(if: Tool.exists("zsh"), "needs zsh (apt-get install zsh)"))
    func zsh() throws {
        let (tree, out) = try Self.generate()
        defer { withExtendedLifetime(tree) {} }   // the scripts live in it
        let home = tree.path("home").string
        try tree.createDirectory("home")
        for name in Self.commands {
            let file = out.appendingPathComponent("zsh/_\(name)").path
            let r = try run(executable: Tool.path("zsh")!, ["-f", "-c", "autoload -U compinit && compinit -u && source \"$1\" && (( $+functions[_\(name)] ))", "zsh", file],
                            env: ["ZDOTDIR": home, "HOME": home], timeout: 60)
            #expect(r.status == 0, "zsh could not load \(file): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.isEmpty, "zsh wrote to stderr loading \(file): \(r.stderr)")
        }
    }
}
