import CPoppler
import Glibc

/// A PDF opened from the worker's descriptor and its pages drawn on white with cairo: the
/// thumbnail's first page (`PDFPage`) and OCR's pages without a text layer (`ScannedPages`)
/// both start here, so the two cannot drift apart in how they open, size or draw a page.
enum PDFRendering {
    /// Why poppler or cairo could not do it, in words a user can act on.
    struct Failure: Error {
        var reason: String
        /// The PDF needs a password (the thumbnailer says so in its own words).
        var isEncrypted = false
    }

    /// Opens the PDF at `descriptor` (duplicated: poppler owns its copy, even on failure) and
    /// calls `body` with the document, released when `body` returns.
    static func withDocument<R>(descriptor: Int32, _ body: (OpaquePointer) throws(Failure) -> R) throws(Failure) -> R {
        _ = PDFExtractor.quiet
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw Failure(reason: "cannot read the file: \(String(cString: strerror(errno)))") }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_fd(fd, nil, &error) else {   // owns fd, even on failure
            let encrypted = cpoppler_is_encrypted_error(error) != 0
            let message = cpoppler_error_message(error).map { String(cString: $0) } ?? "poppler could not open the file"
            if let error { g_error_free(error) }
            throw Failure(reason: message, isEncrypted: encrypted)
        }
        if let error { g_error_free(error) }
        defer { g_object_unref(gpointer(document)) }
        return try body(document)
    }

    /// The size of `page` in points, if it has a usable one.
    static func size(of page: OpaquePointer) -> (width: Double, height: Double)? {
        var width = 0.0, height = 0.0
        poppler_page_get_size(page, &width, &height)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// Draws `page` on white at `scale` pixels a point, and calls `body` with cairo's pixels
    /// (ARGB32: one native-endian 32-bit word a pixel, B, G, R, A in memory on little-endian
    /// machines; opaque, since the page is painted white first), the width, height and stride.
    static func withRenderedPage<R>(_ page: OpaquePointer, scale: Double,
                                    _ body: (UnsafeMutablePointer<UInt8>, _ width: Int, _ height: Int, _ stride: Int) throws(Failure) -> R) throws(Failure) -> R {
        guard let (width, height) = size(of: page) else { throw Failure(reason: "the page has no size") }
        let w = max(1, Int((width * scale).rounded())), h = max(1, Int((height * scale).rounded()))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else {
            throw Failure(reason: "cairo could not make a \(w)×\(h) surface")
        }
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_scale(cr, scale, scale)
        poppler_page_render(page, cr)
        let status = cairo_status(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        guard status == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            throw Failure(reason: "cairo could not render the page")
        }
        return try body(data, w, h, Int(cairo_image_surface_get_stride(surface)))
    }
}
