import Attributes
import CGdkPixbuf
import ExtractionModel
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// What OCR made of one file (issue 28).
package enum RecognitionOutcome: Equatable, Sendable {
    /// Recognised: the text (possibly empty), the mean word confidence (0 to 100), and the
    /// pages read (1 for a picture).
    case text(String, confidence: Int, pages: Int)
    /// Not recognised, on purpose: why (a photo without text, a picture too small to hold any).
    case skipped(String)
    /// The file or the recognizer failed: why.
    case failed(String)
}

/// What to recognise and how: the parent's `[extraction] ocr_languages` and tessdata folder.
@MemberwiseInit
package struct RecognitionOptions: Sendable, Hashable {
    package var dataPath: String
    package var languages: String
    /// PDF pages read at most (the first ones).
    package var pageLimit: Int
}

extension ExtractionContext {
    /// Pictures whose sides are both at least this long may hold a line of text; smaller ones
    /// (icons, thumbnails, emoji) are skipped.
    package static let recognitionMinimumSide = 48
    package static let recognitionMinimumPixels = 64 * 64 * 4
    /// The largest picture side given to Tesseract; larger pictures are shrunk while they are
    /// decoded (a 6000-pixel scan's text stays readable at 4000, and its memory stays bounded).
    static let recognitionMaximumSide = 4000
    /// The resolution PDF pages are rendered at.
    static let recognitionPPI = 300

    /// Recognises the text of the regular file open at `descriptor` (closed when this returns):
    /// a PDF's first pages, rendered, or a picture that passes `TextLikeness`.
    package func recognize(descriptor: Int32, name: [UInt8], fileSize: Int64,
                          options: RecognitionOptions) -> RecognitionOutcome {
        defer { SystemCall.close(descriptor) }
        let tree: [ContentType]
        switch sniffedType(descriptor: descriptor, name: name, fileSize: fileSize) {
        case .success(let found): tree = found.contentTypeTree
        case .failure(let reason): return .failed(reason.message)
        }
        willRun?("ocr")
        let isPDF = tree.contains(.pdf)
        guard isPDF || (tree.contains(.image) && !tree.contains("public.svg-image")) else {
            return .skipped("not a picture or a PDF")
        }
        // Made (and Tesseract loaded) only once there is something to read.
        let recognizer: TextRecognizer
        do throws(TextRecognizer.Failure) { recognizer = try textRecognizer(options) } catch { return .failed(error.reason) }
        if isPDF {
            var texts: [String] = [], confidences: [Int] = []
            do throws(RecognitionFailure) {
                _ = try ScannedPages.each(descriptor: descriptor, ppi: Self.recognitionPPI, limit: options.pageLimit) { page, ppi in
                    let (text, confidence) = recognizer.recognize(page, ppi: ppi)
                    texts.append(text)
                    confidences.append(confidence)
                }
            } catch {
                return .failed(error.reason)
            }
            let mean = confidences.isEmpty ? 0 : confidences.reduce(0, +) / confidences.count
            return .text(Self.tidy(texts.joined(separator: "\n\u{0C}")), confidence: mean, pages: texts.count)
        }
        guard fileSize <= Thumbnailer.maximumImageBytes else {
            return .skipped("the picture is \(fileSize) bytes; OCR reads pictures up to \(Thumbnailer.maximumImageBytes >> 20) MiB")
        }
        let picture: GrayImage
        do throws(ThumbnailFailure) {
            let pixbuf = try Thumbnailer.load(descriptor: descriptor, pixels: Self.recognitionMaximumSide)
            defer { g_object_unref(gpointer(pixbuf)) }
            picture = GrayImage(pixbuf: pixbuf)
        } catch {
            // Most often a format this gdk-pixbuf has no loader for (WebP, HEIF without their
            // loaders): nothing to read, and nothing to retry until the file changes.
            return .skipped("the picture could not be decoded: \(error.reason)")
        }
        guard min(picture.width, picture.height) >= Self.recognitionMinimumSide,
              picture.width * picture.height >= Self.recognitionMinimumPixels else {
            return .skipped("the picture (\(picture.width)×\(picture.height)) is too small to hold text")
        }
        let likeness = TextLikeness.of(picture)
        guard likeness.looksLikeText else {
            return .skipped("the picture looks like a photo without text (\(Int((likeness.pairedShare * 100).rounded()))% of its edges form strokes)")
        }
        let (text, confidence) = recognizer.recognize(picture)
        return .text(Self.tidy(text), confidence: confidence, pages: 1)
    }

    /// This thread's recognizer for `options`, made on first use (and again when the
    /// languages change).
    func textRecognizer(_ options: RecognitionOptions) throws(TextRecognizer.Failure) -> TextRecognizer {
        if let r = recognizer, r.dataPath == options.dataPath, r.languages == options.languages { return r }
        recognizer = nil
        let made = try TextRecognizer(dataPath: options.dataPath, languages: options.languages)
        recognizer = made
        return made
    }

    /// Tesseract's text without its trailing form feed and blank runs.
    static func tidy(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed == "\u{0C}" { if lines.last?.isEmpty == false { lines.append("") } ; continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
