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

    static func all(indexDirectory: IndexLocation) -> [VolumeRow] {
        let catalogue = VolumeCatalogue(indexDirectory: indexDirectory.directory)
        return catalogue.volumes(mounts: VolumeCatalogue.currentMounts()).map { volume, mounted in
            let location = IndexLocation(directory: catalogue.directory(of: volume.key))
            let items = location.exists ? (try? IndexStore(location: location, readOnly: true).count()) : nil
            return VolumeRow(name: volume.name, uuid: volume.uuid, label: volume.label, fileSystemType: volume.fileSystemType,
                             mountPoint: volume.mountPoint, state: mounted ? "mounted" : "offline",
                             index: location.directory.string, items: items)
        }
    }

    /// One line: `  LABEL  mounted at /run/media/ada/LABEL (ext4), 1234 items; index …`.
    var line: String {
        let at = state == "mounted" ? "mounted at " : "offline, last at "
        return "  \(Output.field(name))  \(at)\(Output.field(mountPoint)) (\(fileSystemType)), \(items.map { String($0) } ?? "no") items; index \(index)\n"
    }
}
