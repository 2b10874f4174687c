import Configuration
import Foundation
import Indexing
import SystemCalls
import SystemPackage
import Glibc

/// A volume's portable index copy (issue 29): its index, written on the volume in `.fsindex/`
/// (as Spotlight's `.Spotlight-V100/`) with a `volume.json`, so that the index travels with the
/// drive, and read back when a volume arrives that has no index here yet.
///
/// A key design decision: the copy is never the index fsindexd works in. The working index stays
/// in the user's data folder (`VolumeCatalogue`); the copy is written whole (`VACUUM INTO` a
/// temporary file in `.fsindex/`, fsync, rename) after the volume's reconcile and after its
/// writes settle, and no handle on it stays open: the volume is busy only while a copy is
/// written, so `umount` succeeds. A copy read back is hostile input like any file on a disk:
/// it must be this user's and writable by no one else, it is copied here first and checked
/// there (read-only, defensive SQLite, `quick_check`, a known schema), and anything wrong means
/// it is ignored and the volume is indexed from scratch.
enum VolumePortableCopy {
    /// Writes `store` to the volume's `.fsindex/`. `device` is the mount's `MAJ:MIN` when the
    /// volume was started: a copy is written only onto that file system (never onto the folder
    /// a volume unmounted a moment ago left behind).
    static func write(_ store: IndexStore, volume: Volume, device: String?, now: Date = Date()) throws(VolumeCopyRefusal) {
        if volume.readOnly { throw .init("the volume is mounted read-only") }
        let folder = FilePath(volume.mountPoint).appending(VolumeCopyRecord.folderName)
        switch SystemCall.lstat(folder.bytes) {
        case .success(let st):
            if let problem = VolumeCopyRecord.ownershipProblem(st, name: folder.string, directory: true) { throw .init(problem) }
        case .failure(.noSuchFileOrDirectory):
            if case .failure(let e) = SystemCall.mkdir(folder.bytes, 0o700) { throw refusal(e, doing: "cannot make \(folder.string)") }
            _ = SystemCall.chmod(folder.bytes, 0o700)
        case .failure(let e):
            throw refusal(e, doing: "cannot read \(folder.string)")
        }
        if let device {
            guard case .success(let st) = SystemCall.lstat(folder.bytes), Self.device(st.st_dev) == device else {
                throw .init("\(folder.string) is not on the volume's file system (was it unmounted?)")
            }
        }
        let temporary = folder.appending("\(VolumeCopyRecord.databaseName).tmp-\(getpid())")
        _ = SystemCall.unlink(temporary.bytes)
        do throws(IndexError) {
            try store.copy(into: temporary)
        } catch {
            _ = SystemCall.unlink(temporary.bytes)
            if case .diskFull = error { throw .init("the volume is full") }
            throw .init("the copy failed: \(error)")
        }
        guard rename(temporary.string, folder.appending(VolumeCopyRecord.databaseName).string) == 0 else {
            let e = Errno(rawValue: errno)
            _ = SystemCall.unlink(temporary.bytes)
            throw refusal(e, doing: "cannot rename the copy into place")
        }
        let record = VolumeCopyRecord(uuid: volume.uuid, label: volume.label, mountPoint: volume.mountPoint, written: now)
        guard let data = try? record.encoded() else { throw .init("cannot encode \(VolumeCopyRecord.recordName)") }
        let recordTemporary = folder.appending("\(VolumeCopyRecord.recordName).tmp-\(getpid())")
        _ = SystemCall.unlink(recordTemporary.bytes)
        do {
            let fd = try FileDescriptor.open(recordTemporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
            defer { try? fd.close() }
            try fd.writeAll(Array(data))
            guard fsync(fd.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            _ = SystemCall.unlink(recordTemporary.bytes)
            let e = (error as? Errno) ?? .ioError
            throw refusal(e, doing: "cannot write \(VolumeCopyRecord.recordName)")
        }
        guard rename(recordTemporary.string, folder.appending(VolumeCopyRecord.recordName).string) == 0 else {
            let e = Errno(rawValue: errno)
            _ = SystemCall.unlink(recordTemporary.bytes)
            throw refusal(e, doing: "cannot rename \(VolumeCopyRecord.recordName) into place")
        }
        // The renames themselves are durable once the folder is synced.
        if let fd = try? FileDescriptor.open(folder, .readOnly, options: [.directory, .closeOnExec]) {
            _ = fsync(fd.rawValue)
            try? fd.close()
        }
    }

    /// Seeds the index at `location` (which has no database yet) from the copy on the volume:
    /// nil when the volume carries none; the copy's record when the index is now the copy; why
    /// not, when the copy is refused (nothing is left at `location` then).
    static func seed(_ volume: Volume, into location: IndexLocation) -> Result<VolumeCopyRecord, VolumeCopyRefusal>? {
        let folder = FilePath(volume.mountPoint).appending(VolumeCopyRecord.folderName)
        let folderStat: stat
        switch SystemCall.lstat(folder.bytes) {
        case .success(let st): folderStat = st
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let e): return .failure(.init("cannot read \(folder.string): \(e)"))
        }
        if let problem = VolumeCopyRecord.ownershipProblem(folderStat, name: folder.string, directory: true) { return .failure(.init(problem)) }
        let recordPath = folder.appending(VolumeCopyRecord.recordName)
        guard case .success(let rst) = SystemCall.lstat(recordPath.bytes) else { return .failure(.init("\(recordPath.string) is missing")) }
        if let problem = VolumeCopyRecord.ownershipProblem(rst, name: recordPath.string, directory: false) { return .failure(.init(problem)) }
        guard case .success(let recordBytes) = SystemCall.readFile(recordPath, limit: 1 << 16) else { return .failure(.init("cannot read \(recordPath.string)")) }
        let record: VolumeCopyRecord
        switch VolumeCopyRecord.decode(recordBytes) {
        case .success(let r): record = r
        case .failure(let why): return .failure(why)
        }
        guard record.uuid?.lowercased() == volume.uuid else {
            return .failure(.init("the copy is of volume \(record.uuid ?? "without UUID"), not \(volume.uuid ?? "this one (no UUID)")"))
        }
        let source = folder.appending(VolumeCopyRecord.databaseName)
        let temporary = location.directory.appending("seed.sqlite.tmp")
        _ = SystemCall.unlink(temporary.bytes)
        if let why = copyFile(source, to: temporary) {
            _ = SystemCall.unlink(temporary.bytes)
            return .failure(why)
        }
        if let why = IndexStore.reasonToRefuseCopy(at: temporary) {
            _ = SystemCall.unlink(temporary.bytes)
            return .failure(.init(why))
        }
        guard rename(temporary.string, location.databasePath.string) == 0 else {
            let e = Errno(rawValue: errno)
            _ = SystemCall.unlink(temporary.bytes)
            return .failure(.init("cannot move the copy into \(location.directory.string): \(e)"))
        }
        return .success(record)
    }

    /// Copies the copy's bytes here, checking the file opened (not a link, this user's, writable
    /// by no one else) rather than its name; the volume's file is closed before this returns.
    private static func copyFile(_ source: FilePath, to target: FilePath) -> VolumeCopyRefusal? {
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(source, .readOnly, options: [.noFollow, .closeOnExec, .nonBlocking])
        } catch {
            return .init("cannot open \(source.string): \(error)")
        }
        defer { try? input.close() }
        var st = stat()
        guard fstat(input.rawValue, &st) == 0 else { return .init("cannot read \(source.string)") }
        if let problem = VolumeCopyRecord.ownershipProblem(st, name: source.string, directory: false) { return .init(problem) }
        do {
            let output = try FileDescriptor.open(target, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
                                                 permissions: [.ownerReadWrite])
            defer { try? output.close() }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
                if n == 0 { break }
                try output.writeAll(buffer[..<n])
            }
            guard fsync(output.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            return .init("cannot copy \(source.string): \(error)")
        }
        return nil
    }

    private static func refusal(_ e: Errno, doing what: String) -> VolumeCopyRefusal {
        switch e {
        case .readOnlyFileSystem: return .init("the volume is read-only (\(what))")
        case .noSpace: return .init("the volume is full (\(what))")
        case .permissionDenied, .notPermitted: return .init("the volume is not writable by uid \(geteuid()) (\(what))")
        default: return .init("\(what): \(e)")
        }
    }

    /// `st_dev` as `/proc/self/mountinfo`'s `MAJ:MIN` (glibc's major() and minor()).
    static func device(_ dev: dev_t) -> String {
        let d = UInt64(dev)
        let major = ((d >> 8) & 0xfff) | ((d >> 32) & ~UInt64(0xfff))
        let minor = (d & 0xff) | ((d >> 12) & ~UInt64(0xff))
        return "\(major):\(minor)"
    }
}
