import Foundation
import SystemPackage
import TestSupport
import Testing

/// `fsfind from:me`, `to:me`: who "me" is comes from `[agent] me`, else from git's config and
/// passwd, over messages from me, to me, and from people whose names contain mine.
@Suite("fsfind: me", .blocking)
struct MeCLITests {
    /// A message file.
    static func message(from: String, to: String, subject: String, body: String) -> String {
        "From: \(from)\nTo: \(to)\nSubject: \(subject)\nDate: Mon, 01 Jun 2026 10:00:00 +0000\n\n\(body)\n"
    }

    /// An indexed tree of messages, and a home with nothing in it.
    struct Fixture {
        let f: CLIFixture
        var home: String { f.tree.path("home").string }
        var xdg: String { f.tree.path("home/.config").string }

        init() throws {
            f = try CLIFixture()
            try f.tree.createDirectory("home")
            let messages = [
                "from-me.eml": message(from: "Ada Lovelace <ada@example.org>", to: "Bob <bob@example.org>", subject: "Engine",
                                      body: "The engine weaves patterns."),
                "from-me-too.eml": message(from: "\"The Countess\" <ada@example.org>", to: "bob@example.org", subject: "Notes",
                                          body: "More notes."),
                "from-byron.eml": message(from: "Ada Lovelace-Byron <ab@example.org>", to: "Bob <bob@example.org>", subject: "Poems",
                                         body: "Verses."),
                "from-adam.eml": message(from: "Adam Lovelace <adam@example.org>", to: "Bob <bob@example.org>", subject: "Hello",
                                        body: "Hi Bob."),
                "to-me.eml": message(from: "Bob <bob@example.org>", to: "Ada Lovelace <ada@example.org>", subject: "Reply",
                                    body: "Dear Ada Lovelace, thanks."),
                "mentions.txt": "Ada Lovelace <ada@example.org> wrote the first program.\n",
            ]
            for (name, text) in messages {
                try f.tree.create("root/" + name, contents: text)
            }
            let indexed = try command("fsindex", ["index", f.root])
            #expect(indexed.status == 0, "\(indexed.stderr)")
        }

        /// Runs `tool` with HOME and XDG_CONFIG_HOME in the fixture's home (never the tester's).
        func command(_ tool: String, _ args: [String]) throws -> CommandResult {
            try run(tool, args, env: ["FSINDEX_INDEX_DIR": f.index, "HOME": home, "XDG_CONFIG_HOME": xdg])
        }

        func fsfind(_ args: [String]) throws -> CommandResult { try command("fsfind", args) }

        func names(_ r: CommandResult) -> Set<String> {
            Set(r.lines.map { String($0.split(separator: "/").last!) })
        }
    }

    @Test("[agent] me in the user's config or a --config file: from:me finds my messages only, to:me the ones to me")
    func configured() throws {
        let x = try Fixture()
        let me = "[agent]\nme = { name = \"Ada Lovelace\", emails = [\"ada@example.org\"] }\n"
        try x.f.tree.create("home/.config/fsindex/config.toml", contents: me)
        let from = try x.fsfind(["from:me"])
        #expect(from.status == 0, "\(from.stderr)")
        #expect(x.names(from) == ["from-me.eml", "from-me-too.eml"], "\(from.out)")
        #expect(x.names(try x.fsfind(["author:ME"])) == ["from-me.eml", "from-me-too.eml"])
        #expect(x.names(try x.fsfind(["to:me"])) == ["to-me.eml"])
        #expect(x.names(try x.fsfind(["from:me", "engine"])) == ["from-me.eml"])
        // A --config file instead of the user's: only the name, so only the message signed with it.
        let other = try x.f.tree.create("other.toml", contents: "[agent.me]\nname = \"ada lovelace\"\n")
        #expect(x.names(try x.fsfind(["--config", other.string, "from:me"])) == ["from-me.eml"])
        // A bad me is a config error, with its line.
        let bad = try x.f.tree.create("bad.toml", contents: "[agent]\nme = { nom = \"Ada\" }\n")
        let r = try x.fsfind(["--config", bad.string, "from:me"])
        #expect(r.status == 2 && r.stderr.contains("bad.toml:2: agent.me.nom: unknown setting"), "\(r.stderr)")
    }

    @Test("without [agent] me: git's user.name and user.email from ~/.gitconfig")
    func fromGit() throws {
        let x = try Fixture()
        try x.f.tree.create("home/.gitconfig", contents: "[core]\n\teditor = vi\n[user]\n\tname = Ada Lovelace\n\temail = ada@example.org\n")
        let from = try x.fsfind(["from:me"])
        #expect(from.status == 0, "\(from.stderr)")
        #expect(x.names(from) == ["from-me.eml", "from-me-too.eml"], "\(from.out)")
        // Only the address in $XDG_CONFIG_HOME/git/config, which ~/.gitconfig's name joins.
        try x.f.tree.create("home/.gitconfig", contents: "[user]\n\tname = Nobody Known\n")
        try x.f.tree.create("home/.config/git/config", contents: "[user]\n\temail = ada@example.org\n")
        #expect(x.names(try x.fsfind(["from:me"])) == ["from-me.eml", "from-me-too.eml"])
        #expect(x.names(try x.fsfind(["to:me"])) == ["to-me.eml"])
    }

    @Test("with nothing to say who me is, from:me is an error naming [agent] me (exit 2); a quoted \"me\" is a word")
    func unknown() throws {
        let x = try Fixture()
        let r = try x.fsfind(["from:me"])
        // Nothing in the config or git's files: passwd's full name is the last resort (the
        // tests may run as a user that has one, such as root's "root").
        let gecos = getpwuid(getuid()).flatMap { $0.pointee.pw_gecos.map { String(cString: $0) } }?
            .split(separator: ",", omittingEmptySubsequences: false).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if gecos.isEmpty {
            #expect(r.status == 2, "\(r.out)")
            #expect(r.stderr.contains("`me` is not known: set `[agent] me = { name ="), "\(r.stderr)")
            #expect(r.stderr.contains("from:me\n") && r.stderr.contains("       ^"), "\(r.stderr)")
        } else {
            // Nobody of that name wrote anything here.
            #expect(r.status == 1 && r.stderr.isEmpty, "\(gecos): \(r.stderr)")
        }
        let quoted = try x.fsfind(["from:\"me\""])
        #expect(quoted.status == 1 && quoted.stderr.isEmpty, "\(quoted.stderr)")
    }
}
