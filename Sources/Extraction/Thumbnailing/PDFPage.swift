import CGdkPixbuf
import CPoppler
#if canImport(Glibc)
import Glibc
#endif

/// A PDF's first page as a picture: poppler renders it with cairo on white, at the size that
/// fits the thumbnail's square (poppler draws vectors, so rendering small costs little), and
/// the pixels are copied into a gdk-pixbuf for the PNG writer.
enum PDFPage {
    static func render(descriptor: Int32, pixels: Int) throws(ThumbnailFailure) -> OpaquePointer {
        _ = PDFExtractor.quiet
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw ThumbnailFailure("cannot read the file: \(String(cString: strerror(errno)))") }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_fd(fd, nil, &error) else {   // owns fd, even on failure
            let encrypted = cpoppler_is_encrypted_error(error) != 0
            let message = cpoppler_error_message(error).map { String(cString: $0) } ?? "poppler could not open the file"
            if let error { g_error_free(error) }
            throw ThumbnailFailure(encrypted ? "the PDF is encrypted; it needs a password to show" : message)
        }
        if let error { g_error_free(error) }
        defer { g_object_unref(gpointer(document)) }
        guard let page = poppler_document_get_page(document, 0) else { throw ThumbnailFailure("the PDF has no pages") }
        defer { g_object_unref(gpointer(page)) }
        var width = 0.0, height = 0.0
        poppler_page_get_size(page, &width, &height)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { throw ThumbnailFailure("the PDF's first page has no size") }
        let scale = Double(pixels) / max(width, height)
        let w = max(1, Int((width * scale).rounded())), h = max(1, Int((height * scale).rounded()))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else {
            throw ThumbnailFailure("cairo could not make a \(w)×\(h) surface")
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
            throw ThumbnailFailure("cairo could not render the page")
        }
        // cairo's ARGB32 is a native-endian 32-bit word (B, G, R, A in memory on little-endian
        // machines), premultiplied; the page is opaque (painted white first), so the colours
        // are the plain ones.
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(w), gint(h)) else {
            throw ThumbnailFailure("gdk-pixbuf could not make a \(w)×\(h) image")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let out = gdk_pixbuf_get_pixels(pixbuf)!
        for y in 0..<h {
            let src = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            let dst = out + y * rowstride
            for x in 0..<w {
                let p = src[x]
                dst[3 * x] = UInt8((p >> 16) & 0xFF)
                dst[3 * x + 1] = UInt8((p >> 8) & 0xFF)
                dst[3 * x + 2] = UInt8(p & 0xFF)
            }
        }
        return pixbuf
    }
}
