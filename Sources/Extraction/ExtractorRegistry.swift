/// The content extractors, in the order they are tried: for each regular file the first one
/// whose `accepts` is true reads its bytes, so specific types come before generic ones.
///
/// 1. `HTMLExtractor`: `public.html`, `public.xhtml`. Before XML, because XHTML is also XML, and
///    before plain text, because HTML is also text.
/// 2. `XMLExtractor`: `public.xml` that is not XHTML (SVG, KML, FictionBook, ...).
/// 3. `PlainTextExtractor`: any other `public.text` except RTF.
///
/// `FileSystemExtractor` is not in the list: it runs for every item, before the content
/// extractor, and for directories, links and special files alone.
///
/// For example:
/// ```swift
/// ExtractorRegistry.extractor(for: input)?.name   // "html" for a .html file
/// ```
public enum ExtractorRegistry {
    public static let all: [any Extractor] = [HTMLExtractor(), XMLExtractor(), PlainTextExtractor()]

    /// The extractor of file-system facts, run for every item.
    public static let fileSystem = FileSystemExtractor()

    /// One number that changes whenever any extractor or the type detection changes (the sum of
    /// their versions), stored with each item so that an upgrade can re-extract old items.
    public static var version: Int {
        all.reduce(0) { $0 + $1.version } + fileSystem.version + TypeDetector.version
    }

    /// The first content extractor that accepts `input`, if any.
    public static func extractor(for input: ExtractionInput) -> (any Extractor)? {
        all.first { $0.accepts(input) }
    }
}
