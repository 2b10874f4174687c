@testable import SharedIndex
import Testing

/// How a POSIX ACL is read for the shared index (issue 29; issue 22, F2, narrowed the mode). Here rather than
/// in a SharedIndex test target of its own: QueryingTests already builds against SharedIndex.
@Suite("Shared index: the POSIX ACLs published")
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

    @Test("an access ACL's named entries, owning group and mask are read; the owner's and other's are the mode's; a minimal ACL adds nothing; another version is refused")
    func entries() {
        // user:bob:r-- group::--- mask::r--: bob's entry, the group's and the mask.
        #expect(FolderAccess.entries(acl: Self.acl([Self.owner, (0x02, 4, 1000), Self.group(0), Self.mask(4), Self.other(0)]))
                == [2, 4, 1000, 4, 0, -1, 16, 4, -1])
        // group:staff:r-x, with a large id.
        #expect(FolderAccess.entries(acl: Self.acl([Self.owner, Self.group(5), (0x08, 5, 4_000_000_000), Self.mask(5), Self.other(5)]))
                == [4, 5, -1, 8, 5, Int32(bitPattern: 4_000_000_000), 16, 5, -1])
        // A minimal ACL: the mode says it all.
        #expect(FolderAccess.entries(acl: Self.acl([Self.owner, Self.group(5), Self.other(5)])) == [])
        // Not an ACL of version 2, or cut short: refused (the owner alone then).
        #expect(FolderAccess.entries(acl: [1, 0, 0, 0]) == nil)
        #expect(FolderAccess.entries(acl: []) == nil)
        #expect(FolderAccess.entries(acl: Array(Self.acl([Self.owner, Self.group(5)]).dropLast())) == nil)
    }

    @Test("an item's ACL entries and its folders' become quads of their depth")
    func quads() {
        let t = FolderAccess.Triple(owner: 0, group: 0, mode: 0o600, acl: [2, 4, 1000, 16, 4, -1])
        #expect(t.quads(depth: 3) == [3, 2, 4, 1000, 3, 16, 4, -1])
        #expect(FolderAccess.Triple(owner: 0, group: 0, mode: 0o600).quads(depth: 3) == [])
    }

    @Test("a folder's place in its descendants' access array is its depth")
    func chain() {
        #expect(FolderAccess.chain(above: Array("/a/b/c.txt".utf8)).map { String(decoding: $0, as: UTF8.self) } == ["/", "/a", "/a/b"])
        #expect(FolderAccess.depth(of: Array("/a/b".utf8)) == 2)
        #expect(FolderAccess.depth(of: Array("/".utf8)) == 0)
    }
}
