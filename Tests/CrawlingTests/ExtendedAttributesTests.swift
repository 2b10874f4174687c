import Crawling
import SystemPackage
import TestSupport
import Testing
import Glibc

@Suite("ExtendedAttributes")
struct ExtendedAttributesTests {
    @Test("reads only the names asked for, skips names that are not UTF-8, and writes and removes", .userXattrs)
    func readWriteRemove() throws {
        let tree = try TemporaryTree(prefix: "fsindex-xattr")
        let file = try tree.create("a.txt", contents: "x")
        try TestXattrs.set(file, "user.xdg.tags", "one,two")
        try TestXattrs.set(file, "user.other", "not asked for")
        try TestXattrs.set(file, nameBytes: Array("user.bad".utf8) + [0xFF, 0xFE], "skipped")
        let x = ExtendedAttributes.read(file, names: ["user.xdg.tags", "user.xdg.comment"])
        #expect(x.values == ["user.xdg.tags": Array("one,two".utf8)])
        #expect(x.problems.isEmpty)
        let names = try ExtendedAttributes.listNames(file).get()
        #expect(names.contains("user.other") && !names.contains { $0.hasPrefix("user.bad") })

        try ExtendedAttributes.write(file, name: "user.xdg.comment", value: Array("hi".utf8))
        #expect(TestXattrs.get(file, "user.xdg.comment") == "hi")
        try ExtendedAttributes.remove(file, name: "user.xdg.comment")
        try ExtendedAttributes.remove(file, name: "user.xdg.comment")   // already gone: not an error
        #expect(TestXattrs.get(file, "user.xdg.comment") == nil)
    }

    @Test("a file whose name is not UTF-8 is read and written by its bytes", .userXattrs)
    func nonUTF8Name() throws {
        let tree = try TemporaryTree(prefix: "fsindex-xattr")
        let file = try tree.createBytes(name: Array("caf".utf8) + [0xE9, 0x2E, 0x74, 0x78, 0x74], contents: Array("x".utf8))
        try ExtendedAttributes.write(file, name: "user.xdg.tags", value: Array("latin1".utf8))
        #expect(ExtendedAttributes.read(file, names: ["user.xdg.tags"]).values["user.xdg.tags"] == Array("latin1".utf8))
    }

    @Test("a symlink is not followed: its target's attributes are not its own", .userXattrs)
    func symlinkNotFollowed() throws {
        let tree = try TemporaryTree(prefix: "fsindex-xattr")
        let file = try tree.create("target.txt", contents: "x")
        try TestXattrs.set(file, "user.xdg.tags", "target-tag")
        try tree.symlink("link", to: "target.txt")
        #expect(ExtendedAttributes.read(tree.path("link"), names: ["user.xdg.tags"]).values.isEmpty)
    }

    @Test("a file system without extended attributes (/proc) reads as none, quietly, and refuses a write with ENOTSUP")
    func unsupportedFileSystem() throws {
        let x = ExtendedAttributes.read("/proc/version", names: ["user.xdg.tags"])
        #expect(x.values.isEmpty && x.problems.isEmpty)
        #expect(throws: ExtendedAttributeError.unwritable(name: "user.xdg.tags", Errno(rawValue: ENOTSUP))) {
            try ExtendedAttributes.write("/proc/version", name: "user.xdg.tags", value: Array("a".utf8))
        }
        #expect(ExtendedAttributeError.unwritable(name: "user.xdg.tags", Errno(rawValue: ENOTSUP)).description
            .contains("does not store extended attributes"))
    }
}
