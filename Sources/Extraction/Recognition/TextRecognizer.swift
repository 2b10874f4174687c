import CTesseract
import Glibc

/// One Tesseract recognizer (`TessBaseAPI`), for one thread: Tesseract's API object is not
/// thread-safe, so each `ExtractionContext` (one per worker thread) keeps its own, made on the
/// first picture to read and kept for the worker's life (loading the English model takes about
/// 0.1 s; recognising a page, a second or more).
///
/// Tesseract is loaded with dlopen on first use (see Sources/CLibraries/CTesseract): a worker
/// that only extracts never maps it. Its OpenMP threads are held to one by the parent
/// (`OMP_THREAD_LIMIT=1` in the OCR worker's environment, read by libgomp as it loads): OCR runs
/// at the lowest priority on one core, beside everything else.
final class TextRecognizer {
    let dataPath: String
    let languages: String
    private let api: UnsafeMutableRawPointer

    /// Why a recognizer could not be made, in words for `fsindex show` and the log.
    struct Failure: Error { var reason: String }

    init(dataPath: String, languages: String) throws(Failure) {
        var message = [CChar](repeating: 0, count: 512)
        guard ctess_load(&message, message.count) == 1 else {
            throw Failure(reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let api = ctess_create(dataPath, languages) else {
            throw Failure(reason: "Tesseract could not load the languages \"\(languages)\" from \(dataPath); install their packs (tesseract-ocr-LANG) or change `ocr_languages` in the [extraction] section")
        }
        self.api = api
        self.dataPath = dataPath
        self.languages = languages
    }

    deinit { ctess_delete(api) }

    /// The text of `image` and the mean word confidence (0 to 100). `ppi`: the resolution
    /// when known (a rendered PDF page), 0 to let Tesseract estimate it.
    func recognize(_ image: GrayImage, ppi: Int = 0) -> (text: String, confidence: Int) {
        var confidence: Int32 = 0
        let text = image.pixels.withUnsafeBufferPointer { p in
            ctess_recognize(api, p.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(ppi), &confidence)
        }
        guard let text else { return ("", 0) }
        defer { free(text) }
        return (String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)), as: UTF8.self), Int(confidence))
    }
}
