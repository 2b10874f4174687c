import Foundation
import SystemCalls
import SystemPackage

/// The volumes an index knows: one folder per volume under `<index>/volumes/`, named by
/// `Volume.key`, holding the volume's own index (`index.sqlite`) and `volume.json`, what it
/// was when last mounted (UUID, label, type, source, mount point).
///
/// A key design decision: the volume indexes live in the user's data folder, beside the home
/// index, never on the volume. So they stay readable while the volume is unplugged (fsfind
/// `--include-offline` needs nothing kept in step), a read-only or foreign volume is indexed the
/// same way, and nothing fsindexd holds open keeps the volume busy: `umount` of a volume whose
/// database was open on it would fail with "target is busy", and Linux tells no one before an
/// unmount (there is no equivalent of macOS's unmount approval) to let go in time.
package struct VolumeCatalogue: Sendable {
    /// `<index>/volumes`.
    package let folder: FilePath

    package init(indexDirectory: FilePath) {
        folder = indexDirectory.appending("volumes")
    }

    /// The folder of one volume's index.
    package func directory(of key: String) -> FilePath { folder.appending(key) }

    /// Writes `volume` as the volume's record (atomically: a new file renamed over the old);
    /// its folder must exist.
    package func record(_ volume: Volume) throws {
        let path = directory(of: volume.key).appending("volume.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(volume)
        try data.write(to: URL(fileURLWithPath: path.string), options: .atomic)
    }

    /// The recorded volumes, by label then key; unreadable records are skipped.
    package func volumes() -> [Volume] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.string) else { return [] }
        let decoder = JSONDecoder()
        return names.compactMap { name -> Volume? in
            let path = folder.appending(name).appending("volume.json")
            guard case .success(let bytes) = SystemCall.readFile(path, limit: 1 << 16),
                  let v = try? decoder.decode(Volume.self, from: Data(bytes)), v.key == name else { return nil }
            return v
        }.sorted { ($0.name, $0.key) < ($1.name, $1.key) }
    }

    /// The recorded volumes with whether each is mounted now where it was recorded: the mount
    /// there has the same type and source, and the same UUID when the volume has one.
    package func volumes(mounts table: MountTable) -> [(volume: Volume, mounted: Bool)] {
        volumes().map { ($0, Self.isMounted($0, table: table)) }
    }

    package static func isMounted(_ volume: Volume, table: MountTable) -> Bool {
        // The last mount at the point is the one seen there.
        guard let entry = table.entries.last(where: { $0.mountPoint == volume.mountPoint }),
              entry.fileSystemType == volume.fileSystemType else { return false }
        if let uuid = volume.uuid { return VolumeIdentity.read(entry).uuid?.lowercased() == uuid }
        return entry.source == volume.source
    }

    /// `/proc/self/mountinfo` now (empty when it cannot be read).
    package static func currentMounts() -> MountTable {
        guard case .success(let bytes) = SystemCall.readFile("/proc/self/mountinfo", limit: 16 << 20) else { return MountTable("") }
        return MountTable(String(decoding: bytes, as: UTF8.self))
    }
}
