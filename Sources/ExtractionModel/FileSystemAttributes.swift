import Attributes
import Crawling
import FoundationEssentials
import SystemCalls
import SystemPackage
import Glibc

/// The attributes every item has, from its `FileFacts` alone: path, name, size, dates, owner,
/// identity and permissions. It never touches the file's content, so it runs for directories,
/// symlinks, FIFOs and unreadable files too.
///
/// For example, a 12-byte file `notes.txt` owned by `ada` gets `name` `"notes.txt"`, `fileSize`
/// `12`, `ownerName` `"ada"`, `filePermissions` `"0644"` and `fileIdentifier` `"2049:1234567"`.
///
/// Names that are not UTF-8 are shown with U+FFFD in `path` and `name` (display only: the item's
/// identity is the byte path, kept by the index).
///
/// It lives here, apart from the content extractors, because the parent process needs it without
/// linking any parser (the names-first pass, and a file whose worker died); `Extraction` makes it
/// an `Extractor` too.
package struct FileSystemExtractor: Sendable {
    package var name: String { "filesystem" }
    package var version: Int { ExtractionVersions.fileSystem }

    package init() {}

    /// The file-system attributes of `facts`, resolving owner and group through `names`.
    package func attributes(of facts: FileFacts, names: inout UserNameCache) -> AttributeSet {
        var set = AttributeSet()
        set[.path] = .string(facts.path.string)
        let name = facts.path.lastComponent.map { String(decoding: $0.bytes, as: UTF8.self) } ?? facts.path.string
        set[.name] = .string(name)
        set[.displayName] = .string(name)
        set[.fileSize] = .integer(facts.size)
        // Both pairs: a document may replace the content dates with the ones it states (a PDF's
        // CreationDate), while the file system's stay what `modified:` and `--sort` use.
        set[.contentModificationDate] = .date(Self.date(facts.modificationTime))
        set[.fsContentChangeDate] = .date(Self.date(facts.modificationTime))
        if let birth = facts.birthTime {
            set[.contentCreationDate] = .date(Self.date(birth))
            set[.fsCreationDate] = .date(Self.date(birth))
        }
        set[.attributeChangeDate] = .date(Self.date(facts.changeTime))
        // No `lastUsedDate` from the access time: relatime and noatime make it stale, and any
        // backup, `grep` or thumbnailer moves it. The index sets it from recorded uses
        // (`IndexStore.recordUses`).
        set[.ownerName] = .string(names.user(facts.uid))
        set[.groupName] = .string(names.group(facts.gid))
        set[.fileIdentifier] = .string("\(facts.device):\(facts.inode)")
        set[.filePermissions] = .string(Self.octal(facts.permissions))
        return set
    }

    /// The attributes above that can change while the content does not (chmod, chown, a new
    /// access time): what an attributes-only refresh takes from fresh facts. The size and the
    /// content dates are left alone, since a refresh is only made when they did not change
    /// (and a document may have replaced `contentCreationDate` with the date it states).
    package static let metadataKeys: Set<AttributeKey> = [
        .attributeChangeDate, .lastUsedDate, .ownerName, .groupName, .fileIdentifier, .filePermissions,
    ]

    /// A file time as a date, exact for any year (not through a count of nanoseconds, which
    /// wrapped after 2262: issue 22, F12). A time outside the years an attribute can hold
    /// (`AttributeValue.supportedDates`, 0001 to 9999) is clamped to the nearest end of them, so
    /// a file dated year −249 reads as 0001-01-01 and one of year 20000 as 9999-12-31: the order
    /// of files by date stays right, and the date reads back.
    static func date(_ time: FileTime) -> Date {
        let range = AttributeValue.supportedDates
        let date = Date(timeIntervalSince1970: time.secondsSince1970)
        if date < range.lowerBound { return range.lowerBound }
        if date >= range.upperBound { return Date(timeIntervalSince1970: range.upperBound.timeIntervalSince1970 - 0.001) }
        return date
    }

    /// `0o644` → `"0644"`, `0o4755` → `"4755"`.
    package static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// User and group names by id, looked up with `getpwuid_r(3)`/`getgrgid_r(3)` once per id.
///
/// Not thread-safe: each `ExtractionContext` has its own. An id with no entry is shown as the
/// number (`"1001"`), as `ls -l` does.
package struct UserNameCache {
    private var users: [UInt32: String] = [:]
    private var groups: [UInt32: String] = [:]

    package init() {}

    package mutating func user(_ uid: UInt32) -> String {
        if let hit = users[uid] { return hit }
        let name = Self.lookup { buf, size in
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let rc = getpwuid_r(uid_t(uid), &pw, buf, size, &result)
            return (rc, result == nil ? nil : pw.pw_name.map { String(cString: $0) })
        } ?? String(uid)
        users[uid] = name
        return name
    }

    package mutating func group(_ gid: UInt32) -> String {
        if let hit = groups[gid] { return hit }
        let name = Self.lookup { buf, size in
            var gr = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            let rc = getgrgid_r(gid_t(gid), &gr, buf, size, &result)
            return (rc, result == nil ? nil : gr.gr_name.map { String(cString: $0) })
        } ?? String(gid)
        groups[gid] = name
        return name
    }

    /// Calls a `*_r` lookup with a growing buffer until it is large enough.
    private static func lookup(_ body: (UnsafeMutablePointer<CChar>, Int) -> (Int32, String?)) -> String? {
        var size = 1024
        while size <= 1 << 20 {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let (rc, name) = body(buffer, size)
            if rc == ERANGE { size *= 4; continue }
            return rc == 0 ? name : nil
        }
        return nil
    }
}
