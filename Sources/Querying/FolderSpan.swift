import MemberwiseInit
/// The paths inside a folder as a range of bytes, which an index on the path answers without a
/// pattern: the folder itself, or `lower <= path < upper` with `lower` the folder and a slash
/// and `upper` the folder and `0`, the byte after `/`. Both backends' `onlyIn` build on it.
@MemberwiseInit
package struct FolderSpan: Sendable, Equatable {
    package var folder: [UInt8]
    package var lower: [UInt8]
    package var upper: [UInt8]

    /// One span per folder (trailing slashes dropped), or nil when one of them is `/`, the
    /// whole file system, which needs no condition at all.
    package static func spans(_ folders: [[UInt8]]) -> [FolderSpan]? {
        var out: [FolderSpan] = []
        for f in folders {
            var dir = f
            while dir.count > 1 && dir.last == UInt8(ascii: "/") { dir.removeLast() }
            if dir == [UInt8(ascii: "/")] { return nil }
            out.append(FolderSpan(folder: dir, lower: dir + [UInt8(ascii: "/")], upper: dir + [UInt8(ascii: "0")]))
        }
        return out
    }
}
