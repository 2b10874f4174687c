import CommandSupport
import Configuration
import Indexing
import SystemPackage

/// `fsindex status`'s volumes (issue 29): each volume fsindexd has indexed, whether it is
/// mounted now, where its index is and how many items it holds. Read from the catalogue and the
/// mount table, so it answers without fsindexd too.
struct VolumeRow: Encodable {
    var name: String
    var uuid: String?
    var label: String?
    var fileSystemType: String
    var mountPoint: String
    /// "mounted" or "offline".
    var state: String
    var index: String
    var items: Int?
    /// When the portable copy on the volume (`.fsindex/`, `store_on_volume`) was written, in
    /// ISO 8601; nil when the volume is offline or carries no copy of this user's.
    var copyWritten: String?

    static func all(indexDirectory: IndexLocation) -> [VolumeRow] {
        let catalogue = VolumeCatalogue(indexDirectory: indexDirectory.directory)
        return catalogue.volumes(mounts: VolumeCatalogue.currentMounts()).map { volume, mounted in
            let location = IndexLocation(directory: catalogue.directory(of: volume.key))
            let items = location.exists ? (try? IndexStore(location: location, readOnly: true).count()) : nil
            let copy = mounted ? VolumeCopyRecord.read(mountPoint: volume.mountPoint) : nil
            return VolumeRow(name: volume.name, uuid: volume.uuid, label: volume.label, fileSystemType: volume.fileSystemType,
                             mountPoint: volume.mountPoint, state: mounted ? "mounted" : "offline",
                             index: location.directory.string, items: items,
                             copyWritten: copy?.writtenText)
        }
    }

    /// One line: `  LABEL  mounted at /run/media/ada/LABEL (ext4), 1234 items; index …`, and
    /// `; copy on the volume written …` when it carries one.
    var line: String {
        let at = state == "mounted" ? "mounted at " : "offline, last at "
        let copy = copyWritten.map { "; copy on the volume written \($0)" } ?? ""
        return "  \(Output.field(name))  \(at)\(Output.field(mountPoint)) (\(fileSystemType)), \(items.map { String($0) } ?? "no") items; index \(index)\(copy)\n"
    }
}
