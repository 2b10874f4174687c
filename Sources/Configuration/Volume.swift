import Attributes
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// A mounted file system that has an index of its own (issue 29): a USB drive, an SD card, a
/// disk image, a network share named in the config.
///
/// A key design decision: a volume is known by `key`, the name of its index folder
/// (`<index>/volumes/<key>/`): its file system's UUID when it has one, which stays the same
/// wherever and by whomever it is mounted; otherwise (tmpfs, most network shares, a FAT volume
/// whose UUID nobody could read) its type, what was mounted and where, hashed: the same share
/// mounted at the same place again is the same volume, and nothing has to be written on it.
@MemberwiseInit
package struct Volume: Sendable, Hashable, Codable {
    /// The index folder's name: the UUID in lower case, else `TYPE-HASH` (see above).
    package var key: String
    package var uuid: String?
    package var label: String?
    /// Where it is mounted now (or was last, for a volume read from the catalogue).
    package var mountPoint: String
    /// What was mounted (`/dev/sdb1`, `server:/export`, `tmpfs`).
    package var source: String
    package var fileSystemType: String
    /// On another machine (`MountFacts.networkTypes`): polled, since inotify does not see the
    /// other clients' changes.
    package var isNetwork: Bool
    package var readOnly: Bool

    /// What results and `fsindex status` call it: its label, else its UUID, else its mount
    /// point's last name.
    package var name: String {
        if let label, !label.isEmpty { return label }
        if let uuid { return uuid }
        return FilePath(mountPoint).lastComponent?.string ?? mountPoint
    }

    /// `name` for a log line or a terminal: a label is whatever the stick's maker wrote in its
    /// superblock, newlines and escape sequences included, so control characters are escaped.
    package var shownName: String { ByteString.escaped(Array(name.utf8), escapeControls: true) }

    /// The mount point for a log line, escaped as `shownName` (a label becomes its folder's name).
    package var shownMountPoint: String { ByteString.escaped(Array(mountPoint.utf8), escapeControls: true) }

    /// The volume a mount is, its UUID and label read by `VolumeIdentity`.
    package init(_ entry: MountTable.Entry, identity: VolumeIdentity) {
        let uuid = identity.uuid?.lowercased()
        let key = uuid ?? (entry.fileSystemType.filter { $0.isLetter || $0.isNumber || $0 == "." } + "-"
            + Self.hashHex(entry.fileSystemType + "\0" + entry.source + "\0" + entry.mountPoint))
        self.init(key: key, uuid: uuid, label: identity.label, mountPoint: entry.mountPoint, source: entry.source,
                  fileSystemType: entry.fileSystemType, isNetwork: MountFacts.networkTypes.contains(entry.fileSystemType),
                  readOnly: entry.readOnly)
    }

    /// FNV-1a, 64 bits, in hex: stable across runs and builds (Swift's `Hasher` is seeded).
    static func hashHex(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Settings.Volumes {
    /// The mounts of `table` to index, in the table's order: those the policy takes, plus those
    /// an override names with `index = true`, minus those it names with `index = false`.
    /// Network file systems only when named. `identify` reads a mount's UUID and label (tests
    /// give their own); it is asked only about the mounts that may be chosen.
    package func select(_ table: MountTable, home: String?,
                       identify: (MountTable.Entry) -> VolumeIdentity = { VolumeIdentity.read($0) },
                       isRemovableDevice: (String) -> Bool = { MountFacts.isRemovable(device: $0) }) -> [Volume] {
        var chosen: [Volume] = []
        var seenDevices: Set<String> = []
        // UUIDs and labels are read only when an override names one, or for a mount chosen.
        let namesIdentity = overrides.contains { $0.uuid != nil || $0.label != nil }
        for (i, entry) in table.entries.enumerated() {
            // A mount hidden by a later one at the same point is not reachable.
            if table.entries[(i + 1)...].contains(where: { $0.mountPoint == entry.mountPoint }) { continue }
            guard entry.mountPoint != "/" else { continue }
            var identity = namesIdentity ? identify(entry) : nil
            let named = overrides.last { $0.matches(entry, identity ?? VolumeIdentity()) }
            let take: Bool
            if let index = named?.index {
                take = index
            } else if MountFacts.networkTypes.contains(entry.fileSystemType) || entry.root != "/" {
                take = false   // a share never without being named; a bind mount is a folder of another
            } else {
                take = automatic(entry, home: home, isRemovableDevice: isRemovableDevice)
            }
            guard take else { continue }
            // The same file system mounted twice (a second mount of a block device) is one volume.
            if entry.source.hasPrefix("/dev/") {
                guard seenDevices.insert(entry.device).inserted else { continue }
            }
            if identity == nil { identity = identify(entry) }
            chosen.append(Volume(entry, identity: identity ?? VolumeIdentity()))
        }
        return chosen
    }

    /// The policy alone, for a mount no override names.
    func automatic(_ entry: MountTable.Entry, home: String?, isRemovableDevice: (String) -> Bool) -> Bool {
        let underMedia = MountFacts.removableMountPrefixes.contains { (entry.mountPoint + "/").hasPrefix($0) && entry.mountPoint + "/" != $0 }
        switch index {
        case .none: return false
        case .removable:
            return underMedia || (entry.source.hasPrefix("/dev/") && isRemovableDevice(entry.device))
        case .all:
            if underMedia { return true }
            guard entry.source.hasPrefix("/dev/") else { return false }
            if let home, home == entry.mountPoint || home.hasPrefix(entry.mountPoint + "/") { return false }
            return !Self.systemFolders.contains { entry.mountPoint == $0 || entry.mountPoint.hasPrefix($0 + "/") }
        }
    }

    /// The system's own mounts, never volumes under `all` (an override can still name one).
    static let systemFolders = ["/boot", "/usr", "/var", "/opt", "/srv", "/snap", "/nix", "/etc", "/proc", "/sys", "/dev", "/run", "/tmp"]
}

extension Settings.Volumes.Override {
    /// Whether every field given names this mount.
    func matches(_ entry: MountTable.Entry, _ identity: VolumeIdentity) -> Bool {
        if let uuid, uuid.lowercased() != identity.uuid?.lowercased() { return false }
        if let label, label != identity.label { return false }
        if let source, source != entry.source { return false }
        if let path, path != entry.mountPoint { return false }
        return true
    }

    /// Whether every field given names this volume (as it is mounted now).
    func matches(_ volume: Volume) -> Bool {
        if let uuid, uuid.lowercased() != volume.uuid?.lowercased() { return false }
        if let label, label != volume.label { return false }
        if let source, source != volume.source { return false }
        if let path, path != volume.mountPoint { return false }
        return true
    }
}
