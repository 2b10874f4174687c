import SystemPackage

/// Why no thumbnail could be given: each case says what to do about it.
package enum ThumbnailError: Error, CustomStringConvertible, Equatable {
    /// The file is not there or cannot be read.
    case unreadable(path: String, Errno)
    /// Not a regular file (a folder, a device, ...).
    case notAFile(path: String)
    /// No thumbnailer for this type (FSIndex makes them for images and PDFs).
    case unsupportedType(path: String, mimeType: String)
    /// Making it failed (a broken file, a worker that failed); recorded in the cache's
    /// failure folder, so it is not tried again until the file changes.
    case failed(path: String, reason: String)
    /// An earlier attempt failed for this version of the file.
    case failedBefore(path: String, entry: String)
    /// The cache cannot be written.
    case cacheUnwritable(path: String, Errno)
    /// A donated item has no thumbnail, or no such item.
    case noDonatedThumbnail(item: String)

    package var description: String {
        switch self {
        case let .unreadable(path, e):
            "\(path): \(e.description.lowercased())"
        case let .notAFile(path):
            "\(path): not a regular file; thumbnails are made of files"
        case let .unsupportedType(path, mime):
            "\(path): cannot make a thumbnail of this type (\(mime)); FSIndex makes them of images (PNG, JPEG, GIF, TIFF, BMP, ...) and of PDFs"
        case let .failed(path, reason):
            "\(path): cannot make a thumbnail: \(reason)"
        case let .failedBefore(path, entry):
            "\(path): making its thumbnail failed before, and the file has not changed since (see \(entry); delete it to try again)"
        case let .cacheUnwritable(path, e):
            "cannot write the thumbnail cache at \(path): \(e.description.lowercased()); check that folder's owner and permissions"
        case let .noDonatedThumbnail(item):
            "\(item) has no donated thumbnail (no such item, or it was donated without thumbnailData)"
        }
    }
}
