import Attributes
@testable import Extraction
import Foundation
import Testing
import TestSupport

/// What the OCR tests need: ImageMagick and Tesseract's English data.
enum RecognitionTools {
    static let data = "/usr/share/tesseract-ocr/5/tessdata"
    static let convert = ["/usr/bin/convert", "/usr/local/bin/convert"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let skipReason: String? = {
        if convert == nil { return "needs ImageMagick (apt-get install imagemagick)" }
        if !FileManager.default.fileExists(atPath: data + "/eng.traineddata") { return "needs Tesseract's English data (apt-get install tesseract-ocr-eng)" }
        return nil
    }()
}

/// OCR in the extraction library (issue 28), in this process: the cheap test on generated
/// scans and screenshots against photos, and Tesseract on them. The sandboxed worker, the pass
/// and the tools are tested in CommandTests (OCRCLITests).
@Suite("OCR (recognition)", .blocking, .enabled(if: RecognitionTools.skipReason == nil, Comment(rawValue: RecognitionTools.skipReason ?? "")))
struct RecognitionTests {
    static let data = RecognitionTools.data
    static let convert = RecognitionTools.convert

    /// Draws a picture with ImageMagick into `tree`, and returns its path.
    func draw(_ tree: TemporaryTree, _ name: String, _ args: [String]) throws -> String {
        let path = tree.path(name).string
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.convert!)
        p.arguments = args + [path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "convert \(args)")
        return path
    }

    func recognize(_ path: String) throws -> RecognitionOutcome {
        let context = try ExtractionContext()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return context.recognize(descriptor: fd, name: Array((path as NSString).lastPathComponent.utf8), fileSize: size,
                                 options: RecognitionOptions(dataPath: Self.data, languages: "eng", pageLimit: 5))
    }

    static let scanArgs = ["-size", "1600x900", "xc:#f3efe6", "-font", "DejaVu-Serif", "-pointsize", "34", "-fill", "#111111",
                           "-annotate", "+90+140", "Invoice number 4471 for the quarterly",
                           "-annotate", "+90+200", "Reference: harpsichord voucher",
                           "-rotate", "1.2", "-attenuate", "0.4", "+noise", "Gaussian", "-colorspace", "gray"]
    static let screenArgs = ["-size", "1280x800", "xc:#ececec", "-fill", "#3465a4", "-draw", "rectangle 0,0 1280,60",
                             "-fill", "#ffffff", "-draw", "rectangle 40,100 620,700", "-fill", "#222222", "-font", "DejaVu-Sans",
                             "-pointsize", "22", "-annotate", "+60+150", "Wireless connection marmalade",
                             "-fill", "#73d216", "-draw", "roundrectangle 700,120 1000,180 10,10", "-fill", "white",
                             "-annotate", "+740+160", "Apply changes"]
    /// A window that is mostly an empty panel in a dark frame: two lines of text, and the
    /// panel's borders down every row, which read as photo edges until layout lines were left
    /// out of the cheap test (0.59 before, 0.93 after).
    static let panelArgs = ["-size", "1600x1000", "xc:#2b2b2b", "-fill", "#3c6ea8", "-draw", "rectangle 0,0 1600,60",
                            "-fill", "#ececec", "-draw", "rectangle 40,100 1560,960", "-font", "DejaVu-Sans", "-pointsize", "28",
                            "-fill", "#ffffff", "-annotate", "+20+42", "Settings - contract manager", "-fill", "#1a1a1a",
                            "-annotate", "+80+180", "Open the quince panel to change 4002 entries",
                            "-annotate", "+80+240", "Notifications are sent when a download finishes"]

    @Test("a generated scan and a screenshot are read; their words come back with a confidence")
    func readsText() throws {
        let tree = try TemporaryTree(prefix: "fsindex-ocr")
        for (name, args, word) in [("scan.png", Self.scanArgs, "harpsichord"), ("screen.png", Self.screenArgs, "marmalade"),
                                    ("panel.png", Self.panelArgs, "quince")] {
            let path = try draw(tree, name, args)
            let start = Date()
            let outcome = try recognize(path)
            print("OCR \(name): \(Date().timeIntervalSince(start)) s")
            guard case let .text(text, confidence, pages) = outcome else {
                Issue.record("\(name): \(outcome)")
                continue
            }
            #expect(text.lowercased().contains(word), "\(name): \(text)")
            #expect(confidence >= 50 && pages == 1, "\(name): \(confidence)")
        }
    }

    @Test("the cheap test passes text and stops photos without text; tiny pictures are skipped by size")
    func cheapTest() throws {
        let tree = try TemporaryTree(prefix: "fsindex-ocr")
        for (name, args) in [("plasma.png", ["-seed", "7", "-size", "1200x900", "plasma:fractal"]),
                             ("plasma.jpg", ["-seed", "3", "-size", "1600x1200", "plasma:red-blue"]),
                             ("gradient.png", ["-size", "1000x800", "gradient:navy-orange", "-attenuate", "0.5", "+noise", "Gaussian"])] {
            let path = try draw(tree, name, args)
            let start = Date()
            let outcome = try recognize(path)
            print("decode and cheap test \(name): \(Date().timeIntervalSince(start)) s: \(outcome)")
            guard case .skipped(let why) = outcome else { Issue.record("\(name) was read: \(outcome)"); continue }
            #expect(why.contains("photo"), "\(name): \(why)")
        }
        let icon = try recognize(try draw(tree, "icon.png", ["-size", "32x32", "xc:#3465a4"]))
        guard case .skipped(let why) = icon else { Issue.record("the icon was read: \(icon)"); return }
        #expect(why.contains("too small"), "\(why)")
        // The measure itself, on the generated pictures (what the skip threshold is set by).
        for (name, args) in [("scan.png", Self.scanArgs), ("screen.png", Self.screenArgs), ("panel.png", Self.panelArgs)] {
            let path = try draw(tree, name, args)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            let pixbuf = try Thumbnailer.load(descriptor: fd, pixels: 4000)   // a test's picture, left to the process's end
            let start = Date()
            let likeness = TextLikeness(GrayImage(pixbuf: pixbuf))
            print("cheap test \(name): \(likeness) in \(Date().timeIntervalSince(start)) s")
            #expect(likeness.looksLikeText, "\(name): \(likeness)")
        }
    }

    /// The corpus's pictures are photos: none is read. The 100-pixel ones are stopped by their
    /// size; the phone photo (`IMG_1034.heic`, 2016×1512) and the WebP pictures are decoded (by
    /// the HEIF and WebP loaders of gdk-pixbuf, in README's list) and stopped by the cheap test.
    @Test("no picture of the real corpus is read: the small ones by size, the phone photo and the WebPs by the cheap test", .realCorpus)
    func corpusPhotos() throws {
        let folder = RealCorpus.file("images").string
        let decodedByLoaders: Set<String> = ["IMG_1034.heic", "testWEBP.webp", "testWebp_Alpha_Lossy.webp"]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let start = Date()
            let outcome = try recognize(folder + "/" + name)
            print("corpus \(name): \(outcome) in \(Date().timeIntervalSince(start)) s")
            switch outcome {
            case .text(let text, _, _): Issue.record("\(name) was read: \(text)")
            case .failed(let why): Issue.record("\(name) failed: \(why)")
            case .skipped(let why):
                if decodedByLoaders.contains(name) {
                    #expect(why.contains("photo without text"), "\(name): \(why) (are webp-pixbuf-loader and heif-gdk-pixbuf installed?)")
                } else {
                    #expect(why.contains("too small"), "\(name): \(why)")
                }
            }
        }
    }

    /// A measurement, not a check: every picture in `$FSINDEX_OCR_MEASURE` is decoded, measured by
    /// the cheap test and (when it passes) recognised, with the times printed. Photos and
    /// screenshots from anywhere can be compared this way.
    @Test("times the cheap test and OCR on the pictures of $FSINDEX_OCR_MEASURE",
          .enabled(if: ProcessInfo.processInfo.environment["FSINDEX_OCR_MEASURE"] != nil, "set FSINDEX_OCR_MEASURE to a folder of pictures"))
    func measure() throws {
        let folder = ProcessInfo.processInfo.environment["FSINDEX_OCR_MEASURE"]!
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            let decodeStart = Date()
            guard let pixbuf = try? Thumbnailer.load(descriptor: fd, pixels: 4000) else { print("measure \(name): not decoded"); continue }
            let gray = GrayImage(pixbuf: pixbuf)
            let decoded = Date().timeIntervalSince(decodeStart)
            let testStart = Date()
            let likeness = TextLikeness(gray)
            let tested = Date().timeIntervalSince(testStart)
            let start = Date()
            let outcome = try recognize(path)
            let shortOutcome: String = switch outcome {
            case let .text(text, confidence, _): "text \(text.count) characters, confidence \(confidence)"
            case let .skipped(why): "skipped: \(why)"
            case let .failed(why): "failed: \(why)"
            }
            print(String(format: "measure %@ %dx%d: decode %.3f s, cheap test %.4f s (paired %.2f, strokes %.4f), whole %.2f s: %@",
                         name, gray.width, gray.height, decoded, tested, likeness.pairedShare, likeness.strokeShare,
                         Date().timeIntervalSince(start), shortOutcome))
        }
    }
}
