import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// A file system's UUID and label, as an unprivileged user can read them.
///
/// A key design decision: no library and no helper program. First udev's links
/// (`/dev/disk/by-uuid/UUID` and `/dev/disk/by-label/LABEL`, readable by everyone), matched to
/// the mount by the device number they lead to; then, where udev made none (a loop device in a
/// container, a system without udev) and the device can be read (root, or the `disk` group),
/// the file system's own superblock: ext2/3/4 and btrfs, whose UUID and label sit at fixed
/// places. libblkid would add FAT, exFAT and NTFS for root, at the price of a C library in
/// every parent process; udev's links already cover those on a desktop. A file system with
/// neither (tmpfs, a share) has no UUID: `Volume.key` then names it by source and place.
@MemberwiseInit
package struct VolumeIdentity: Sendable, Hashable {
    package var uuid: String? = nil
    package var label: String? = nil

    /// The identity of a mounted block device; none for a mount without one (tmpfs, a share).
    package static func read(_ entry: MountTable.Entry, links: String = "/dev/disk") -> VolumeIdentity {
        guard entry.source.hasPrefix("/dev/") else { return VolumeIdentity() }
        var id = VolumeIdentity(uuid: link(in: links + "/by-uuid", to: entry.device),
                                label: link(in: links + "/by-label", to: entry.device))
        if id.uuid == nil || id.label == nil, let read = superblock(of: entry.source) {
            id.uuid = id.uuid ?? read.uuid
            id.label = id.label ?? read.label
        }
        return id
    }

    /// The name in `folder` of the link to the block device `MAJ:MIN`, unescaped (udev writes a
    /// space as `\x20`).
    static func link(in folder: String, to device: String) -> String? {
        guard let dir = opendir(folder) else { return nil }
        defer { closedir(dir) }
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            var st = stat()
            guard stat(folder + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFBLK else { continue }
            if deviceNumber(UInt64(st.st_rdev)) == device { return unescape(name) }
        }
        return nil
    }

    /// `MAJ:MIN` of a `dev_t`, as glibc's `major()` and `minor()` (macros Swift does not import).
    static func deviceNumber(_ dev: UInt64) -> String {
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        return "\(major):\(minor)"
    }

    /// udev's `\xHH` escapes decoded.
    static func unescape(_ s: String) -> String {
        var out: [UInt8] = []
        let b = Array(s.utf8)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "\\"), i + 3 < b.count, b[i + 1] == UInt8(ascii: "x"),
               let v = UInt8(String(decoding: b[(i + 2)...(i + 3)], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 4
                continue
            }
            out.append(b[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The UUID and label in the superblock of the device at `path`, for ext2/3/4 and btrfs;
    /// nil when it cannot be read or is neither.
    package static func superblock(of path: String) -> VolumeIdentity? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func bytes(_ offset: Int, _ count: Int) -> [UInt8]? {
            var buf = [UInt8](repeating: 0, count: count)
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? buf : nil
        }
        // ext2/3/4: the superblock at 1024; s_magic 0xEF53 at +56, s_uuid at +104, s_volume_name at +120.
        if let sb = bytes(1024, 136), sb[56] == 0x53, sb[57] == 0xEF {
            return VolumeIdentity(uuid: uuidText(sb[104..<120]), label: labelText(sb[120..<136]))
        }
        // btrfs: the superblock at 64 KiB; "_BHRfS_M" at +64, fsid at +32, label (256 bytes) at +299.
        if let sb = bytes(65_536, 555), Array(sb[64..<72]) == Array("_BHRfS_M".utf8) {
            return VolumeIdentity(uuid: uuidText(sb[32..<48]), label: labelText(sb[299..<555]))
        }
        return nil
    }

    static func uuidText(_ b: ArraySlice<UInt8>) -> String? {
        guard b.contains(where: { $0 != 0 }) else { return nil }
        let hex = b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    static func labelText(_ b: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: b.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
