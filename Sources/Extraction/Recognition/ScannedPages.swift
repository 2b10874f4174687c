import CGdkPixbuf
import CPoppler
#if canImport(Glibc)
import Glibc
#endif

/// The pages of a PDF as grayscale pictures for OCR: poppler renders each with cairo on white
/// at `ppi` (300: what scanners write and what Tesseract reads best), the largest side capped
/// at `maximumSide` pixels so that a poster-sized page cannot take gigabytes.
enum ScannedPages {
    static let maximumSide = 5000

    /// Opens the PDF at `descriptor` (duplicated: poppler owns its copy) and calls `body` with
    /// each of the first `limit` pages as a picture, and its resolution; returns the page count.
    static func each(descriptor: Int32, ppi: Int, limit: Int,
                     _ body: (GrayImage, Int) -> Void) throws(RecognitionFailure) -> Int {
        _ = PDFExtractor.quiet
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw RecognitionFailure("cannot read the file: \(String(cString: strerror(errno)))") }
        var error: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_fd(fd, nil, &error) else {   // owns fd, even on failure
            let message = cpoppler_error_message(error).map { String(cString: $0) } ?? "poppler could not open the file"
            if let error { g_error_free(error) }
            throw RecognitionFailure(message)
        }
        if let error { g_error_free(error) }
        defer { g_object_unref(gpointer(document)) }
        let pages = Int(poppler_document_get_n_pages(document))
        for index in 0..<min(pages, limit) {
            guard let page = poppler_document_get_page(document, Int32(index)) else { continue }
            defer { g_object_unref(gpointer(page)) }
            var width = 0.0, height = 0.0
            poppler_page_get_size(page, &width, &height)
            guard width.isFinite, height.isFinite, width > 0, height > 0 else { continue }
            var scale = Double(ppi) / 72
            scale = min(scale, Double(maximumSide) / max(width, height))
            let w = max(1, Int((width * scale).rounded())), h = max(1, Int((height * scale).rounded()))
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { continue }
            defer { cairo_surface_destroy(surface) }
            let cr = cairo_create(surface)
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            cairo_scale(cr, scale, scale)
            poppler_page_render(page, cr)
            let status = cairo_status(cr)
            cairo_destroy(cr)
            cairo_surface_flush(surface)
            guard status == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else { continue }
            let image = GrayImage(cairo: data, width: w, height: h, stride: Int(cairo_image_surface_get_stride(surface)))
            body(image, Int((scale * 72).rounded()))
        }
        return pages
    }
}

/// Why a file could not be read for OCR.
struct RecognitionFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
