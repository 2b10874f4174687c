import Attributes
import Crawling
@testable import Extraction
import Foundation
import SystemPackage
import Testing
import TestSupport

/// Each format the real corpus covers, on files the tests write themselves: these run on a clean
/// clone, where the corpus tests are skipped.
@Suite("Generated documents")
struct GeneratedDocumentTests {
    @Test("PDF: information dictionary, page size and the text of its one page")
    func pdf() throws {
        let tree = try TemporaryTree()
        let bytes = GeneratedFixture.pdf(title: "A generated PDF", author: "Ada Lovelace", subject: "Engines",
                                         keywords: "analytical, engine", created: "D:20240102030405Z",
                                         lines: ["The analytical engine weaves algebraic patterns", "just as the Jacquard loom weaves flowers."])
        let r = try extract(try tree.create("generated.pdf", bytes: bytes))
        #expect(r.extractor == "pdf")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "com.adobe.pdf")
        #expect(a.title == "A generated PDF")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.string(.subject) == "Engines")
        #expect(a.string(.generator) == "FSIndex tests")
        #expect(a.string(.producer) == "GeneratedFixture.pdf")
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_704_164_645))   // 2024-01-02T03:04:05Z
        #expect(a.integer(.pageCount) == 1)
        #expect(a[.pageWidth] == .double(612))
        #expect(a[.pageHeight] == .double(792))
        #expect(a[.encrypted] == .bool(false))
        let text = try #require(a.textContent)
        #expect(text.contains("The analytical engine weaves algebraic patterns"), "\(text)")
        #expect(text.contains("Jacquard loom weaves flowers."), "\(text)")

        // Its first half: a clear problem, never a crash.
        let half = try extract(try tree.create("half.pdf", bytes: Array(bytes.prefix(bytes.count / 2))))
        #expect(half.extractor == "pdf")
        #expect(!half.problems.isEmpty)
    }

    @Test("Excel: sheets in workbook order with their names, shared and inline strings, numbers")
    func xlsx() throws {
        let tree = try TemporaryTree()
        let path = tree.path("generated.xlsx")
        try ArchiveFixture.write(path, format: .zip, members: GeneratedFixture.xlsx())
        let r = try extract(path)
        #expect(r.extractor == "ooxml")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.openxmlformats.spreadsheetml.sheet")
        #expect(a.title == "Generated workbook")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.string(.generator) == "Microsoft Excel")
        #expect(a.date(.contentCreationDate) == iso("2024-01-02T03:04:05Z"))
        #expect(a.textContent == "Squares\nNumber Square\n3 9\n12 144\nNotes\nAnalytical Engine Difference engine")
    }

    @Test("PowerPoint: slides in presentation order, slide count as page count")
    func pptx() throws {
        let tree = try TemporaryTree()
        let path = tree.path("generated.pptx")
        try ArchiveFixture.write(path, format: .zip, members: GeneratedFixture.pptx())
        let r = try extract(path)
        #expect(r.extractor == "ooxml")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.openxmlformats.presentationml.presentation")
        #expect(a.title == "Generated slides")
        #expect(a.strings(.authors) == ["Grace Hopper"])
        #expect(a.integer(.pageCount) == 2)
        let text = try #require(a.textContent)
        let opening = try #require(text.range(of: "Opening slide"))
        let closing = try #require(text.range(of: "Closing slide"))
        #expect(opening.lowerBound < closing.lowerBound)
        #expect(text.contains("Nanoseconds and microseconds"))
        #expect(text.hasSuffix("Questions welcome"))
    }

    @Test("OpenDocument text: every meta.xml field and the body")
    func odt() throws {
        let tree = try TemporaryTree()
        let path = tree.path("generated.odt")
        try ArchiveFixture.write(path, format: .zip, members: GeneratedFixture.odt())
        let r = try extract(path)
        #expect(r.extractor == "opendocument")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.oasis-open.opendocument.text")
        #expect(a.title == "Generated text")
        #expect(a.string(.subject) == "Test document")
        #expect(a.strings(.keywords) == ["alpha", "beta"])
        #expect(a.string(.contentDescription) == "A document written by a test")
        #expect(a.strings(.authors) == ["Ada Lovelace", "Charles Babbage"])
        #expect(a.date(.contentCreationDate) == iso("2024-01-02T03:04:05Z"))
        #expect(a.date(.contentModificationDate) == iso("2024-02-03T04:05:06Z"))
        #expect(a.integer(.pageCount) == 2)
        #expect(a.string(.generator) == "FSIndex tests/1.0")
        let body = try #require(a.textContent)
        #expect(body.contains("Notes on the analytical engine, written in 1843."))
        #expect(body.contains("\nFirst item\nSecond item"))
        #expect(body.hasPrefix("The engine\n"))

        // Cut before its end: the metadata read before the cut, and a problem.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path.string)))
        let cut = try extract(try tree.create("cut.odt", bytes: Array(bytes.prefix(bytes.count * 3 / 4))))
        #expect(!cut.problems.isEmpty)
    }
}

@Suite("Generated photos")
struct GeneratedImageTests {
    /// EXIF of a made-up camera with a GPS position in the southern and western hemispheres.
    static func exif() -> [UInt8] {
        typealias F = GeneratedFixture.Field
        return GeneratedFixture.tiff([
            [F.ascii(0x010F, "FSIndex"), F.ascii(0x0110, "Test Camera 1"), F.short(0x0112, 6), F.ifd(0x8769, 1), F.ifd(0x8825, 2)],
            [F.rational(0x829A, [(1, 1600)]), F.rational(0x829D, [(56, 10)]), F.short(0x8827, 400),
             F.ascii(0x9003, "2009:08:11 09:09:45"), F.rational(0x920A, [(194, 1)])],
            [F(tag: 0x0000, type: 1, count: 4, value: [2, 2, 0, 0]),
             F.ascii(0x0001, "S"), F.rational(0x0002, [(12, 1), (32, 1), (35556, 1000)]),
             F.ascii(0x0003, "W"), F.rational(0x0004, [(54, 1), (7, 1), (2424, 100)]),
             F.byte(0x0005, 0), F.rational(0x0006, [(295, 1)])],
        ])
    }

    @Test("JPEG: pixel size, EXIF camera data and a GPS position signed by its S/W references")
    func jpegEXIF() throws {
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("photo.jpg", bytes: GeneratedFixture.jpeg(width: 640, height: 480, exif: Self.exif())))
        #expect(r.extractor == "image")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "public.jpeg")
        #expect(a.integer(.pixelWidth) == 640)
        #expect(a.integer(.pixelHeight) == 480)
        #expect(a.string(.acquisitionMake) == "FSIndex")
        #expect(a.string(.acquisitionModel) == "Test Camera 1")
        #expect(a.integer(.orientation) == 6)
        #expect(a.date(.contentCreationDate) == Date(timeIntervalSince1970: 1_249_981_785))   // DateTimeOriginal, as UTC
        #expect(near(doubleValue(a, .exposureTime), 1.0 / 1600, 1e-9))
        #expect(near(doubleValue(a, .fNumber), 5.6, 1e-9))
        #expect(near(doubleValue(a, .focalLength), 194, 1e-9))
        #expect(a.integer(.isoSpeed) == 400)
        #expect(near(doubleValue(a, .latitude), -12.5432, 0.00005))    // 12° 32' 35.556" S
        #expect(near(doubleValue(a, .longitude), -54.1234, 0.00005))   // 54° 7' 24.24" W
        #expect(near(doubleValue(a, .altitude), 295, 1e-9))
    }

    @Test("JPEG without GPS: no position; with a cut EXIF block: the size and a problem")
    func jpegWithoutGPS() throws {
        typealias F = GeneratedFixture.Field
        let tree = try TemporaryTree()
        let plain = GeneratedFixture.tiff([[F.ascii(0x010F, "FSIndex"), F.ascii(0x0110, "No GPS")]])
        let a = try extract(try tree.create("plain.jpg", bytes: GeneratedFixture.jpeg(width: 32, height: 16, exif: plain))).attributes
        #expect(a.string(.acquisitionModel) == "No GPS")
        #expect(a[.latitude] == nil)
        #expect(a.integer(.pixelWidth) == 32)
        let exif = Self.exif()
        let cut = try extract(try tree.create("cut.jpg", bytes: GeneratedFixture.jpeg(width: 32, height: 16, exif: Array(exif.prefix(20)))))
        #expect(cut.attributes.integer(.pixelWidth) == 32)
        #expect(cut.attributes[.latitude] == nil)
    }
}

@Suite("Generated audio")
struct GeneratedAudioTests {
    @Test("MP3: ID3v2.3 title, artist, album, track, year and genre; stream properties from the frames")
    func mp3() throws {
        let tree = try TemporaryTree()
        let tag = GeneratedFixture.id3v23([("TIT2", "Gymnopédie No. 1"), ("TPE1", "Erik Satie"), ("TALB", "Trois Gymnopédies"),
                                           ("TRCK", "1/3"), ("TYER", "2008"), ("TCON", "Classical"), ("TCOM", "Erik Satie")])
        let r = try extract(try tree.create("satie.mp3", bytes: tag + GeneratedFixture.mpegFrames(200)))
        #expect(r.extractor == "audio")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "public.mp3")
        #expect(a.title == "Gymnopédie No. 1")
        #expect(a.string(.artist) == "Erik Satie")
        #expect(a.string(.album) == "Trois Gymnopédies")
        #expect(a.string(.genre) == "Classical")
        #expect(a.string(.composer) == "Erik Satie")
        #expect(a.integer(.audioTrackNumber) == 1)
        #expect(a.date(.recordingDate) == Date(timeIntervalSince1970: 1_199_145_600))   // 2008-01-01
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 1)
        #expect(a.integer(.audioBitRate) == 128_000)
        #expect(near(doubleValue(a, .duration), 200 * 1152 / 44100.0, 0.05))   // 5.22 s
    }

    @Test("FLAC: STREAMINFO properties and Vorbis comments")
    func flac() throws {
        let tree = try TemporaryTree()
        let bytes = GeneratedFixture.flac(samples: 88200, comments: [
            "TITLE=Vexations", "ARTIST=Erik Satie", "ALBUM=Pages mystiques", "TRACKNUMBER=4", "DATE=2010-01-26",
            "GENRE=Classical", "COMPOSER=Erik Satie",
        ])
        let r = try extract(try tree.create("vexations.flac", bytes: bytes))
        #expect(r.extractor == "audio")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.xiph.flac")
        #expect(a.title == "Vexations")
        #expect(a.string(.artist) == "Erik Satie")
        #expect(a.strings(.authors) == ["Erik Satie"])
        #expect(a.string(.album) == "Pages mystiques")
        #expect(a.string(.composer) == "Erik Satie")
        #expect(a.integer(.audioTrackNumber) == 4)
        #expect(a.date(.recordingDate) == Date(timeIntervalSince1970: 1_264_464_000))   // 2010-01-26
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 2)
        #expect(near(doubleValue(a, .duration), 2.0, 1e-6))
    }

    @Test("Ogg Vorbis: identification header, comments, and the duration from the last granule position")
    func oggVorbis() throws {
        let tree = try TemporaryTree()
        let bytes = GeneratedFixture.oggVorbis(samples: 132_300, comments: [
            "TITLE=Gnossienne", "ARTIST=Erik Satie", "ALBUM=Gnossiennes", "TRACKNUMBER=2", "DATE=2010-01-26",
        ])
        let r = try extract(try tree.create("gnossienne.ogg", bytes: bytes))
        #expect(r.extractor == "audio")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.xiph.ogg-vorbis")
        #expect(a.title == "Gnossienne")
        #expect(a.string(.artist) == "Erik Satie")
        #expect(a.string(.album) == "Gnossiennes")
        #expect(a.integer(.audioTrackNumber) == 2)
        #expect(a.date(.recordingDate) == Date(timeIntervalSince1970: 1_264_464_000))
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 2)
        #expect(near(doubleValue(a, .duration), 3.0, 1e-6))
    }

    @Test("the first half of each generated file: a problem or the stream properties, never a crash")
    func truncated() throws {
        let tree = try TemporaryTree()
        let files: [(String, [UInt8])] = [
            ("a.mp3", GeneratedFixture.id3v23([("TIT2", "Cut")]) + GeneratedFixture.mpegFrames(50)),
            ("a.flac", GeneratedFixture.flac(samples: 44100, comments: ["TITLE=Cut"])),
            ("a.ogg", GeneratedFixture.oggVorbis(samples: 44100, comments: ["TITLE=Cut"])),
        ]
        for (name, bytes) in files {
            let r = try extract(try tree.create("half-" + name, bytes: Array(bytes.prefix(bytes.count / 2))))
            #expect(r.extractor == "audio", "\(name)")
            // As for the corpus's files: a problem, or the stream properties read before the cut.
            #expect(!r.problems.isEmpty || r.attributes.integer(.audioSampleRate) == 44100, "\(name): \(r.problems)")
        }
    }
}

@Suite("Generated text in legacy encodings")
struct GeneratedEncodingTests {
    static let japanese = "日本語の文章です。この文書は自動的に作成されました。文字コードはシフトJISで、日本語の文字と漢字とひらがなとカタカナが含まれています。東京都の天気は晴れです。明日は雨が降るでしょう。私たちは毎日図書館で本を読みます。"
    static let chinese = "简体中文是中华人民共和国的官方文字。这个文件是由测试程序自动生成的，使用国家标准编码。我们每天在图书馆里读书，学习历史和文化。北京的天气很好，明天可能会下雨。"
    static let russian = "Русский текст в кодировке КОИ-8. Этот документ был создан автоматически тестовой программой. Мы каждый день читаем книги в библиотеке и изучаем историю и культуру. Погода в Москве хорошая, завтра, возможно, пойдёт дождь."
    static let french = "Le «café» coûte 3 € aujourd’hui — c’est “cher”, dit-on. L’été dernier, à Noël, nous sommes allés à la fête ; la bibliothèque était fermée. Où est passé l’élève ? Ça dépend… Œuvres complètes de Molière, février."

    @Test("Shift_JIS, GB18030, KOI8-R and Windows-1252 text: the encoding detected and the text decoded exactly",
          arguments: [(japanese, "SHIFT_JIS", "shift_jis"), (chinese, "GB18030", "gb18030"), (russian, "KOI8-R", "koi8-r"),
                      (french, "WINDOWS-1252", "windows-1252")])
    func legacy(_ text: String, _ iconvName: String, _ expected: String) throws {
        let bytes = try #require(GeneratedFixture.encode(text, as: iconvName), "iconv cannot write \(iconvName)")
        #expect(bytes != Array(text.utf8))
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("\(expected).txt", bytes: bytes))
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.attributes.string(.encoding) == expected)
        #expect(r.attributes.textContent == text)
    }
}

@Suite("Generated XML documents")
struct GeneratedXMLTests {
    @Test("Dublin Core: title, creators, subjects, description, date, language and text, not comments")
    func dublinCore() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("record.xml", contents: """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- Licensed to nobody: this comment is not text -->
            <record xmlns:dc="http://purl.org/dc/elements/1.1/">
              <dc:title>Notes sur la machine analytique</dc:title>
              <dc:creator>Ada Lovelace</dc:creator>
              <dc:subject>machine</dc:subject>
              <dc:subject>algèbre</dc:subject>
              <dc:description>Traduction annotée du mémoire de Menabrea</dc:description>
              <dc:date>1843-09-01</dc:date>
              <dc:language>fr</dc:language>
              <body>La machine analytique tisse des motifs algébriques à Châteauneuf.</body>
            </record>
            """)
        let r = try extract(p)
        #expect(r.extractor == "xml")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.title == "Notes sur la machine analytique")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.strings(.keywords) == ["machine", "algèbre"])
        #expect(a.string(.contentDescription) == "Traduction annotée du mémoire de Menabrea")
        #expect(a.date(.contentCreationDate) == TextMetadataTests.utc(1843, 9, 1))
        #expect(a.string(.language) == "fr")
        #expect(a.textContent?.contains("tisse des motifs algébriques à Châteauneuf") == true)
        #expect(a.textContent?.contains("Licensed to nobody") == false)
    }

    @Test("FictionBook: book title, author names, keywords, language, date, publisher; not the stylesheet")
    func fictionBook() throws {
        let tree = try TemporaryTree()
        let p = try tree.create("book.fb2", contents: """
            <?xml version="1.0" encoding="UTF-8"?>
            <FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">
              <stylesheet type="text/css">p { font-family: serif }</stylesheet>
              <description>
                <title-info>
                  <genre>prose_classic</genre>
                  <author><first-name>Антон</first-name><middle-name>Павлович</middle-name><last-name>Чехов</last-name></author>
                  <book-title>Каштанка</book-title>
                  <keywords>собака, цирк</keywords>
                  <date>1887</date>
                  <lang>ru</lang>
                </title-info>
                <document-info><author><nickname>scanner</nickname></author></document-info>
                <publish-info><publisher>Художественная литература</publisher></publish-info>
              </description>
              <body><section><p>Молодая рыжая собака ходила взад и вперёд по тротуару.</p></section></body>
            </FictionBook>
            """)
        let r = try extract(p)
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.title == "Каштанка")
        #expect(a.strings(.authors) == ["Антон Павлович Чехов"])
        #expect(a.strings(.keywords).contains("цирк"))
        #expect(a.string(.language) == "ru")
        #expect(a.date(.contentCreationDate) == TextMetadataTests.utc(1887, 1, 1))
        #expect(a.strings(.publishers) == ["Художественная литература"])
        #expect(a.textContent?.contains("рыжая собака") == true)
        #expect(a.textContent?.contains("font-family") == false)
    }

    @Test("KML: name as title, description, the first Point as position; SVG: desc as description")
    func kmlAndSVG() throws {
        let tree = try TemporaryTree()
        let k = try extract(try tree.create("places.kml", contents: """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
              <name>Generated places</name>
              <description>Two points for the tests</description>
              <Placemark><name>First</name><Point><coordinates>-1.2577,51.752,12</coordinates></Point></Placemark>
              <Placemark><name>Second</name><Point><coordinates>2.35,48.85,0</coordinates></Point></Placemark>
            </Document></kml>
            """)).attributes
        #expect(k.title == "Generated places")
        #expect(k.string(.contentDescription) == "Two points for the tests")
        #expect(k[.longitude] == .double(-1.2577))
        #expect(k[.latitude] == .double(51.752))
        #expect(k[.altitude] == .double(12))
        let s = try extract(try tree.create("drawing.svg", contents: """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><desc>A generated square</desc><rect width="10" height="10"/></svg>
            """)).attributes
        #expect(s.contentType == "public.svg-image")
        #expect(s.string(.contentDescription) == "A generated square")
        #expect(s.textContent == "A generated square")
        #expect(s.title == nil)
    }
}

@Suite("Generated audio and images, other containers")
struct GeneratedContainerTests {
    @Test("WAV: format chunk properties and LIST/INFO tags")
    func wav() throws {
        let tree = try TemporaryTree()
        let bytes = GeneratedFixture.wav(frames: 22050, info: [("INAM", "Gnossienne"), ("IART", "Erik Satie"), ("ICRD", "1890-05-01"), ("ITRK", "4")])
        let r = try extract(try tree.create("info.wav", bytes: bytes))
        #expect(r.extractor == "audio")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "com.microsoft.waveform-audio")
        #expect(a.title == "Gnossienne")
        #expect(a.string(.artist) == "Erik Satie")
        #expect(a.integer(.audioTrackNumber) == 4)
        #expect(a.date(.recordingDate) == AudioExtractor.recordingDate(year: 1890, stated: "1890-05-01"))
        #expect(a.integer(.audioSampleRate) == 44100)
        #expect(a.integer(.audioChannelCount) == 2)
        #expect(near(doubleValue(a, .duration), 0.5, 1e-6))
    }

    @Test("Ogg Opus: OpusHead, OpusTags, and the duration less the pre-skip at 48 kHz")
    func opus() throws {
        let tree = try TemporaryTree()
        let bytes = GeneratedFixture.oggOpus(samples: 96_000, comments: ["TITLE=Sarabande", "ARTIST=Erik Satie"])
        let r = try extract(try tree.create("sarabande.opus", bytes: bytes))
        #expect(r.extractor == "audio")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "org.xiph.opus")
        #expect(a.title == "Sarabande")
        #expect(a.string(.artist) == "Erik Satie")
        #expect(a.integer(.audioSampleRate) == 48000)
        #expect(a.integer(.audioChannelCount) == 2)
        #expect(near(doubleValue(a, .duration), 2.0, 1e-6))
    }

    @Test("TIFF: size and orientation from IFD0, XMP keywords and description from tag 700")
    func tiff() throws {
        let tree = try TemporaryTree()
        let xmp = GeneratedFixture.xmp(description: "A grey square", keywords: ["cat", "garden"])
        let bytes = GeneratedFixture.tiffImage(width: 48, height: 32, extra: [
            .short(0x0112, 1), .ascii(0x010F, "FSIndex"),
            GeneratedFixture.Field(tag: 700, type: 1, count: UInt32(xmp.count), value: xmp),
        ])
        let r = try extract(try tree.create("square.tif", bytes: bytes))
        #expect(r.extractor == "image")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "public.tiff")
        #expect(a.integer(.pixelWidth) == 48)
        #expect(a.integer(.pixelHeight) == 32)
        #expect(a.integer(.orientation) == 1)
        #expect(a.string(.acquisitionMake) == "FSIndex")
        #expect(a.strings(.keywords) == ["cat", "garden"])
        #expect(a.string(.contentDescription) == "A grey square")
    }

    @Test("PNG (eXIf, iTXt) and WebP (VP8X, EXIF chunk): size, EXIF and XMP")
    func pngAndWebP() throws {
        let tree = try TemporaryTree()
        let exif = GeneratedImageTests.exif()
        let png = GeneratedFixture.png(width: 100, height: 60, exif: exif,
                                       xmp: GeneratedFixture.xmp(description: "Oxford, from the air", keywords: ["oxford"]))
        let r = try extract(try tree.create("meta.png", bytes: png))
        #expect(r.extractor == "image")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "public.png")
        #expect(a.integer(.pixelWidth) == 100)
        #expect(a.integer(.pixelHeight) == 60)
        #expect(a.string(.acquisitionModel) == "Test Camera 1")
        #expect(near(doubleValue(a, .latitude), -12.5432, 0.00005))
        #expect(a.string(.contentDescription) == "Oxford, from the air")
        #expect(a.strings(.keywords) == ["oxford"])

        let w = try extract(try tree.create("meta.webp", bytes: GeneratedFixture.webp(width: 150, height: 90, exif: exif)))
        #expect(w.extractor == "image")
        #expect(w.problems.isEmpty, "\(w.problems)")
        #expect(w.attributes.contentType == "org.webmproject.webp")
        #expect(w.attributes.integer(.pixelWidth) == 150)
        #expect(w.attributes.integer(.pixelHeight) == 90)
        #expect(w.attributes.string(.acquisitionMake) == "FSIndex")
        #expect(near(doubleValue(w.attributes, .altitude), 295, 1e-9))
    }
}

@Suite("Generated OLE2 documents")
struct GeneratedOLETests {
    @Test("Word 97: summary information and the text of its piece table")
    func word97() throws {
        let (word, table) = GeneratedFixture.word97Streams(text: "A generated Word document\rIts second paragraph, caf\u{E9} included.\r")
        let summary = GeneratedFixture.summaryInformation([(2, "Generated Word title"), (3, "Testing"), (4, "Ada Lovelace"),
                                                           (18, "Microsoft Office Word")])
        let bytes = GeneratedFixture.compoundFile([("WordDocument", word), ("1Table", table), ("\u{5}SummaryInformation", summary)])
        let tree = try TemporaryTree()
        let r = try extract(try tree.create("generated.doc", bytes: bytes))
        #expect(r.extractor == "ole")
        #expect(r.problems.isEmpty, "\(r.problems)")
        let a = r.attributes
        #expect(a.contentType == "com.microsoft.word.doc")
        #expect(a.title == "Generated Word title")
        #expect(a.string(.subject) == "Testing")
        #expect(a.strings(.authors) == ["Ada Lovelace"])
        #expect(a.string(.generator) == "Microsoft Office Word")
        #expect(a.textContent == "A generated Word document\nIts second paragraph, café included.")

        // Without its table stream: a clear problem, the summary information kept.
        let broken = GeneratedFixture.compoundFile([("WordDocument", word), ("\u{5}SummaryInformation", summary)])
        let b = try extract(try tree.create("broken.doc", bytes: broken))
        #expect(b.problems.contains { "\($0)".contains("1Table stream is missing") }, "\(b.problems)")
        #expect(b.attributes.title == "Generated Word title")
    }
}
