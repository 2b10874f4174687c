import Foundation
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// What a folder's mount is: its file-system type and whether its device is removable, read
/// from `/proc/self/mountinfo` and `/sys/dev/block/MAJ:MIN/removable`.
///
/// For example:
/// ```swift
/// MountFacts.of("/mnt/share")?.exclusion   // "on a network file system (nfs4)"
/// ```
/// The defaults (`DefaultRoots`) leave out a folder on a network file system or a removable
/// device: crawling a slow share or a USB stick that comes and goes is a choice to make, not a
/// surprise. Roots named in the config or on the command line are never filtered.
@MemberwiseInit
package struct MountFacts: Sendable, Hashable {
    /// The mount point holding the folder (the longest one above it).
    package var mountPoint: String
    /// `mountinfo`'s type: `ext4`, `nfs4`, `fuse.sshfs`, …
    package var fileSystemType: String
    /// `MAJ:MIN` of the mount's device (`0:53` for a file system without one).
    package var device: String
    /// Whether the device (or the disk it is a partition of) says it is removable.
    package var removable: Bool

    /// File-system types that live on another machine (`fuse.` types by their helper's name).
    package static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb", "smb3", "smbfs", "ncpfs", "9p", "afs", "ceph", "coda", "glusterfs",
        "fuse.sshfs", "sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gvfsd-fuse", "fuse.glusterfs", "fuse.cephfs", "davfs", "fuse.davfs2",
        "lustre", "gfs2", "ocfs2", "orangefs", "beegfs",
    ]

    /// Where desktops mount removable media (udisks2 and older).
    package static let removableMountPrefixes = ["/run/media/", "/media/"]

    /// Why a default folder on this mount is left out, or nil to index it.
    package var exclusion: String? {
        if Self.networkTypes.contains(fileSystemType) { return "on a network file system (\(fileSystemType) at \(mountPoint))" }
        if removable { return "on a removable device (\(device) mounted at \(mountPoint))" }
        if Self.removableMountPrefixes.contains(where: { (mountPoint + "/").hasPrefix($0) && mountPoint + "/" != $0 }) {
            return "on removable media (mounted at \(mountPoint))"
        }
        return nil
    }

    /// The facts of the mount holding `path` (symlinks resolved), or nil when the path does not
    /// exist or `/proc/self/mountinfo` cannot be read.
    package static func of(_ path: String, sysfs: String = "/sys") -> MountFacts? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(path, &buf) != nil else { return nil }
        let resolved = String(cString: buf)
        guard case .success(let bytes) = SystemCall.readFile("/proc/self/mountinfo", limit: 16 << 20) else { return nil }
        guard let entry = MountTable(String(decoding: bytes, as: UTF8.self)).mount(holding: resolved) else { return nil }
        return MountFacts(mountPoint: entry.mountPoint, fileSystemType: entry.fileSystemType, device: entry.device,
                          removable: isRemovable(device: entry.device, sysfs: sysfs))
    }

    /// Whether `/sys/dev/block/MAJ:MIN/removable`, or its parent disk's (for a partition), is 1.
    package static func isRemovable(device: String, sysfs: String = "/sys") -> Bool {
        let base = sysfs + "/dev/block/" + device
        if readFlag(base + "/removable") { return true }
        // A partition has no `removable` of its own: its disk is the folder above it.
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(base, &buf) != nil else { return false }
        let disk = FilePath(String(cString: buf)).removingLastComponent().string
        return readFlag(disk + "/removable")
    }

    private static func readFlag(_ path: String) -> Bool {
        guard case .success(let bytes) = SystemCall.readFile(path, limit: 16) else { return false }
        return bytes.first == UInt8(ascii: "1")
    }
}

/// `/proc/self/mountinfo`, parsed (proc(5)): each line's device, mount point and type.
package struct MountTable: Sendable, Hashable {
    @MemberwiseInit
    package struct Entry: Sendable, Hashable {
        /// The mount's ID (first field): unique among the mounts of now, reused after an unmount.
        package var mountID: Int = 0
        package var device: String
        /// The folder of the file system mounted here (`/` for all of it; a bind mount's subfolder).
        package var root: String = "/"
        package var mountPoint: String
        package var fileSystemType: String
        /// What was mounted: `/dev/sdb1`, `server:/export`, `tmpfs`, … (decoded).
        package var source: String = ""
        /// Mounted read-only (`ro` among the per-mount options).
        package var readOnly: Bool = false
    }

    package var entries: [Entry] = []

    /// Parses mountinfo lines such as
    /// `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue`;
    /// octal escapes in the mount point (`\040` for a space) are decoded. Malformed lines are skipped.
    package init(_ text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 7, let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 1 < fields.count else { continue }
            let options = fields[5].split(separator: ",")
            entries.append(Entry(mountID: Int(fields[0]) ?? 0, device: String(fields[2]), root: Self.unescape(fields[3]),
                                 mountPoint: Self.unescape(fields[4]), fileSystemType: String(fields[dash + 1]),
                                 source: dash + 2 < fields.count ? Self.unescape(fields[dash + 2]) : "",
                                 readOnly: options.contains("ro")))
        }
    }

    /// The mount whose point is the longest one at or above `path` (the last one mounted there
    /// wins, as it hides the others).
    package func mount(holding path: String) -> Entry? {
        var best: Entry?
        for e in entries {
            let covers = e.mountPoint == "/" || path == e.mountPoint || path.hasPrefix(e.mountPoint + "/")
            guard covers else { continue }
            if best == nil || e.mountPoint.count >= best!.mountPoint.count { best = e }
        }
        return best
    }

    static func unescape(_ s: Substring) -> String {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 3 < b.count {
                let digits = b[(i + 1)...(i + 3)]
                if digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x37 }) {
                    out.append(digits.reduce(0) { $0 &* 8 &+ ($1 - 0x30) })
                    i += 4
                    continue
                }
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
