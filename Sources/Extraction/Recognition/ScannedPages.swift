import CGdkPixbuf
import CPoppler
import Glibc

/// The pages of a PDF as grayscale pictures for OCR: poppler renders each with cairo on white
/// at `ppi` (300: what scanners write and what Tesseract reads best), the largest side capped
/// at `maximumSide` pixels so that a poster-sized page cannot take gigabytes.
enum ScannedPages {
    static let maximumSide = 5000

    /// Opens the PDF at `descriptor` (duplicated: poppler owns its copy) and calls `body` with
    /// each of the first `limit` pages as a picture, and its resolution; returns the page count.
    static func each(descriptor: Int32, ppi: Int, limit: Int,
                     _ body: (GrayImage, Int) -> Void) throws(RecognitionFailure) -> Int {
        do throws(PDFRendering.Failure) {
            return try PDFRendering.withDocument(descriptor: descriptor) { document throws(PDFRendering.Failure) in
                let pages = Int(poppler_document_get_n_pages(document))
                for index in 0..<min(pages, limit) {
                    guard let page = poppler_document_get_page(document, Int32(index)) else { continue }
                    defer { g_object_unref(gpointer(page)) }
                    guard let (width, height) = PDFRendering.size(of: page) else { continue }
                    let scale = min(Double(ppi) / 72, Double(maximumSide) / max(width, height))
                    // A page cairo cannot draw is left out; the others are still read.
                    let image = try? PDFRendering.withRenderedPage(page, scale: scale) { data, w, h, stride in
                        GrayImage(cairo: data, width: w, height: h, stride: stride)
                    }
                    if let image { body(image, Int((scale * 72).rounded())) }
                }
                return pages
            }
        } catch {
            throw RecognitionFailure(error.reason)
        }
    }
}

/// Why a file could not be read for OCR.
struct RecognitionFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
