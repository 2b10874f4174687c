@testable import SharedIndex
import Testing

/// How a POSIX ACL narrows the mode the shared index is given (issue 22, F2). Here rather than
/// in a SharedIndex test target of its own: QueryingTests already builds against SharedIndex.
@Suite("Shared index: ACLs narrow the published mode")
struct FolderAccessTests {
    /// `system.posix_acl_access` bytes: version 2, then (tag, permissions, id) entries.
    static func acl(_ entries: [(UInt16, UInt16, UInt32)]) -> [UInt8] {
        var out: [UInt8] = [2, 0, 0, 0]
        for (tag, perm, id) in entries {
            out += [UInt8(tag & 0xff), UInt8(tag >> 8), UInt8(perm), 0, UInt8(id & 0xff), UInt8((id >> 8) & 0xff), UInt8((id >> 16) & 0xff), UInt8(id >> 24)]
        }
        return out
    }
    static let owner: (UInt16, UInt16, UInt32) = (0x01, 7, .max)
    static func group(_ p: UInt16) -> (UInt16, UInt16, UInt32) { (0x04, p, .max) }
    static func mask(_ p: UInt16) -> (UInt16, UInt16, UInt32) { (0x10, p, .max) }
    static func other(_ p: UInt16) -> (UInt16, UInt16, UInt32) { (0x20, p, .max) }

    @Test("an entry that denies a user or a group takes the permission from the group and other classes; one that grants changes nothing")
    func narrowing() {
        // user:bob:--- on a 0755 folder: bob may be anyone of group or other.
        #expect(FolderAccess.narrowed(0o755, acl: Self.acl([Self.owner, (0x02, 0, 1000), Self.group(5), Self.mask(5), Self.other(5)])) == 0o700)
        // group:staff:--- : a member of staff who is not in the owning group is denied, so other is.
        #expect(FolderAccess.narrowed(0o755, acl: Self.acl([Self.owner, Self.group(5), (0x08, 0, 50), Self.mask(5), Self.other(5)])) == 0o750)
        // group:staff:r-x grants what the classes had already.
        #expect(FolderAccess.narrowed(0o755, acl: Self.acl([Self.owner, Self.group(5), (0x08, 5, 50), Self.mask(5), Self.other(5)])) == 0o755)
        // user:bob:rwx grants more than the mode shows: not shown (bob finds it on the host's own index).
        #expect(FolderAccess.narrowed(0o750, acl: Self.acl([Self.owner, (0x02, 7, 1000), Self.group(5), Self.mask(7), Self.other(0)])) == 0o750)
        // A mask of --x: named entries may only search.
        #expect(FolderAccess.narrowed(0o715, acl: Self.acl([Self.owner, (0x02, 5, 1000), Self.group(5), Self.mask(1), Self.other(5)])) == 0o711)
        // Setuid and sticky bits stay; an ACL that cannot be read leaves the owner alone.
        #expect(FolderAccess.narrowed(0o1777, acl: Self.acl([Self.owner, Self.group(7), Self.mask(7), Self.other(7)])) == 0o1777)
        #expect(FolderAccess.narrowed(0o755, acl: [1, 0, 0, 0]) == 0o700)
        #expect(FolderAccess.narrowed(0o755, acl: []) == 0o700)
    }

    @Test("a folder's place in its descendants' access array is its depth")
    func chain() {
        #expect(FolderAccess.chain(above: Array("/a/b/c.txt".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["/", "/a", "/a/b"])
        #expect(FolderAccess.depth(of: Array("/a/b".utf8)) == 2)
        #expect(FolderAccess.depth(of: Array("/".utf8)) == 0)
    }
}
