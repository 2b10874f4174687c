import Foundation
import SystemPackage
import TestSupport
import Testing

/// Builds `levels` nested folders of 200-byte names below `base` with `mkdirat`/`openat`
/// (relative: the whole path is never given to the kernel), writes `name` at the bottom, and
/// returns the bottom file's path bytes.
func makeDeepTree(below base: String, levels: Int, name: String, contents: String) throws -> [UInt8] {
    var fd = open(base, O_RDONLY | O_DIRECTORY)
    guard fd >= 0 else { throw Errno(rawValue: errno) }
    var path = Array(base.utf8)
    for i in 0..<levels {
        let component = String(format: "%03d", i) + String(repeating: "d", count: 197)
        guard mkdirat(fd, component, 0o755) == 0 || errno == EEXIST else { throw Errno(rawValue: errno) }
        let next = openat(fd, component, O_RDONLY | O_DIRECTORY)
        close(fd)
        guard next >= 0 else { throw Errno(rawValue: errno) }
        fd = next
        path += Array("/\(component)".utf8)
    }
    defer { close(fd) }
    let f = openat(fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard f >= 0 else { throw Errno(rawValue: errno) }
    _ = contents.withCString { write(f, $0, strlen($0)) }
    close(f)
    return path + Array("/\(name)".utf8)
}

@Suite("Paths longer than PATH_MAX", .blocking)
struct LongPathTests {
    @Test("issue 11: a tree deeper than PATH_MAX is indexed; its deep files are listed as failures once, and the next index exits 0")
    func deeperThanPathMax() async throws {
        try await offPool {
            let f = try CLIFixture()
            try f.tree.create("root/shallow.txt", contents: "shallow words")
            let deep = try makeDeepTree(below: f.root, levels: 24, name: "deep-file.txt", contents: "deep words")
            #expect(deep.count > 4096)
            let first = try f.fsindex("index", f.root)
            // The deep file is reported once, with the reason, and the rest is indexed.
            #expect(first.status == 2)
            #expect(first.stderr.contains("deep-file.txt: cannot read: its path is \(deep.count) bytes"), "\(first.stderr)")
            #expect(first.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 1, "\(first.stderr)")
            // Not a problem for ever: the next crawl finds everything unchanged.
            let second = try f.fsindex("index", "--json", f.root)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.out.contains("\"indexed\":0"))
            // Every folder and file, the deep ones too, is in the index with its current stamp.
            let check = try f.fsindex("check")
            #expect(check.status == 0, "\(check.out)\(check.stderr)")
            #expect(check.stderr.contains("\(24 + 3) entries on disk"))
            let failures = try f.fsindex("failures")
            #expect(failures.stdout == Data(deep + Array("\tcannot read: its path is \(deep.count) bytes, longer than the 4095 a program can open (PATH_MAX); the name and file-system attributes are indexed, not the content (move it higher up to have it read)\n".utf8)))
            #expect(try f.fsfind("shallow").lines == [f.root + "/shallow.txt"])
        }
    }
}
