import Foundation
import SystemPackage
import TestSupport
import Testing

/// Pictures made for the OCR tests (issue 28, part 4) with ImageMagick and GraphicsMagick, each
/// holding one word no other sample has: a scan (black serif text on off-white paper, turned a
/// little, with noise), a screenshot (coloured bars, boxes and a button with text), a scanned-style
/// PDF (a page picture without a text layer, as `gm convert page.png page.pdf` writes it), a
/// photo without text (ImageMagick's `plasma:` fractal) and an icon (too small to hold text).
enum OCRSamples {
    /// Why the OCR tests cannot run here, or nil.
    static let skipReason: String? = {
        if !Tool.exists("convert") { return "needs ImageMagick (apt-get install imagemagick)" }
        if !Tool.exists("gm") { return "needs GraphicsMagick (apt-get install graphicsmagick)" }
        if !FileManager.default.fileExists(atPath: "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata") {
            return "needs Tesseract's English data (apt-get install tesseract-ocr-eng)"
        }
        if !FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf") {
            return "needs the DejaVu fonts (apt-get install fonts-dejavu-core)"
        }
        return nil
    }()

    static let scanWord = "harpsichord", screenWord = "marmalade", pdfWord = "chrysanthemum"

    /// Writes the samples named in `names` (scan.png, screen.png, page.pdf, plasma.png,
    /// icon.png) into `folder`.
    static func make(in folder: String, _ names: Set<String> = ["scan.png", "screen.png", "page.pdf", "plasma.png", "icon.png"]) throws {
        func im(_ args: [String]) throws {
            let r = try run(executable: Tool.path("convert")!, args, timeout: 120)
            guard r.status == 0 else { throw SampleFailure(message: "convert \(args.joined(separator: " ")): \(r.stderr)") }
        }
        if names.contains("scan.png") {
            try im(["-size", "1600x900", "xc:#f3efe6", "-font", "DejaVu-Serif", "-pointsize", "34", "-fill", "#111111",
                    "-annotate", "+90+140", "Invoice number 4471 for the quarterly",
                    "-annotate", "+90+200", "maintenance of the boiler at Lindenweg.",
                    "-annotate", "+90+260", "Reference: \(scanWord) voucher",
                    "-rotate", "1.2", "-attenuate", "0.4", "+noise", "Gaussian", "-colorspace", "gray", folder + "/scan.png"])
        }
        if names.contains("screen.png") {
            try im(["-size", "1280x800", "xc:#ececec", "-fill", "#3465a4", "-draw", "rectangle 0,0 1280,60",
                    "-fill", "white", "-font", "DejaVu-Sans", "-pointsize", "26", "-annotate", "+20+40", "Settings",
                    "-fill", "#ffffff", "-draw", "rectangle 40,100 620,700", "-fill", "#222222", "-pointsize", "22",
                    "-annotate", "+60+150", "Wireless connection \(screenWord)", "-annotate", "+60+200", "Proxy server configuration",
                    "-fill", "#73d216", "-draw", "roundrectangle 700,120 1000,180 10,10", "-fill", "white",
                    "-annotate", "+740+160", "Apply changes", folder + "/screen.png"])
        }
        if names.contains("page.pdf") {
            let picture = folder + "/.page.png"
            try im(["-size", "1275x1650", "xc:white", "-font", "DejaVu-Serif", "-pointsize", "40", "-fill", "black",
                    "-annotate", "+120+300", "Minutes of the \(pdfWord) society", "-annotate", "+120+380", "meeting held on the third of May.",
                    "-attenuate", "0.3", "+noise", "Gaussian", "-colorspace", "gray", "-density", "150", picture])
            // ImageMagick may not write PDF on Debian (its policy); GraphicsMagick does, a page
            // that is one picture and no text.
            let r = try run(executable: Tool.path("gm")!, ["convert", picture, folder + "/page.pdf"], timeout: 120)
            guard r.status == 0 else { throw SampleFailure(message: "gm convert: \(r.stderr)") }
            try FileManager.default.removeItem(atPath: picture)
        }
        if names.contains("plasma.png") {
            try im(["-seed", "7", "-size", "1200x900", "plasma:fractal", folder + "/plasma.png"])
        }
        if names.contains("icon.png") {
            try im(["-size", "32x32", "xc:#3465a4", "-fill", "white", "-draw", "circle 16,16 16,4", folder + "/icon.png"])
        }
    }

    struct SampleFailure: Error, CustomStringConvertible { var message: String; var description: String { message } }
}

extension Trait where Self == ConditionTrait {
    static var ocrSamples: Self { .enabled(if: OCRSamples.skipReason == nil, Comment(rawValue: OCRSamples.skipReason ?? "")) }
}

@Suite("OCR of scans, screenshots and scanned PDFs", .blocking, .ocrSamples)
struct OCRCLITests {
    func names(_ r: CommandResult) -> [String] { r.lines.map { String($0.split(separator: "/").last ?? "") }.sorted() }

    func attributes(_ f: CLIFixture, _ name: String) throws -> [String: Any] {
        let r = try f.fsindex("show", "--json", f.root + "/" + name)
        return (try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]) ?? [:]
    }

    @Test("fsindex index reads a scan, a screenshot and an image-only PDF; fsfind finds their words; a photo and an icon are skipped")
    func indexAndFind() throws {
        let f = try CLIFixture()
        try OCRSamples.make(in: f.root)
        try f.tree.create("root/notes.txt", contents: "plain words of a text file\n")
        let r = try f.fsindex("index", "--json", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        let report = (try? JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]) ?? [:]
        #expect(report["recognized"] as? Int == 3, "\(r.out)")
        #expect(report["recognitionSkipped"] as? Int == 1, "the photo is skipped (the icon is no candidate): \(r.out)")
        #expect((report["recognitionSeconds"] as? Double ?? 0) > 0, "\(r.out)")
        #expect(names(try f.fsfind(OCRSamples.scanWord)) == ["scan.png"])
        #expect(names(try f.fsfind(OCRSamples.screenWord)) == ["screen.png"])
        #expect(names(try f.fsfind(OCRSamples.pdfWord)) == ["page.pdf"])
        #expect(names(try f.fsfind("quarterly boiler")) == ["scan.png"])
        #expect(names(try f.fsfind("textSource:ocr")) == ["page.pdf", "scan.png", "screen.png"])
        let scan = try attributes(f, "scan.png")
        #expect(scan["textSource"] as? String == "ocr")
        #expect((scan["textConfidence"] as? Int ?? 0) >= 50, "\(scan)")
        let photo = try attributes(f, "plasma.png")
        #expect((photo["textRecognitionSkipped"] as? String ?? "").contains("photo"), "\(photo)")
        #expect(photo["textSource"] == nil)
        // Plain `show` says where the text came from.
        #expect(try f.fsindex("show", f.root + "/scan.png").out.contains("textSource"))
        // A second run finds nothing left to read: skips are not retried until the file changes.
        let again = try f.fsindex("index", "--json", f.root)
        let second = (try? JSONSerialization.jsonObject(with: again.stdout) as? [String: Any]) ?? [:]
        #expect(second["recognized"] as? Int == 0 && second["recognitionSkipped"] as? Int == 0, "\(again.out)")
    }

    /// Issue 40, A6: large type (a banner, a slide's title, a poster) was taken for a photo: its
    /// stems were wider and taller than the cheap test's measure of a stroke at 600 pixels.
    @Test("a 600×120 banner in 48-point letters, and a poster in 120-point letters, are read; a photo still is not")
    func largeType() throws {
        let f = try CLIFixture()
        try OCRSamples.make(in: f.root, ["plasma.png"])
        for (name, size, points, geometry, words) in [("banner.png", "600x120", "48", "+20+80", "ZEBRA QUOKKA"),
                                                       ("poster.png", "1400x900", "120", "+60+300", "GRAND OPENING")] {
            let r = try run(executable: Tool.path("convert")!, ["-size", size, "xc:white", "-font", "DejaVu-Sans", "-pointsize", points,
                                                                "-fill", "black", "-annotate", geometry, words, f.root + "/" + name], timeout: 120)
            #expect(r.status == 0, "convert: \(r.stderr)")
        }
        let r = try f.fsindex("index", "--json", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        let banner = try attributes(f, "banner.png"), poster = try attributes(f, "poster.png")
        #expect(names(try f.fsfind("zebra quokka")) == ["banner.png"], "\(banner)")
        #expect(names(try f.fsfind("grand opening")) == ["poster.png"], "\(poster)")
        #expect(try attributes(f, "banner.png")["textSource"] as? String == "ocr")
        #expect((try attributes(f, "plasma.png")["textRecognitionSkipped"] as? String ?? "").contains("photo"))
    }

    @Test("[extraction] ocr = false leaves pictures and the scanned PDF without words")
    func off() throws {
        let f = try CLIFixture()
        try OCRSamples.make(in: f.root, ["scan.png", "page.pdf"])
        let config = try f.tree.create("config.toml", contents: "[extraction]\nocr = false\n").string
        let r = try f.fsindex("index", "--config", config, "--json", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try f.fsfind(OCRSamples.scanWord).status == 1)
        // The PDF has no text layer of its own: only OCR finds its word.
        #expect(try f.fsfind(OCRSamples.pdfWord).status == 1)
        #expect(try f.fsfind("--name", "page.pdf").lines.count == 1)
    }

    @Test("a language that is not installed is named, with the package to install, and the rest is indexed")
    func missingLanguage() throws {
        let f = try CLIFixture()
        try OCRSamples.make(in: f.root, ["scan.png"])
        try f.tree.create("root/notes.txt", contents: "plain words of a text file\n")
        let config = try f.tree.create("config.toml", contents: "[extraction]\nocr_languages = \"eng+xqz\"\n").string
        let r = try f.fsindex("index", "--config", config, f.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("xqz") && r.stderr.contains("tesseract-ocr-xqz") && r.stderr.contains("ocr_languages"), "\(r.stderr)")
        #expect(names(try f.fsfind("plain")) == ["notes.txt"])
        #expect(try f.fsfind(OCRSamples.scanWord).status == 1)
        // A value that is no language list at all is refused where it is written.
        let bad = try f.tree.create("bad.toml", contents: "[extraction]\nocr_languages = \"eng, deu\"\n").string
        let refused = try f.fsindex("index", "--config", bad, f.root)
        #expect(refused.status != 0 && refused.stderr.contains("ocr_languages"), "\(refused.stderr)")
    }

    @Test("fsindexd reads a scan dropped into a watched root, after extraction")
    func daemon() async throws {
        try await offPool {
            let d = try DaemonFixture()
            try d.start()
            let folder = d.tree.path("made").string
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try OCRSamples.make(in: folder, ["scan.png"])
            #expect(rename(folder + "/scan.png", d.root + "/scan.png") == 0)
            try d.waitFor("the scan's words", seconds: 120) { try d.find(OCRSamples.scanWord) == [d.root + "/scan.png"] }
            #expect(d.stop() == 0)
        }
    }
}
