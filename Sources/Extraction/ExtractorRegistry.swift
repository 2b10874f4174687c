import ExtractionModel
/// The content extractors, in the order they are tried: for each regular file the first one
/// whose `accepts` is true reads its bytes, so specific types come before generic ones.
///
/// - `OfficeOpenXMLExtractor`, `OpenDocumentExtractor`, `EPUBExtractor`: zip-based documents
///   (and OOXML's encrypted OLE2 wrapper), before `ArchiveExtractor`, since they are zip files too.
/// - `ArchiveExtractor`: archives and compressed files (not zip-based documents).
///
/// Then:
/// 1. `HTMLExtractor`: `public.html`, `public.xhtml`. Before XML, because XHTML is also XML, and
///    before plain text, because HTML is also text.
/// 2. `XMLExtractor`: `public.xml` that is not XHTML (SVG, KML, FictionBook, ...).
/// 3. `PDFExtractor`: `com.adobe.pdf`.
/// 4. `RTFExtractor`: `public.rtf` (before plain text, which excludes RTF anyway).
/// 5. `OLEExtractor`: legacy Office files in an OLE2 container (`.doc`, `.xls`, `.ppt`), and other
///    OLE2 files libmagic calls `application/x-ole-storage` (an Outlook `.msg` extractor would go
///    before it).
/// 5b. `CalendarExtractor`: `public.calendar-event` (`.ics`, `text/calendar`), before plain
///    text, which would take it as it is (an iCalendar file is text).
/// 6. `MailExtractor`: `public.email-message` and `public.mbox` (an mbox is also text).
/// 7. `ManPageExtractor`: text whose first request is a manual page's header (`.TH`, `.Dd`),
///    before plain text, which would take it as it is.
/// 8. `PlainTextExtractor`: any other `public.text` except RTF.
/// 9. `ImageExtractor`: JPEG, PNG, GIF, TIFF, WebP, HEIC, BMP (binary types; SVG stays with XML).
/// 10. `AudioExtractor`: any `public.audio` (MP3, FLAC, Ogg Vorbis/Opus, M4A, WAV, WMA).
/// 11. `VideoExtractor`: movies (MP4, MOV, Matroska, WebM, AVI, ...) and the audio containers
///    `AudioExtractor` leaves (Matroska audio, raw AAC and AC-3, AIFF, ...), through libavformat.
///
/// A single compressed file (`cp.1.gz`) is decompressed first (`ExtractionContext+Compressed`)
/// and its inner file goes through this list; `ArchiveExtractor` lists it only when no other
/// extractor takes the inner file.
///
/// `FileSystemExtractor` is not in the list: it runs for every item, before the content
/// extractor, and for directories, links and special files alone.
///
/// For example:
/// ```swift
/// ExtractorRegistry.extractor(for: input)?.name   // "html" for a .html file
/// ```
package enum ExtractorRegistry {
    package static let all: [any Extractor] = [
        OfficeOpenXMLExtractor(), OpenDocumentExtractor(), EPUBExtractor(), ArchiveExtractor(),
        HTMLExtractor(), XMLExtractor(), PDFExtractor(), RTFExtractor(), OLEExtractor(), CalendarExtractor(),
        MailExtractor(), ManPageExtractor(), PlainTextExtractor(), ImageExtractor(), AudioExtractor(),
        VideoExtractor(),
    ]

    /// The extractor of file-system facts, run for every item.
    package static let fileSystem = FileSystemExtractor()

    static let byName: [String: any Extractor] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    /// The first content extractor that accepts `input`, if any.
    package static func extractor(for input: ExtractionInput) -> (any Extractor)? {
        all.first { $0.accepts(input) }
    }
}
