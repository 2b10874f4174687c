import Foundation
import SystemPackage
import TestSupport
import Testing

/// Text from apps and files (a donated URL, an identifier, a tag, a title) can neither rewrite a
/// terminal nor split a result line in a pipe (issue 22, F13); `-0` and `--json` keep it exact.
@Suite("Terminal and pipe output of untrusted text", .blocking)
struct TerminalInjectionTests {
    static let escape = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}"

    /// JSON text of a string (the escapes a donation batch needs).
    static func json(_ s: String) -> String {
        String(decoding: try! JSONEncoder().encode(s), as: UTF8.self)
    }

    static func hasControls(_ data: Data) -> Bool {
        data.contains(0x1B) || data.contains(0x07) || String(decoding: data, as: UTF8.self).unicodeScalars.contains { (0x80...0x9F).contains($0.value) }
    }

    @Test("issue 22 F13: a donated contentURL or identifier with ESC or a newline is escaped on a terminal and stays one line in a pipe")
    func donatedText() throws {
        let f = try CLIFixture()
        let lines = [
            "{\"uniqueIdentifier\": \"evil\", \"attributes\": {\"title\": \(Self.json("Kestrel " + Self.escape)), \"textContent\": \"kestrel one\", \"contentURL\": \(Self.json("https://x.example/" + Self.escape))}}",
            "{\"uniqueIdentifier\": \"nl\", \"attributes\": {\"title\": \"Kestrel two\", \"textContent\": \"kestrel two\", \"contentURL\": \(Self.json("https://x.example/a\n/etc/passwd"))}}",
        ]
        let batch = try f.tree.create("batch.jsonl", contents: lines.joined(separator: "\n") + "\n")
        let env = ["FSINDEX_INDEX_DIR": f.index]
        let donated = try run("fsindex", ["donate", "--domain", "notes", batch.string], env: env)
        #expect(donated.status == 0, "\(donated.stderr)")
        // An identifier with a newline prints as DOMAIN:ID, text too (if donations take it).
        let odd = try f.tree.create("odd.jsonl", contents: "{\"uniqueIdentifier\": \(Self.json("id\n/etc/shadow")), \"attributes\": {\"title\": \"Kestrel three\", \"textContent\": \"kestrel three\"}}\n")
        let oddTaken = try run("fsindex", ["donate", "--domain", "notes", odd.string], env: env).status == 0
        let results = oddTaken ? 3 : 2

        // A pipe: three results, three lines, none of them a path that was never found.
        let piped = try run("fsfind-direct", ["kestrel"], env: env)
        #expect(piped.status == 0 && piped.lines.count == results, "\(piped.lines)")
        #expect(!piped.lines.contains("/etc/passwd") && !piped.lines.contains("/etc/shadow"), "\(piped.lines)")
        #expect(!Self.hasControls(piped.stdout), "\(piped.out)")
        #expect(piped.lines.contains("https://x.example/a\\n/etc/passwd"), "\(piped.lines)")

        // A terminal: nothing that moves the cursor, clears the screen or sets the title.
        let tty = try SinkResult.run("tty", [Binaries.directory.appendingPathComponent("fsfind-direct").path, "kestrel"], env: env)
        #expect(tty.status == 0 && !tty.stdout.isEmpty && !Self.hasControls(tty.stdout), "\(String(decoding: tty.stdout, as: UTF8.self))")
        let show = try SinkResult.run("tty", [Binaries.directory.appendingPathComponent("fsindex").path, "show", "notes:evil"], env: env)
        #expect(show.status == 0 && !show.stdout.isEmpty && !Self.hasControls(show.stdout), "\(String(decoding: show.stdout, as: UTF8.self))")
        let showPiped = try run("fsindex", ["show", "notes:evil"], env: env)
        #expect(showPiped.status == 0 && !Self.hasControls(showPiped.stdout), "\(showPiped.out)")

        // -0 in a pipe and --json keep the text exact.
        let nul = try run("fsfind-direct", ["-0", "kestrel"], env: env)
        let records = Set(nul.stdout.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
        #expect(records == Set(["https://x.example/" + Self.escape, "https://x.example/a\n/etc/passwd"] + (oddTaken ? ["notes:id\n/etc/shadow"] : [])), "\(records)")
        let json = try run("fsfind-direct", ["--json", "--attr", "contentURL", "kestrel"], env: env)
        #expect(json.lines.count == results && !Self.hasControls(json.stdout), "\(json.out)")
        let urls = Set(json.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["contentURL"] as? String
        })
        #expect(urls == ["https://x.example/" + Self.escape, "https://x.example/a\n/etc/passwd"], "\(urls)")
    }

    @Test("issue 22 F13: fsindex tag prints a tag holding ESC[2J escaped, on a terminal and in a pipe", .userXattrs)
    func tags() throws {
        let f = try CLIFixture()
        let file = try f.tree.create("root/a.txt", contents: "alpha\n")
        try TestXattrs.set(file, "user.xdg.tags", "work,\u{1B}[2Jboom")
        let env = ["FSINDEX_INDEX_DIR": f.index]
        let piped = try run("fsindex", ["tag", file.string], env: env)
        #expect(piped.status == 0 && piped.out.contains("\\x1B[2Jboom") && !Self.hasControls(piped.stdout), "\(piped.out) \(piped.stderr)")
        let tty = try SinkResult.run("tty", [Binaries.directory.appendingPathComponent("fsindex").path, "tag", file.string], env: env)
        #expect(tty.status == 0 && String(decoding: tty.stdout, as: UTF8.self).contains("\\x1B[2Jboom") && !Self.hasControls(tty.stdout),
                "\(String(decoding: tty.stdout, as: UTF8.self)) \(tty.stderr)")
    }
}
