import CGdkPixbuf
import CPoppler
import Glibc

/// A PDF's first page as a picture: poppler renders it with cairo on white, at the size that
/// fits the thumbnail's square (poppler draws vectors, so rendering small costs little), and
/// the pixels are copied into a gdk-pixbuf for the PNG writer.
enum PDFPage {
    static func render(descriptor: Int32, pixels: Int) throws(ThumbnailFailure) -> OpaquePointer {
        do throws(PDFRendering.Failure) {
            return try PDFRendering.withDocument(descriptor: descriptor) { document throws(PDFRendering.Failure) in
                guard let page = poppler_document_get_page(document, 0) else { throw PDFRendering.Failure(reason: "the PDF has no pages") }
                defer { g_object_unref(gpointer(page)) }
                guard let (width, height) = PDFRendering.size(of: page) else { throw PDFRendering.Failure(reason: "the PDF's first page has no size") }
                return try PDFRendering.withRenderedPage(page, scale: Double(pixels) / max(width, height)) { data, w, h, stride throws(PDFRendering.Failure) in
                    guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(w), gint(h)) else {
                        throw PDFRendering.Failure(reason: "gdk-pixbuf could not make a \(w)×\(h) image")
                    }
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
        } catch {
            throw ThumbnailFailure(error.isEncrypted ? "the PDF is encrypted; it needs a password to show" : error.reason)
        }
    }
}
