import SystemCalls
import SystemPackage

/// Donated items' pictures written out as files, for the programs that want a path (the
/// desktop's search providers hand an icon file to the Shell; `fsindex thumbnail DOMAIN:ID`
/// prints it): `$XDG_CACHE_HOME/fsindex/thumbnails/` (folder 0700, files 0600), each named by
/// the MD5 of the item's identifier, `.png` or `.jpg` as its bytes say.
///
/// The index keeps the bytes (`IndexStore.donatedThumbnail`); this folder is only a cache of
/// them, rewritten when its copy differs, so a donation that changed the picture shows the new one.
///
/// For example:
/// ```swift
/// if let data = try index.donatedThumbnail(ItemIdentifier("notes:n-42")) {
///     let file = try DonatedThumbnails.user().write(data, for: Array("notes:n-42".utf8))
/// }
/// ```
package struct DonatedThumbnails: Sendable, Hashable {
    package var folder: FilePath

    package init(folder: FilePath) { self.folder = folder }

    /// `$XDG_CACHE_HOME/fsindex/thumbnails` (else `~/.cache/fsindex/thumbnails`).
    package static func user(environment: [String: String] = ThumbnailCache.environment()) -> DonatedThumbnails {
        DonatedThumbnails(folder: FilePath(ThumbnailCache.cacheHome(environment: environment) + "/fsindex/thumbnails"))
    }

    /// Where the picture of the item `identifier` (`DOMAIN:ID`'s bytes) goes.
    package func path(for identifier: [UInt8], data: [UInt8]) -> FilePath {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        return folder.appending(MD5.hex(identifier) + (data.starts(with: png) ? ".png" : ".jpg"))
    }

    /// Writes `data` for the item (unless the same bytes are there already) and returns its path.
    package func write(_ data: [UInt8], for identifier: [UInt8]) throws(ThumbnailError) -> FilePath {
        let target = path(for: identifier, data: data)
        if case .success(let held) = SystemCall.readFile(target, limit: data.count), held == data { return target }
        try ThumbnailCache(root: folder).write(data, to: target)
        return target
    }
}
