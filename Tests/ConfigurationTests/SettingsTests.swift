import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

@Suite("Settings")
struct SettingsTests {
    static var documentedDefaults: String {
        let checkout = FilePath(#filePath).removingLastComponent().removingLastComponent().removingLastComponent()
        return (try? String(contentsOfFile: checkout.appending("Config/fsindex.toml").string, encoding: .utf8)) ?? ""
    }

    @Test("Config/fsindex.toml is exactly the built-in defaults")
    func documentedDefaultsMatch() throws {
        var s = Settings()
        #expect(!Self.documentedDefaults.isEmpty)
        try s.apply(toml: Self.documentedDefaults, file: "Config/fsindex.toml")
        #expect(s == Settings())
    }

    @Test("a user file overrides key by key")
    func overrides() throws {
        let tree = try TemporaryTree()
        let file = try tree.create("config.toml", contents: "roots = [\"/data\"]\n[index]\ntext_cap = 4096\n")
        let s = try Settings.load(explicit: file.string)
        #expect(s.roots == ["/data"])
        #expect(s.index.textCap == 4096)
        #expect(s.index.batchSize == Settings().index.batchSize)
        let xdg = try tree.create("xdg/fsindex/config.toml", contents: "[crawl]\ninclude_hidden = true\n")
        _ = xdg
        let fromXDG = try Settings.load(explicit: nil, environment: ["XDG_CONFIG_HOME": tree.path("xdg").string])
        #expect(fromXDG.crawl.includeHidden)
    }

    @Test("a user config that exists but cannot be read, or is far too large, is an error, never silently the defaults")
    func unreadableUserConfig() throws {
        let tree = try TemporaryTree()
        try tree.createDirectory("xdg/fsindex/config.toml")   // a folder where the file should be
        do { _ = try Settings.load(explicit: nil, environment: ["XDG_CONFIG_HOME": tree.path("xdg").string]); Issue.record("should fail") } catch {
            #expect(error.description.contains("cannot read config file") && error.description.contains("config.toml"), "\(error)")
        }
        let huge = try tree.create("huge.toml", contents: "# " + String(repeating: "x", count: Settings.maximumFileSize) + "\n")
        do { _ = try Settings.load(explicit: huge.string); Issue.record("should fail") } catch {
            #expect(error.description.contains("larger than 1 MiB"), "\(error)")
        }
        // No file at all: the defaults.
        #expect(try Settings.load(explicit: nil, environment: ["XDG_CONFIG_HOME": tree.path("none").string]) == Settings())
    }

    @Test("errors name the file, the line and the key")
    func errors() throws {
        let tree = try TemporaryTree()
        let typo = try tree.create("typo.toml", contents: "# comment\n[index]\nbatch_sise = 10\n")
        #expect(throws: SettingsError.self) { try Settings.load(explicit: typo.string) }
        do { _ = try Settings.load(explicit: typo.string) } catch {
            #expect(error.description == "\(typo.string):3: index.batch_sise: unknown setting")
        }
        let wrongType = try tree.create("type.toml", contents: "[crawl]\n\ninclude_hidden = \"yes\"\n")
        do { _ = try Settings.load(explicit: wrongType.string); Issue.record("should fail") } catch {
            #expect(error.description == "\(wrongType.string):3: crawl.include_hidden: expected true or false")
        }
        let syntax = try tree.create("syntax.toml", contents: "roots = [\n\"a\"\nbroken = \n")
        do { _ = try Settings.load(explicit: syntax.string); Issue.record("should fail") } catch {
            #expect(error.description.hasPrefix("\(syntax.string):"))
            #expect(error.description.contains("TOML syntax error"))
        }
        do { _ = try Settings.load(explicit: tree.path("missing.toml").string); Issue.record("should fail") } catch {
            #expect(error.description.contains("missing.toml"))
        }
    }

    @Test("typed sections: log level and throttle are enums, errors list the choices; a key is found in its own section")
    func typedSections() throws {
        let tree = try TemporaryTree()
        let file = try tree.create("c.toml", contents: "[daemon]\nlog_level = \"debug\"\nthrottle = \"normal\"\n[query]\nrecency_weight = 2\n")
        let s = try Settings.load(explicit: file.string)
        #expect(s.daemon.logLevel == .debug && s.daemon.throttle == .normal && s.query.recencyWeight == 2)
        #expect(s.query.questions)
        let off = try tree.create("off.toml", contents: "[query]\nquestions = false\n")
        #expect(try Settings.load(explicit: off.string).query.questions == false)
        let word = try tree.create("word.toml", contents: "[query]\nquestions = \"no\"\n")
        #expect(throws: SettingsError.self) { try Settings.load(explicit: word.string) }
        let bad = try tree.create("bad.toml", contents: "[extraction]\ntimeout = 5\n[daemon]\nthrottle = \"fast\"\ntimeout = 1\n")
        do { _ = try Settings.load(explicit: bad.string); Issue.record("should fail") } catch {
            #expect(error.description == "\(bad.string):4: daemon.throttle: expected one of \"low\", \"normal\"")
        }
        let twice = try tree.create("twice.toml", contents: "[extraction]\ntimeout = 5\n[daemon]\ntimeout = 1\n")
        do { _ = try Settings.load(explicit: twice.string); Issue.record("should fail") } catch {
            #expect(error.description == "\(twice.string):4: daemon.timeout: unknown setting")
        }
    }
}
