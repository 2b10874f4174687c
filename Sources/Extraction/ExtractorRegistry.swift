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

    /// The version stored with an item that `extractor` (a name from `all`, or `nil` for none)
    /// produced: the shared stages (file system, type detection, language) times 10,000 plus the
    /// extractor's own version. An item whose stored version differs from this is re-extracted
    /// in the background, so raising one extractor's version re-reads only its files.
    ///
    /// Items no content extractor read use the sum of all versions instead, because a new or
    /// changed extractor may now accept them. An unknown name (an extractor that was removed)
    /// gives -1, which matches no stored item, so those are re-extracted too.
    public static func version(of extractor: String?) -> Int {
        let shared = (fileSystem.version + TypeDetector.version + LanguageIdentifier.version) * 10_000
        guard let extractor else { return shared + all.reduce(0) { $0 + $1.version } }
        guard let e = byName[extractor] else { return -1 }
        return shared + e.version
    }

    /// Every (extractor name or `nil`, current version) pair, for the index's staleness sweep.
    public static var versions: [(extractor: String?, version: Int)] {
        [(nil, version(of: nil))] + all.map { ($0.name, version(of: $0.name)) }
    }

    static let byName: [String: any Extractor] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    /// The first content extractor that accepts `input`, if any.
    public static func extractor(for input: ExtractionInput) -> (any Extractor)? {
        all.first { $0.accepts(input) }
    }
}
