import Foundation
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// `volume.json` in a volume's `.fsindex/` folder (issue 29): what the portable index copy beside
/// it is of, and where it was written, so that another machine (or this one, after its own index
/// of the volume was deleted) can seed its index from the copy and move its items to the mount
/// point of now.
///
/// For example:
/// ```json
/// {"format": 1, "uuid": "0b6c…", "label": "DISK", "mountPoint": "/run/media/ada/DISK", "written": "2026-11-28T01:30:00Z"}
/// ```
@MemberwiseInit
package struct VolumeCopyRecord: Sendable, Hashable, Codable {
    /// The layout of `.fsindex/`; a copy of another format is not read.
    package static let currentFormat = 1
    /// The folder on the volume (as Spotlight's `.Spotlight-V100/`).
    package static let folderName = ".fsindex"
    /// The index copy's file in it.
    package static let databaseName = "index.sqlite"
    package static let recordName = "volume.json"

    package var format: Int = Self.currentFormat
    package var uuid: String?
    package var label: String?
    /// The mount point the copy's items' paths start with.
    package var mountPoint: String
    package var written: Date

    /// `written` in ISO 8601, UTC.
    package var writtenText: String { ISO8601DateFormatter().string(from: written) }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// Why these bytes are not a record fsindex can use, or the record: JSON of the current
    /// format, with an absolute mount point.
    package static func decode(_ bytes: [UInt8]) -> Result<VolumeCopyRecord, VolumeCopyRefusal> {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let r = try? decoder.decode(VolumeCopyRecord.self, from: Data(bytes)) else { return .failure(.init("\(recordName) is not a valid record")) }
        guard r.format == currentFormat else { return .failure(.init("\(recordName) has format \(r.format), not \(currentFormat)")) }
        guard r.mountPoint.hasPrefix("/"), !r.mountPoint.utf8.contains(0) else { return .failure(.init("\(recordName) names no absolute mount point")) }
        return .success(r)
    }

    /// Why a file or folder of `.fsindex/` may not be trusted, or nil: it must be what it says
    /// (a folder or a regular file, never a symbolic link), owned by this user, and writable by
    /// no one else. Another user's copy, or one anyone could have replaced, is hostile.
    package static func ownershipProblem(_ st: stat, name: String, directory: Bool) -> String? {
        let type = st.st_mode & S_IFMT
        if directory ? type != S_IFDIR : type != S_IFREG { return "\(name) is not a \(directory ? "folder" : "regular file")" }
        if st.st_uid != geteuid() { return "\(name) is owned by uid \(st.st_uid), not \(geteuid())" }
        if st.st_mode & 0o022 != 0 { return "\(name) is writable by its group or others (mode \(String(st.st_mode & 0o7777, radix: 8)))" }
        return nil
    }

    /// The record of the copy on the volume mounted at `mountPoint`, if there is a trustworthy
    /// one (`fsindex status`).
    package static func read(mountPoint: String) -> VolumeCopyRecord? {
        let folder = FilePath(mountPoint).appending(folderName)
        guard case .success(let st) = SystemCall.lstat(folder.bytes), ownershipProblem(st, name: folderName, directory: true) == nil,
              case .success(let rst) = SystemCall.lstat(folder.appending(recordName).bytes), ownershipProblem(rst, name: recordName, directory: false) == nil,
              case .success(let bytes) = SystemCall.readFile(folder.appending(recordName), limit: 1 << 16),
              case .success(let record) = decode(bytes) else { return nil }
        return record
    }
}

/// Why a volume's index copy is not used or not written: one sentence for the log.
package struct VolumeCopyRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
