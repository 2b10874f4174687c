import Attributes
import CGdkPixbuf
import ExtractionModel
import SystemCalls
import SystemPackage
import Glibc

/// What a thumbnailer gives: a PNG, or why not.
package enum ThumbnailOutcome: Equatable, Sendable {
    case png([UInt8])
    /// No thumbnailer for the file's type; its MIME type.
    case unsupported(mimeType: String)
    case failed(String)
}

/// Makes the freedesktop thumbnail of one file, in the worker: the type is detected as for
/// extraction (`ContentTyping`), then a PDF's first page is rendered by poppler with cairo, and
/// an image is decoded by gdk-pixbuf, the loaders GNOME's own thumbnailers use (PNG, JPEG, GIF,
/// TIFF, BMP, ICO, TGA, PNM, XPM, SVG through librsvg where installed: whatever
/// `gdk_pixbuf_get_formats` lists). The PNG is written by gdk-pixbuf with the spec's text
/// chunks (`tEXt::Thumb::URI`, `Thumb::MTime`, `Thumb::Size`, `Thumb::Mimetype`, `Software`)
/// and fits in a square of the size asked for; a smaller image keeps its size.
///
/// A key design decision: the worker writes nothing. It answers the PNG's bytes, and the parent
/// checks them (`PNGFile.describes`) and writes them into the shared cache.
///
/// gdk-pixbuf loads its loader modules (GIF, TIFF, ...) when it first meets their format, from
/// `/usr/lib/<arch>/gdk-pixbuf-2.0/`: inside the sandbox, which lets the worker read and map
/// what is under `/usr` (`Sandbox.readablePaths`), so nothing is loaded ahead for workers that
/// only extract.
///
/// Cost: `fsindex thumbnail` of a 4000×3000 PNG took 0.22 s (a debug build, the worker's
/// start included, 68 MB at most: PNG is decoded whole, then scaled); a JPEG is decoded
/// already shrunk (libjpeg's 1/2, 1/4, 1/8 scaling), and a PDF page is rendered straight at
/// the thumbnail's size. Answering from the cache took 0.03 s, all of it the process's start.
package enum Thumbnailer {
    /// The most bytes an image file may have (a larger one is refused, not decoded).
    static let maximumImageBytes: Int64 = 256 << 20

    /// Silences gdk-pixbuf's log domain, once per process.
    static let quiet: Void = { cpixbuf_silence_log() }()

    /// The thumbnail of the regular file open at `descriptor` (not closed here).
    static func make(descriptor: Int32, detection: TypeDetection, pixels: Int, fileSize: Int64,
                     texts: [(String, String)]) -> ThumbnailOutcome {
        _ = quiet
        let tree = detection.contentTypeTree
        let pixbuf: OpaquePointer
        do throws(ThumbnailFailure) {
            if tree.contains(.pdf) {
                pixbuf = try PDFPage.render(descriptor: descriptor, pixels: pixels)
            } else if tree.contains(.image), cpixbuf_supports_mime(detection.mimeType) != 0 {
                guard fileSize <= maximumImageBytes else {
                    return .failed("the image is \(fileSize) bytes; thumbnails are made of images up to \(maximumImageBytes >> 20) MiB")
                }
                pixbuf = try load(descriptor: descriptor, pixels: pixels)
            } else {
                return .unsupported(mimeType: detection.mimeType)
            }
        } catch {
            return .failed(error.reason)
        }
        defer { g_object_unref(gpointer(pixbuf)) }
        return encode(pixbuf, texts: texts + [("Thumb::Mimetype", detection.mimeType)])
    }

    /// Decodes the image, shrunk while loading to fit `pixels`, turned as its EXIF orientation
    /// says, and shrunk again if its loader could not (an animation's first frame).
    static func load(descriptor: Int32, pixels: Int) throws(ThumbnailFailure) -> OpaquePointer {
        let loader = cpixbuf_loader_fitting(gint(pixels))!
        defer { g_object_unref(gpointer(loader)) }
        var error: UnsafeMutablePointer<GError>?
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var offset: Int64 = 0
        var ok: gboolean = 1
        while ok != 0 {
            let n: Int
            switch chunk.withUnsafeMutableBytes({ SystemCall.pread(descriptor, into: $0, at: offset) }) {
            case .success(let got): n = got
            case .failure(let e):
                _ = gdk_pixbuf_loader_close(loader, nil)
                throw ThumbnailFailure("cannot read the file: \(String(cString: strerror(e.rawValue)))")
            }
            if n == 0 { break }
            offset += Int64(n)
            ok = chunk.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize(n), &error) }
        }
        if ok != 0 { ok = gdk_pixbuf_loader_close(loader, &error) } else { _ = gdk_pixbuf_loader_close(loader, nil) }
        guard ok != 0, let loaded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw ThumbnailFailure(take(error) ?? "gdk-pixbuf could not decode the image")
        }
        if let e = error { g_error_free(e) }
        // The loader's pixbuf belongs to it: take a reference of our own (the orientation
        // gives a new one, or the same with a reference added).
        guard let oriented = gdk_pixbuf_apply_embedded_orientation(loaded) else {
            throw ThumbnailFailure("gdk-pixbuf could not turn the image")
        }
        let width = Int(gdk_pixbuf_get_width(oriented)), height = Int(gdk_pixbuf_get_height(oriented))
        guard width > pixels || height > pixels else { return oriented }
        let scale = Double(pixels) / Double(max(width, height))
        let scaled = gdk_pixbuf_scale_simple(oriented, gint(max(1, (Double(width) * scale).rounded())),
                                             gint(max(1, (Double(height) * scale).rounded())), GDK_INTERP_BILINEAR)
        g_object_unref(gpointer(oriented))
        guard let scaled else { throw ThumbnailFailure("gdk-pixbuf could not scale the image") }
        return scaled
    }

    /// The PNG of `pixbuf` with `texts` as `tEXt` chunks.
    static func encode(_ pixbuf: OpaquePointer, texts: [(String, String)]) -> ThumbnailOutcome {
        var keys: [UnsafeMutablePointer<CChar>?] = texts.map { strdup("tEXt::" + $0.0) } + [nil]
        var values: [UnsafeMutablePointer<CChar>?] = texts.map { strdup($0.1) } + [nil]
        defer { (keys + values).forEach { free($0) } }
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        let saved = keys.withUnsafeMutableBufferPointer { k in
            values.withUnsafeMutableBufferPointer { v in
                gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "png", k.baseAddress, v.baseAddress, &error)
            }
        }
        guard saved != 0, let buffer else { return .failed(take(error) ?? "gdk-pixbuf could not write the PNG") }
        defer { g_free(buffer) }
        return .png(Array(UnsafeRawBufferPointer(start: buffer, count: Int(size))))
    }

    /// A GError's message, and the error freed.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return cpixbuf_error_message(error).map { String(cString: $0) }
    }
}

/// Why a file's thumbnail could not be made.
struct ThumbnailFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
