import Attributes
@testable import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `[agent]`: fsindex-mcp's settings, and who `me` is.
@Suite("Settings: [agent]")
struct AgentSettingsTests {
    /// The message loading `toml` fails with, or nil when it loads.
    static func error(_ toml: String) -> String? {
        var s = Settings()
        do { try s.apply(toml: toml, file: "c.toml"); return nil } catch { return error.description }
    }

    @Test("the defaults: every root, 20 results, full format, complete guidance, me from passwd and git")
    func defaults() {
        let a = Settings().agent
        #expect(a.scopes == [] && a.maxResults == 20 && a.format == "full" && a.guidance == "complete" && a.me == nil)
    }

    @Test("every key is read; ~ in scopes becomes the home folder; me takes emails or one email")
    func keys() throws {
        var s = Settings()
        try s.apply(toml: """
            [agent]
            scopes = ["~/Documents", "/srv/shared", "~"]
            max_results = 200
            format = "compact"
            guidance = "dynamic:text,people"
            me = { name = "Ada Lovelace", emails = ["ada@example.org", "countess@example.org"] }
            """, file: "c.toml")
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        #expect(s.agent.scopes == [home + "/Documents", "/srv/shared", home])
        #expect(s.agent.maxResults == 200 && s.agent.format == "compact" && s.agent.guidance == "dynamic:text,people")
        #expect(s.agent.me == Identity(name: "Ada Lovelace", emails: ["ada@example.org", "countess@example.org"], source: "config"))

        try s.apply(toml: "[agent]\nme = { email = \"ada@example.org\" }\nguidance = \"focused:pdf,mail\"\n", file: "c.toml")
        #expect(s.agent.me == Identity(name: nil, emails: ["ada@example.org"], source: "config"))
        #expect(s.agent.guidance == "focused:pdf,mail")
        // A [agent.me] table says the same as the inline one.
        try s.apply(toml: "[agent.me]\nname = \"Ada\"\n", file: "c.toml")
        #expect(s.agent.me == Identity(name: "Ada", emails: [], source: "config"))
        // The other sections are untouched.
        #expect(s.query == Settings().query)
    }

    @Test("bad values name the file, the line, the key and what is expected")
    func errors() {
        let cases: [(String, String)] = [
            ("[agent]\nmax_results = 0\n", "c.toml:2: agent.max_results: expected a number of results from 1 to 200 (the most one search returns)"),
            ("[agent]\nmax_results = 201\n", "c.toml:2: agent.max_results: expected a number of results from 1 to 200 (the most one search returns)"),
            ("[agent]\n\nformat = \"short\"\n", "c.toml:3: agent.format: expected one of \"full\", \"compact\""),
            ("[agent]\nlimit = 3\n", "c.toml:2: agent.limit: unknown setting"),
            ("agent = 3\n", "c.toml:1: agent: expected a table [agent]"),
            ("[agent]\nscopes = \"/data\"\n", "c.toml:2: agent.scopes: expected an array of folders, each absolute or under ~ (\"/srv/shared\", \"~/Documents\")"),
            ("[agent]\nscopes = [\"Documents\"]\n", "c.toml:2: agent.scopes: expected an array of folders, each absolute or under ~ (\"/srv/shared\", \"~/Documents\"), not \"Documents\""),
            ("[agent]\nscopes = [1]\n", "c.toml:2: agent.scopes: expected an array of strings"),
            ("[agent]\nguidance = \"some\"\n", "c.toml:2: agent.guidance: expected \"complete\", \"focused:KIND,...\" (such as \"focused:pdf,mail\") or \"dynamic:TECHNIQUE,...\" with techniques from text, names, dates, numbers, people, places"),
            ("[agent]\nguidance = \"focused:\"\n", "c.toml:2: agent.guidance: expected a non-empty comma-separated list after \"focused:\", such as \"focused:pdf,mail\""),
            ("[agent]\nguidance = \"focused:pdf,,mail\"\n", "c.toml:2: agent.guidance: expected a non-empty comma-separated list after \"focused:\", such as \"focused:pdf,mail\""),
            ("[agent]\nguidance = \"dynamic:text,smells\"\n", "c.toml:2: agent.guidance: expected techniques from text, names, dates, numbers, people, places after \"dynamic:\", not \"smells\""),
            ("[agent]\nguidance = 3\n", "c.toml:2: agent.guidance: expected \"complete\", \"focused:KIND,...\" (such as \"focused:pdf,mail\") or \"dynamic:TECHNIQUE,...\" with techniques from text, names, dates, numbers, people, places"),
            ("[agent]\nme = \"Ada\"\n", "c.toml:2: agent.me: expected a table such as { name = \"Ada Lovelace\", emails = [\"ada@example.org\"] }"),
            ("[agent]\nme = {}\n", "c.toml:2: agent.me: expected a name or an e-mail address: me = { name = \"Ada Lovelace\", emails = [\"ada@example.org\"] }"),
            ("[agent]\nformat = \"full\"\nme = { nom = \"Ada\" }\n", "c.toml:3: agent.me.nom: unknown setting (me takes name, emails and email)"),
            ("[agent]\nme = { name = \"\" }\n", "c.toml:2: agent.me.name: expected a non-empty name"),
            ("[agent]\nme = { emails = \"ada\" }\n", "c.toml:2: agent.me.emails: expected e-mail addresses such as \"ada@example.org\", not \"ada\""),
            ("[agent]\nme = { emails = [1] }\n", "c.toml:2: agent.me.emails: expected e-mail addresses"),
            ("[agent]\nme = { email = 1 }\n", "c.toml:2: agent.me.email: expected an e-mail address"),
        ]
        for (toml, expected) in cases {
            #expect(Self.error(toml) == expected, "\(toml)")
        }
    }
}

/// Who `me` is when the config does not say: passwd's full name and git's user, read from
/// files in a temporary home.
@Suite("Identity")
struct IdentityTests {
    @Test("the configured identity wins over passwd and git")
    func configuredWins() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        try tree.create(".gitconfig", contents: "[user]\n\tname = Git Name\n\temail = git@example.org\n")
        let configured = Identity(name: "Ada Lovelace", emails: ["ada@example.org"])
        #expect(Identity.resolve(configured: configured, environment: ["HOME": tree.root.string], passwdName: { "Passwd Name" }) == configured)
    }

    @Test("without a configured one: git's user.name and user.email; passwd's name when git has none")
    func fallback() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let env = ["HOME": tree.root.string]
        // Nothing at all.
        #expect(Identity.resolve(configured: nil, environment: env, passwdName: { nil }) == nil)
        // passwd alone.
        #expect(Identity.resolve(configured: nil, environment: env, passwdName: { "Ada Lovelace" })
            == Identity(name: "Ada Lovelace", emails: [], source: "passwd"))
        // git's address with passwd's name.
        try tree.create(".gitconfig", contents: "[user]\n\temail = ada@example.org\n")
        #expect(Identity.resolve(configured: nil, environment: env, passwdName: { "Ada Lovelace" })
            == Identity(name: "Ada Lovelace", emails: ["ada@example.org"], source: "passwd and git"))
        // git's name wins; the XDG file is read first and ~/.gitconfig overrides it.
        try tree.create(".config/git/config", contents: "[user]\n\tname = Old Name\n\temail = old@example.org\n")
        try tree.create(".gitconfig", contents: "[core]\n\tname = Not A User\n[user]\n\tname = \"Ada King\" # married\n")
        #expect(Identity.resolve(configured: nil, environment: env, passwdName: { "Ada Lovelace" })
            == Identity(name: "Ada King", emails: ["old@example.org"], source: "git"))
        // $XDG_CONFIG_HOME/git/config replaces ~/.config/git/config.
        try tree.create("xdg/git/config", contents: "[User]\nemail = xdg@example.org\n")
        #expect(Identity.resolve(configured: nil, environment: env.merging(["XDG_CONFIG_HOME": tree.path("xdg").string]) { $1 },
                                 passwdName: { nil }) == Identity(name: "Ada King", emails: ["xdg@example.org"], source: "git"))
    }

    @Test("git's INI syntax: comments, quotes, escapes, subsections, a pair on the header's line")
    func gitSyntax() {
        func user(_ text: String) -> (String?, String?) {
            var u = GitUser()
            u.read(text)
            return (u.name, u.email)
        }
        #expect(user("[user] name = Ada\n") == ("Ada", nil))
        #expect(user("# [user]\n; name = x\n[user]\n  # name = Comment\n  NAME = Ada  ; comment\n") == ("Ada", nil))
        #expect(user("[user]\nname = \"Ada \\\"the Countess\\\" L\"\nemail=a@b.c\n") == ("Ada \"the Countess\" L", "a@b.c"))
        #expect(user("[user \"work\"]\nname = Work\n[user]\nname = Home\n") == ("Home", nil))
        #expect(user("[user]\nname = First\nname = Last\n") == ("Last", nil))
        #expect(user("[user]\nname = \"Semi; colon\"\n") == ("Semi; colon", nil))
        #expect(user("[user]\nname\n") == (nil, nil))
    }

    @Test("the passwd name is the GECOS field up to the first comma, & standing for the login")
    func gecos() {
        #expect(Identity.fullName(gecos: "Ada Lovelace,Room 12,,", login: "ada") == "Ada Lovelace")
        #expect(Identity.fullName(gecos: "& Lovelace", login: "ada") == "Ada Lovelace")
        #expect(Identity.fullName(gecos: ",,,", login: "ada") == nil)
        #expect(Identity.fullName(gecos: "", login: "ada") == nil)
    }
}
