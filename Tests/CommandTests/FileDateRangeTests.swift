import Foundation
import SystemPackage
import TestSupport
import Testing

/// A file's dates come from `statx` as seconds and nanoseconds; an `Int64` of nanoseconds holds
/// only 1677 to 2262 (issue 22, F12). tmpfs keeps 64-bit times (ext4 stops at 1901 and 2446),
/// so the tree is made in /dev/shm.
@Suite("File dates past 2262 and before 1677 (issue 22, F12)", .blocking)
struct FileDateRangeTests {
    static func setModification(_ path: String, seconds: Int) throws {
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: seconds, tv_nsec: 250_000_000)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw Errno(rawValue: errno) }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mtim.tv_sec == seconds else { throw Errno.notSupported }
    }

    @Test("a file touched to 2300-01-01 is indexed as 2300, one of year −249 as 0001-01-01 (the first date an attribute holds); both sort and match by date")
    func farDates() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/shm") else { Issue.record("no /dev/shm to keep 64-bit file times"); return }
        let tree = try TemporaryTree(prefix: "fsindex-dates", in: "/dev/shm")
        try tree.createDirectory("root")
        let root = tree.path("root").string, env = ["FSINDEX_INDEX_DIR": tree.path("index").string]
        try tree.create("root/future.txt", contents: "kestrel future")
        try tree.create("root/ancient.txt", contents: "kestrel ancient")
        try tree.create("root/now.txt", contents: "kestrel now")
        let touch = try run(executable: "/usr/bin/touch", ["-d", "2300-01-01 00:00:00 UTC", root + "/future.txt"], timeout: 30)
        #expect(touch.status == 0, "\(touch.stderr)")
        try Self.setModification(root + "/ancient.txt", seconds: -70_000_000_000)   // year −249
        #expect(try run("fsindex", ["index", root], env: env).status == 0)

        func modified(_ name: String) throws -> String? {
            let shown = try run("fsindex", ["show", "--json", root + "/" + name], env: env)
            return (try? JSONSerialization.jsonObject(with: shown.stdout) as? [String: Any])?["contentModificationDate"] as? String
        }
        #expect(try modified("future.txt") == "2300-01-01T00:00:00.000Z")
        #expect(try modified("ancient.txt") == "0001-01-01T00:00:00.000Z")
        #expect(try modified("now.txt")?.hasPrefix("20") == true)
        #expect(try run("fsfind", ["modified:>2262-06-01"], env: env).lines == [root + "/future.txt"])
        #expect(try run("fsfind", ["modified:<1600-01-01"], env: env).lines == [root + "/ancient.txt"])
        #expect(try run("fsfind", ["--sort", "modified", "kestrel"], env: env).lines
                    == [root + "/future.txt", root + "/now.txt", root + "/ancient.txt"])
        // Indexed again with nothing changed: nothing is read again (the change stamps compare equal).
        let again = try run("fsindex", ["index", root], env: env)
        #expect(again.status == 0)
        #expect(try modified("future.txt") == "2300-01-01T00:00:00.000Z")
    }
}
