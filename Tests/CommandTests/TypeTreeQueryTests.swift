import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 28: a `.tgz` is a compressed tar (`application/x-compressed-tar`), which
/// shared-mime-info makes a sub-class of `application/gzip`; its type tree holds the gzip UTI
/// (`org.gnu.gnu-zip-archive`), but a type query by MIME type (`kind:application/gzip`,
/// `kMDItemContentTypeTree == "application/gzip"`) found nothing, since items store UTIs.
@Suite("Type queries by MIME type", .blocking)
struct TypeTreeQueryTests {
    @Test("kind:application/gzip finds a .tgz written by tar, and a plain .gz; a MIME type in the tree query too",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tar") && FileManager.default.fileExists(atPath: "/usr/share/mime/subclasses"),
                   "needs tar and shared-mime-info"))
    func gzipFindsTgz() throws {
        let f = try CLIFixture()
        try f.tree.create("src/notes.txt", contents: "notes to pack\n")
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        tar.arguments = ["-czf", f.root + "/backup.tgz", "-C", f.tree.path("src").string, "notes.txt"]
        try tar.run()
        tar.waitUntilExit()
        #expect(tar.terminationStatus == 0)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c \"$1\" > \"$2\"", "sh", f.tree.path("src/notes.txt").string, f.root + "/notes.txt.gz"]
        try gzip.run()
        gzip.waitUntilExit()
        try f.tree.create("root/plain.txt", contents: "not compressed\n")
        let r = try f.fsindex("index", f.root)
        #expect(r.status == 0, "\(r.stderr)")

        func names(_ query: String) throws -> [String] {
            let found = try f.fsfind(query)
            #expect(found.status == 0, "\(query): \(found.stderr)")
            return found.lines.map { String($0.split(separator: "/").last ?? "") }.sorted()
        }
        #expect(try names("kind:application/gzip") == ["backup.tgz", "notes.txt.gz"])
        #expect(try names("kind:application/x-gzip") == ["backup.tgz", "notes.txt.gz"])      // an alias
        #expect(try names("kind:application/x-compressed-tar") == ["backup.tgz"])            // the dynamic UTI
        #expect(try names("kMDItemContentTypeTree == \"application/gzip\"") == ["backup.tgz", "notes.txt.gz"])
        #expect(try names("kind:org.gnu.gnu-zip-archive") == ["backup.tgz", "notes.txt.gz"])  // as before
        #expect(try names("kind:text/plain") == ["notes.txt.gz", "plain.txt"])   // a .gz holds its inner type's tree
    }
}
