import Configuration
import Foundation
import SystemPackage
import TestSupport
import Testing

/// The roots used when none are configured: the XDG folders and the files directly in HOME
/// (issue 26).
@Suite("Default roots")
struct DefaultRootsTests {
    @Test("issue 26: user-dirs.dirs: \"$HOME/…\" and absolute values, comments, escapes; a folder equal to HOME is unset")
    func parsesUserDirs() {
        let text = """
            # This file is written by xdg-user-dirs-update
            # If you want to change or add directories, just edit the line you're
            # interested in. All local changes will be retained on the next run.
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_DOWNLOAD_DIR="$HOME/Downloads"
            XDG_TEMPLATES_DIR="$HOME/"
            XDG_PUBLICSHARE_DIR="$HOME"
              XDG_DOCUMENTS_DIR="$HOME/My \\"Docs\\""   # a comment after the value
            XDG_MUSIC_DIR="/srv/music"
            XDG_PICTURES_DIR=$HOME/Pictures
            XDG_VIDEOS_DIR="Videos"
            #XDG_OTHER_DIR="$HOME/Other"
            NOT_XDG="$HOME/x"
            """
        let dirs = UserDirectories.parse(text, home: "/home/ada")
        #expect(dirs["DESKTOP"] == "/home/ada/Desktop")
        #expect(dirs["DOWNLOAD"] == "/home/ada/Downloads")
        #expect(dirs["DOCUMENTS"] == "/home/ada/My \"Docs\"")
        #expect(dirs["MUSIC"] == "/srv/music")
        #expect(dirs["TEMPLATES"] == nil && dirs["PUBLICSHARE"] == nil)   // = HOME: unset
        #expect(dirs["PICTURES"] == nil)   // not quoted: not xdg-user-dirs' form
        #expect(dirs["VIDEOS"] == nil)     // neither $HOME/… nor absolute
        #expect(dirs["OTHER"] == nil)
        #expect(dirs.count == 4)
    }

    @Test("issue 26: the folders come from user-dirs.dirs when it exists, else the usual names under HOME")
    func defaultFolders() throws {
        let tree = try TemporaryTree()
        let home = tree.path("home").string
        let env = ["HOME": home, "XDG_CONFIG_HOME": tree.path("config").string]
        #expect(UserDirectories.defaultFolders(environment: env)
            == ["Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos"].map { home + "/" + $0 })
        try tree.create("config/user-dirs.dirs", contents: "XDG_DOCUMENTS_DIR=\"$HOME/Dokumente\"\nXDG_MUSIC_DIR=\"$HOME\"\nXDG_TEMPLATES_DIR=\"$HOME/T\"\n")
        #expect(UserDirectories.defaultFolders(environment: env) == [home + "/Dokumente"])
        // Without XDG_CONFIG_HOME: ~/.config/user-dirs.dirs.
        try tree.create("home/.config/user-dirs.dirs", contents: "XDG_VIDEOS_DIR=\"$HOME/Filme\"\n")
        #expect(UserDirectories.defaultFolders(environment: ["HOME": home]) == [home + "/Filme"])
    }

    @Test("issue 26: the defaults are the XDG folders that exist, recursive, and HOME files-only; the rest is left out with its reason")
    func resolvesDefaults() throws {
        let tree = try TemporaryTree()
        let home = tree.path("home").string
        try tree.createDirectory("home/Documents")
        try tree.createDirectory("home/Pictures")
        try tree.create("home/Music", contents: "a file, not a folder")
        try tree.createDirectory("share")
        try tree.create("config/user-dirs.dirs", contents: """
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_DOCUMENTS_DIR="$HOME/Documents"
            XDG_MUSIC_DIR="$HOME/Music"
            XDG_PICTURES_DIR="$HOME/Pictures"
            XDG_VIDEOS_DIR="\(tree.path("share").string)"

            """)
        let env = ["HOME": home + "/", "XDG_CONFIG_HOME": tree.path("config").string]
        // The share's mount is a network one; the rest is where the test runs.
        let defaults = DefaultRoots.resolve(environment: env) { path in
            path == tree.path("share").string ? MountFacts(mountPoint: path, fileSystemType: "nfs4", device: "0:99", removable: false)
                                               : MountFacts.of(path)
        }
        #expect(defaults.recursive == [home + "/Documents", home + "/Pictures"])
        #expect(defaults.filesOnly == [home])
        let reasons = Dictionary(uniqueKeysWithValues: defaults.leftOut.map { ($0.path, $0.reason) })
        #expect(reasons[home + "/Desktop"] == "does not exist")
        #expect(reasons[home + "/Music"] == "is not a folder")
        #expect(reasons[tree.path("share").string]?.contains("network file system (nfs4") == true)
        #expect(reasons.count == 3)
        // No HOME: nothing, and why.
        let none = DefaultRoots.resolve(environment: [:])
        #expect(none.isEmpty && none.leftOut.first?.reason.contains("HOME") == true)
    }
}

/// Network and removable mounts, decided from the real mount table and sysfs.
@Suite("Mount facts")
struct MountFactsTests {
    @Test("issue 26: /proc is procfs, and a temporary folder is local: neither is left out")
    func realMounts() throws {
        let proc = try #require(MountFacts.of("/proc/self"))
        #expect(proc.fileSystemType == "proc" && proc.mountPoint == "/proc")
        #expect(proc.exclusion == nil)
        let tree = try TemporaryTree()
        let local = try #require(MountFacts.of(tree.root.string))
        #expect(!MountFacts.networkTypes.contains(local.fileSystemType))
        #expect(local.exclusion == nil, "\(local)")
        if let shm = MountFacts.of("/dev/shm") {
            #expect(shm.fileSystemType == "tmpfs" && shm.exclusion == nil)
        }
        #expect(MountFacts.of(tree.path("missing").string) == nil)
    }

    @Test("issue 26: mountinfo lines give each mount's type and point (escapes decoded); the longest point holding a path wins")
    func parsesMountInfo() {
        let table = MountTable("""
            22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
            30 22 0:40 / /home/ada/net\\040share rw,nosuid shared:9 - nfs4 server:/export rw,vers=4.2
            31 22 0:41 / /home/ada/remote rw - fuse.sshfs ada@host: rw,user_id=1000
            32 22 8:17 / /run/media/ada/STICK rw,nosuid,nodev shared:50 - vfat /dev/sdb1 rw
            33 22 0:42 / /home/ada/Documents rw - ext4 /dev/sda3 rw
            bad line
            """)
        #expect(table.entries.count == 5)
        #expect(table.mount(holding: "/home/ada/net share/x")?.fileSystemType == "nfs4")
        #expect(table.mount(holding: "/home/ada/remote")?.fileSystemType == "fuse.sshfs")
        #expect(table.mount(holding: "/home/ada/remoteness")?.mountPoint == "/")
        #expect(table.mount(holding: "/home/ada/Documents/a")?.device == "0:42")
        func facts(_ path: String) -> MountFacts {
            let e = table.mount(holding: path)!
            return MountFacts(mountPoint: e.mountPoint, fileSystemType: e.fileSystemType, device: e.device, removable: false)
        }
        #expect(facts("/home/ada/net share").exclusion?.contains("network") == true)
        #expect(facts("/home/ada/remote/x").exclusion?.contains("fuse.sshfs") == true)
        #expect(facts("/run/media/ada/STICK/Pictures").exclusion?.contains("removable media") == true)
        #expect(facts("/home/ada/Documents").exclusion == nil)
        #expect(facts("/home/ada").exclusion == nil)
    }

    @Test("issue 26: a device is removable when its own or its disk's sysfs `removable` is 1")
    func removableFromSysfs() throws {
        // A sysfs-shaped tree: /dev/block/MAJ:MIN links to the device folder, a partition's
        // folder lies inside its disk's.
        let sys = try TemporaryTree()
        try sys.create("devices/usb/block/sdb/removable", contents: "1\n")
        try sys.create("devices/usb/block/sdb/sdb1/partition", contents: "1\n")
        try sys.create("devices/ata/block/sda/removable", contents: "0\n")
        try sys.create("devices/ata/block/sda/sda2/partition", contents: "2\n")
        try sys.createDirectory("dev/block")
        try sys.symlink("dev/block/8:16", to: "../../devices/usb/block/sdb")
        try sys.symlink("dev/block/8:17", to: "../../devices/usb/block/sdb/sdb1")
        try sys.symlink("dev/block/8:2", to: "../../devices/ata/block/sda/sda2")
        #expect(MountFacts.isRemovable(device: "8:16", sysfs: sys.root.string))
        #expect(MountFacts.isRemovable(device: "8:17", sysfs: sys.root.string))
        #expect(!MountFacts.isRemovable(device: "8:2", sysfs: sys.root.string))
        #expect(!MountFacts.isRemovable(device: "0:21", sysfs: sys.root.string))
        // The real sysfs: a virtual file system's device is not removable.
        #expect(!MountFacts.isRemovable(device: MountFacts.of("/proc")?.device ?? "0:0"))
        let removableFacts = MountFacts(mountPoint: "/mnt/x", fileSystemType: "vfat", device: "8:17", removable: true)
        #expect(removableFacts.exclusion?.contains("removable device") == true)
    }

    @Test("issue 26: a tmpfs mounted under /media is left out as removable media",
          .enabled(if: MountProbe.canMount, "needs root with CAP_SYS_ADMIN to mount a tmpfs, and /media"))
    func realMountUnderMedia() throws {
        let point = "/media/fsindex-test-\(getpid())"
        try #require(mkdir(point, 0o755) == 0)
        defer { rmdir(point) }
        try #require(mount("fsindex-test", point, "tmpfs", 0, "size=1m") == 0)
        defer { umount(point) }
        let facts = try #require(MountFacts.of(point))
        #expect(facts.fileSystemType == "tmpfs" && facts.mountPoint == point)
        #expect(facts.exclusion?.contains("removable media") == true, "\(facts)")
        // The same file system type elsewhere is local.
        #expect(MountFacts(mountPoint: "/mnt/x", fileSystemType: "tmpfs", device: facts.device, removable: false).exclusion == nil)
    }
}

/// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN) and /media exists.
enum MountProbe {
    static let canMount: Bool = {
        var st = stat()
        guard geteuid() == 0, stat("/media", &st) == 0 else { return false }
        let probe = "/tmp/fsindex-mount-probe-\(getpid())"
        guard mkdir(probe, 0o700) == 0 else { return false }
        defer { rmdir(probe) }
        guard mount("fsindex-probe", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe)
        return true
    }()
}

/// The unit `fsindex setup` writes is Config/fsindexd.service's.
@Suite("Service unit")
struct ServiceUnitTests {
    @Test("issue 26: the unit setup writes is Config/fsindexd.service from [Unit] on, with ExecStart naming the daemon")
    func sameAsConfig() throws {
        let checkout = FilePath(#filePath).removingLastComponent().removingLastComponent().removingLastComponent()
        let shipped = try String(contentsOfFile: checkout.appending("Config/fsindexd.service").string, encoding: .utf8)
        let fromUnit = try #require(shipped.range(of: "[Unit]")).lowerBound
        let execLine = try #require(shipped.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        #expect(String(shipped[fromUnit...]) == ServiceUnit.body(execStart: String(execLine.dropFirst("ExecStart=".count))))
        let written = ServiceUnit.text(daemon: "/opt/fs index/fsindexd")
        #expect(written.contains("\nExecStart=\"/opt/fs index/fsindexd\" --foreground\n"))
        #expect(written.hasSuffix("WantedBy=default.target\n"))
    }
}
