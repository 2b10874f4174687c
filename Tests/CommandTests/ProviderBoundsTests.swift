import Foundation
import SystemPackage
import TestSupport
import Testing

/// A provider's command is an app's code: what it writes and what it leaves running are bounded
/// by the runner (issue 22, F10 and F18).
@Suite("Provider commands: bounded output, the whole tree stopped (issue 22, F10 and F18)", .blocking, .serialized)
struct ProviderBoundsTests {
    /// Whether `pid` is gone (or a zombie waiting for init).
    static func gone(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    @Test("a command writing 200 MB: fsindex reindex stays under 150 MB peak, the temporary folder stays small, and the last line is in the message")
    func boundedOutput() throws {
        let f = try CLIFixture()
        try f.tree.createDirectory("tmp")
        let tmp = f.tree.path("tmp").string
        // It writes 200 MB, then says how much its temporary folder (the runner's too) holds.
        let script = try f.tree.create("noisy", contents: """
            #!/bin/sh
            yes 'provider noise provider noise provider noise' | head -c 200000000
            echo
            echo "tmp holds $(du -sk "$TMPDIR" | cut -f1) KiB"
            exit 3
            """)
        _ = chmod(script.string, 0o755)
        let config = try f.tree.create("noisy.toml", contents: "[[provider]]\ndomain = \"noisy\"\nreindex = [\"\(script.string)\"]\ntimeout = 120\n")
        let fsindex = Binaries.directory.appendingPathComponent("fsindex").path
        let r = try run(executable: "/usr/bin/time", ["-f", "peak %M KiB", fsindex, "reindex", "--config", config.string, "--domain", "noisy"],
                        env: ["FSINDEX_INDEX_DIR": f.index, "TMPDIR": tmp], timeout: 240)
        #expect(r.status == 2 && r.stderr.contains("exited with status 3"), "\(r.stderr)")
        let held = r.stderr.firstMatch(of: /tmp holds (\d+) KiB/).flatMap { Int($0.1) }
        #expect(held != nil && held! < 1024, "\(r.stderr)")
        let peak = r.stderr.firstMatch(of: /peak (\d+) KiB/).flatMap { Int($0.1) }
        #expect(peak != nil && peak! < 150 * 1024, "\(r.stderr)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: tmp)).isEmpty)
    }

    @Test("at its time limit a command is stopped with every process it started, also one that called setsid")
    func setsidChildStopped() throws {
        let f = try CLIFixture()
        let pidFile = f.tree.path("escaped.pid").string
        let script = try f.tree.create("escaper", contents: """
            #!/bin/sh
            setsid sh -c 'echo $$ > "$1"; exec sleep 1000' sh '\(pidFile)' &
            sh -c 'echo $$ > "$1"; exec sleep 1000' sh '\(pidFile).child' &
            sleep 1000
            """)
        _ = chmod(script.string, 0o755)
        let config = try f.tree.create("escaper.toml", contents: "[[provider]]\ndomain = \"slow\"\nreindex = [\"\(script.string)\"]\ntimeout = 2\n")
        let r = try run("fsindex", ["reindex", "--config", config.string, "--domain", "slow"], env: ["FSINDEX_INDEX_DIR": f.index], timeout: 60)
        #expect(r.status == 2 && r.stderr.contains("longer than its time limit of 2 s"), "\(r.stderr)")
        let text = (try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? ""
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), "the command did not start its helper")
        _ = eventually(5, every: .milliseconds(50)) { Self.gone(pid) }
        #expect(Self.gone(pid), "the setsid child \(pid) survived the time-out")
        if !Self.gone(pid) { kill(pid, SIGKILL) }
        // Nor does a child that stayed in the session.
        let child = try #require(pid_t(((try? String(contentsOfFile: pidFile + ".child", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.gone(child))
        if !Self.gone(child) { kill(child, SIGKILL) }
    }
}
