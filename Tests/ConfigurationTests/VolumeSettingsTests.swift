import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `[volumes]` and what it chooses among the mounts (issue 29): the mount table's fields, the
/// policy, the overrides, network file systems only when named, and a volume's identity.
@Suite("Volume settings", .blocking)
struct VolumeSettingsTests {
    static let mountinfo = """
        22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
        30 22 8:1 / /boot rw,relatime shared:2 - ext4 /dev/sda1 rw
        31 22 8:3 / /home rw,relatime shared:3 - ext4 /dev/sda3 rw
        40 22 8:17 / /run/media/ada/USB\\040STICK rw,nosuid shared:9 - vfat /dev/sdb1 rw,fmask=0022
        41 22 0:60 / /mnt/share rw,relatime shared:10 - nfs4 nas:/export/photos rw,vers=4.2
        42 22 7:0 / /mnt/image ro,relatime shared:11 - ext4 /dev/loop0 ro
        43 22 0:61 / /run/media/ada/scratch rw shared:12 - tmpfs scratch rw,size=1024k
        44 22 8:3 /ada/projects /srv/projects rw,relatime shared:3 - ext4 /dev/sda3 rw
        45 22 0:62 / /mnt/sshfs rw - fuse.sshfs ada@host:/data rw
        46 22 0:63 / /run/media/ada/nas rw - cifs //nas/share rw
        """

    static var table: MountTable { MountTable(mountinfo) }

    /// Identities by device, as udev's links would give them.
    static func identify(_ e: MountTable.Entry) -> VolumeIdentity {
        switch e.device {
        case "8:17": VolumeIdentity(uuid: "ABCD-1234", label: "USB STICK")
        case "7:0": VolumeIdentity(uuid: "0F1E2D3C-0000-4000-8000-000000000001", label: "IMAGE")
        default: VolumeIdentity()
        }
    }

    func chosen(_ toml: String, removable: Set<String> = []) throws -> [String] {
        var s = Settings()
        try s.apply(toml: toml, file: "c.toml")
        return s.volumes.select(Self.table, home: "/home/ada", identify: Self.identify, isRemovableDevice: { removable.contains($0) }).map(\.mountPoint)
    }

    @Test("mountinfo: the source, the root, read-only and escapes are read")
    func mountinfoFields() throws {
        let usb = try #require(Self.table.entries.first { $0.device == "8:17" })
        #expect(usb.mountPoint == "/run/media/ada/USB STICK" && usb.source == "/dev/sdb1" && usb.fileSystemType == "vfat")
        #expect(usb.mountID == 40 && usb.root == "/" && !usb.readOnly)
        let image = try #require(Self.table.entries.first { $0.device == "7:0" })
        #expect(image.readOnly && image.source == "/dev/loop0")
        let bind = try #require(Self.table.entries.first { $0.mountPoint == "/srv/projects" })
        #expect(bind.root == "/ada/projects")
        #expect(Self.table.entries.first { $0.fileSystemType == "nfs4" }?.source == "nas:/export/photos")
    }

    @Test("settings: removable by default; index and overrides are read; mistakes name the key")
    func settings() throws {
        #expect(Settings().volumes.index == .removable && Settings().volumes.overrides.isEmpty)
        var s = Settings()
        try s.apply(toml: """
            [volumes]
            index = "all"
            [[volumes.volume]]
            uuid = "ABCD-1234"
            index = false
            [[volumes.volume]]
            source = "nas:/export/photos"
            path = "/mnt/share/"
            index = true
            """, file: "c.toml")
        #expect(s.volumes.index == .all)
        #expect(s.volumes.overrides == [Settings.Volumes.Override(uuid: "ABCD-1234", index: false),
                                        Settings.Volumes.Override(source: "nas:/export/photos", path: "/mnt/share", index: true)])
        for (toml, message) in [
            ("[volumes]\nindex = \"some\"\n", "c.toml:2: volumes.index: expected one of \"removable\", \"all\", \"none\""),
            ("[[volumes.volume]]\nindex = true\n", "a uuid, label, source or path in every [[volumes.volume]]"),
            ("[[volumes.volume]]\nlabel = \"X\"\n", "index = true or false in every [[volumes.volume]]"),
            ("[[volumes.volume]]\npath = \"mnt\"\nindex = true\n", "an absolute mount point"),
            ("[[volumes.volume]]\nlabel = \"X\"\nindex = true\nstore = \"volume\"\n", "volumes.volume.store"),
        ] {
            var bad = Settings()
            do {
                try bad.apply(toml: toml, file: "c.toml")
                Issue.record("accepted: \(toml)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    @Test("removable: removable devices and /media, /run/media mounts; never the system's, never a share unnamed")
    func removablePolicy() throws {
        #expect(try chosen("") == ["/run/media/ada/USB STICK", "/run/media/ada/scratch"])
        // A removable device mounted elsewhere counts too.
        #expect(try chosen("", removable: ["7:0"]) == ["/run/media/ada/USB STICK", "/mnt/image", "/run/media/ada/scratch"])
        #expect(try chosen("[volumes]\nindex = \"none\"\n").isEmpty)
    }

    @Test("all: every block device but /, /boot, the one holding HOME, and bind mounts; shares still only when named")
    func allPolicy() throws {
        #expect(try chosen("[volumes]\nindex = \"all\"\n") == ["/run/media/ada/USB STICK", "/mnt/image", "/run/media/ada/scratch"])
    }

    @Test("a network file system is indexed only when an override names it, and is marked as a share")
    func networkOnlyWhenNamed() throws {
        #expect(try !chosen("[volumes]\nindex = \"all\"\n").contains("/mnt/share"))
        // Not even where desktops mount removable media (GVFS, a share mounted by udisks).
        #expect(try !chosen("").contains("/run/media/ada/nas"))
        #expect(try chosen("[[volumes.volume]]\nsource = \"//nas/share\"\nindex = true\n").contains("/run/media/ada/nas"))
        #expect(try chosen("[[volumes.volume]]\nsource = \"nas:/export/photos\"\nindex = true\n").contains("/mnt/share"))
        #expect(try chosen("[[volumes.volume]]\npath = \"/mnt/sshfs\"\nindex = true\n").contains("/mnt/sshfs"))
        var s = Settings()
        try s.apply(toml: "[[volumes.volume]]\npath = \"/mnt/share\"\nindex = true\n", file: "c.toml")
        let share = try #require(s.volumes.select(Self.table, home: nil, identify: Self.identify).first { $0.mountPoint == "/mnt/share" })
        #expect(share.isNetwork && share.uuid == nil && share.key.hasPrefix("nfs4-"))
        // Two fields: both must match.
        #expect(try !chosen("[[volumes.volume]]\npath = \"/mnt/share\"\nsource = \"other:/x\"\nindex = true\n").contains("/mnt/share"))
    }

    @Test("overrides by UUID (any case) and label: index = false leaves a removable volume out, true takes another in")
    func overridesByIdentity() throws {
        #expect(try chosen("[[volumes.volume]]\nuuid = \"abcd-1234\"\nindex = false\n") == ["/run/media/ada/scratch"])
        #expect(try chosen("[[volumes.volume]]\nlabel = \"IMAGE\"\nindex = true\n")
            == ["/run/media/ada/USB STICK", "/mnt/image", "/run/media/ada/scratch"])
        #expect(try chosen("[volumes]\nindex = \"none\"\n[[volumes.volume]]\nlabel = \"USB STICK\"\nindex = true\n") == ["/run/media/ada/USB STICK"])
    }

    @Test("a volume's key: its UUID in lower case, else a hash of type, source and mount point; its name: label, UUID, mount point")
    func keysAndNames() throws {
        let volumes = Settings().volumes.select(Self.table, home: nil, identify: Self.identify)
        let usb = try #require(volumes.first { $0.fileSystemType == "vfat" })
        #expect(usb.key == "abcd-1234" && usb.name == "USB STICK")
        let scratch = try #require(volumes.first { $0.fileSystemType == "tmpfs" })
        #expect(scratch.key.hasPrefix("tmpfs-") && scratch.key.count == "tmpfs-".count + 16 && scratch.name == "scratch")
        // The same source at another place is another volume (a tmpfs has nothing else to tell it by).
        let moved = MountTable(Self.mountinfo.replacingOccurrences(of: "/run/media/ada/scratch", with: "/run/media/ada/other"))
        let again = try #require(Settings().volumes.select(moved, home: nil, identify: Self.identify).first { $0.fileSystemType == "tmpfs" })
        #expect(again.key != scratch.key)
        #expect(Settings().volumes.select(Self.table, home: nil, identify: Self.identify).first { $0.fileSystemType == "tmpfs" }?.key == scratch.key)
    }

    @Test("a mount hidden by a later one at the same point is not chosen; the same device twice is one volume")
    func hiddenAndTwice() throws {
        let text = Self.mountinfo + "\n50 22 8:17 / /run/media/ada/again rw - vfat /dev/sdb1 rw\n51 22 0:70 / /run/media/ada/scratch rw - tmpfs other rw\n"
        let volumes = Settings().volumes.select(MountTable(text), home: nil, identify: Self.identify)
        #expect(volumes.map(\.mountPoint) == ["/run/media/ada/USB STICK", "/run/media/ada/scratch"])
        #expect(volumes.last?.source == "other")
    }

    @Test("the catalogue: records are written and read back; mounted only where the same file system is mounted now")
    func catalogue() throws {
        let tree = try TemporaryTree(prefix: "fsindex-volumes")
        defer { tree.remove() }
        let catalogue = VolumeCatalogue(indexDirectory: tree.path("index"))
        let volumes = Settings().volumes.select(Self.table, home: nil, identify: Self.identify)
        for v in volumes {
            try tree.createDirectory("index/volumes/" + v.key)
            try catalogue.record(v)
        }
        #expect(Set(catalogue.volumes()) == Set(volumes))
        let scratch = try #require(volumes.first { $0.fileSystemType == "tmpfs" })
        #expect(VolumeCatalogue.isMounted(scratch, table: Self.table))
        let unmounted = MountTable(Self.mountinfo.split(separator: "\n").filter { !$0.contains("tmpfs") }.joined(separator: "\n"))
        #expect(!VolumeCatalogue.isMounted(scratch, table: unmounted))
        let otherThere = MountTable(Self.mountinfo.replacingOccurrences(of: "tmpfs scratch", with: "tmpfs elsewhere"))
        #expect(!VolumeCatalogue.isMounted(scratch, table: otherThere))
    }

    @Test("identity: an ext4 superblock's UUID and label, as mkfs.ext4 wrote them (no root needed for an image file)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/mkfs.ext4"), "needs mkfs.ext4 (e2fsprogs)"))
    func ext4Superblock() throws {
        let tree = try TemporaryTree(prefix: "fsindex-volumes")
        defer { tree.remove() }
        let image = tree.path("fs.img").string
        #expect(FileManager.default.createFile(atPath: image, contents: nil) && truncate(image, 8 << 20) == 0)
        let mkfs = Process()
        mkfs.executableURL = URL(fileURLWithPath: "/usr/sbin/mkfs.ext4")
        mkfs.arguments = ["-q", "-F", "-L", "SUPER LABEL", "-U", "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", image]
        try mkfs.run()
        mkfs.waitUntilExit()
        try #require(mkfs.terminationStatus == 0)
        #expect(VolumeIdentity.superblock(of: image) == VolumeIdentity(uuid: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", label: "SUPER LABEL"))
        // Not a file system: nothing.
        let other = try tree.create("plain.bin", contents: String(repeating: "x", count: 4096)).string
        #expect(VolumeIdentity.superblock(of: other) == nil)
    }
}
