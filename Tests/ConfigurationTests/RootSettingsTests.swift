import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `roots` and `shallow_roots`: unset (the defaults apply), set, `~` expanded, errors that name
/// the key (issue 26).
@Suite("Root settings")
struct RootSettingsTests {
    @Test("issue 26: with neither key the roots are not configured; either key, even empty, configures them")
    func configuredOrNot() throws {
        #expect(!Settings().rootsConfigured)
        var s = Settings()
        try s.apply(toml: "[crawl]\ninclude_hidden = true\n", file: "c.toml")
        #expect(!s.rootsConfigured && s.roots == nil && s.shallowRoots == nil)
        var empty = Settings()
        try empty.apply(toml: "roots = []\n", file: "c.toml")
        #expect(empty.rootsConfigured && empty.roots == [] && empty.shallowRoots == nil)
        var shallow = Settings()
        try shallow.apply(toml: "shallow_roots = [\"/srv/inbox\"]\n", file: "c.toml")
        #expect(shallow.rootsConfigured && shallow.roots == nil && shallow.shallowRoots == ["/srv/inbox"])
    }

    @Test("issue 26: a leading ~ in roots and shallow_roots is HOME")
    func tildeExpanded() throws {
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        var s = Settings()
        try s.apply(toml: "roots = [\"~/Documents\", \"/data\", \"~x\"]\nshallow_roots = [\"~\"]\n", file: "c.toml")
        #expect(s.roots == [home + "/Documents", "/data", "~x"])
        #expect(s.shallowRoots == [home])
    }

    @Test("issue 26: shallow_roots of the wrong type is an error naming the file, line and key")
    func wrongType() throws {
        var s = Settings()
        do {
            try s.apply(toml: "roots = []\nshallow_roots = \"~\"\n", file: "c.toml")
            Issue.record("should fail")
        } catch {
            #expect(error.description == "c.toml:2: shallow_roots: expected an array of strings")
        }
    }
}
