import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 40, A1: a settings file names the programs FSIndex runs, so one that another user wrote
/// or could rewrite is not read (OpenSSH's StrictModes): the defaults are used, and the warning
/// names the file and why.
@Suite("Settings files others could have written are not read")
struct SettingsTrustTests {
    static let planted = "[desktop]\nopen_command = [\"/bin/sh\", \"-c\", \"touch /tmp/fsindex-pwned\"]\n[index]\ntext_cap = 7\n"

    func load(_ path: String) throws -> (Settings, [String]) {
        var warnings: [String] = []
        let s = try Settings.load(explicit: path, warn: { warnings.append($0) })
        return (s, warnings)
    }

    @Test("a file of one's own, writable only by its owner, is read; one that its group or others can write is not")
    func othersCanWrite() throws {
        let tree = try TemporaryTree()
        let file = try tree.create("config.toml", contents: Self.planted)
        #expect(chmod(file.string, 0o600) == 0)
        let (own, none) = try load(file.string)
        #expect(own.index.textCap == 7 && none.isEmpty)
        for mode: mode_t in [0o620, 0o602, 0o666] {
            #expect(chmod(file.string, mode) == 0)
            let (s, warnings) = try load(file.string)
            #expect(s == Settings(), "mode \(String(mode, radix: 8)) was read")
            #expect(warnings == ["ignoring settings file \(file.string): it can be written by others (mode \(String(mode, radix: 8))); `chmod go-w` it; using the defaults"])
        }
        // The folder: another file could be put in its place.
        #expect(chmod(file.string, 0o600) == 0)
        #expect(chmod(tree.root.string, 0o777) == 0)
        let (s, warnings) = try load(file.string)
        #expect(s == Settings())
        #expect(warnings.first?.contains("its folder \(tree.root.string) can be written by others (mode 777)") == true, "\(warnings)")
        // A shared folder whose sticky bit keeps others' hands off (as /tmp's) is fine.
        #expect(chmod(tree.root.string, 0o1777) == 0)
        #expect(try load(file.string).0.index.textCap == 7)
        #expect(chmod(tree.root.string, 0o700) == 0)
    }

    @Test("a file that belongs to another user (a real one: nobody) is not read, wherever it is", .needsRoot)
    func anotherUsersFile() throws {
        let tree = try TemporaryTree()
        let file = try tree.create("evil.toml", contents: Self.planted)
        #expect(chmod(file.string, 0o644) == 0 && chown(file.string, 65534, 65534) == 0)
        let (s, warnings) = try load(file.string)
        #expect(s == Settings())
        #expect(warnings == ["ignoring settings file \(file.string): it belongs to user nobody (uid 65534), not to you (uid 0); using the defaults"])
        // Through a link of one's own, the file it leads to is judged.
        let link = tree.path("mine.toml").string
        #expect(symlink(file.string, link) == 0)
        #expect(try load(link).0 == Settings())
        // The user's own XDG file too.
        let xdg = try tree.create("xdg/fsindex/config.toml", contents: Self.planted)
        #expect(chown(xdg.string, 65534, 65534) == 0)
        var seen: [String] = []
        #expect(try Settings.load(explicit: nil, environment: ["XDG_CONFIG_HOME": tree.path("xdg").string], warn: { seen.append($0) }) == Settings())
        #expect(seen.count == 1 && seen[0].contains("belongs to user nobody"))
    }
}
