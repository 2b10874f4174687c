import Extraction

/// What `fsindex-fuzz` can fuzz: each of our parsers of untrusted bytes, by a stable name that
/// is also the folder of its seed corpus (`Tests/Fuzz/corpus/<name>`).
///
/// Every target takes arbitrary bytes. A run that returns is a pass; a trap (Swift's own checks:
/// index out of range, arithmetic overflow, or a property a harness checks with `fatalError`),
/// an AddressSanitizer report, a timeout or running out of memory is a finding.
enum FuzzTarget: String, CaseIterable {
    case query
    case shortQuery = "short-query"
    case rtf
    case image
    case audio
    case media
    case mailStructure = "mail-structure"
    case zip
    case workerRequest = "worker-request"
    case workerResult = "worker-result"

    var summary: String {
        switch self {
        case .query: "mdfind's language (QueryParser), compiled and run against a one-item index"
        case .shortQuery: "fsfind's short form and mixed queries (ShortQueryParser), run against a one-item index"
        case .rtf: "the RTF tokenizer (RTFExtractor), with a large and a tiny text cap"
        case .image: "ImageHeader: JPEG, PNG, GIF, BMP, WebP, TIFF and HEIF headers"
        case .audio: "AudioHeader: MP3/ID3v2, FLAC, Ogg Vorbis/Opus, WAV and MP4 headers"
        case .media: "VideoExtractor: libavformat's demuxers (MP4, Matroska, AVI, ADTS, ...) through a descriptor"
        case .mailStructure: "MailStructureScanner: the same cuts however the input is chunked"
        case .zip: "ZipContainer (through libarchive) and part-name resolution"
        case .workerRequest: "the worker's side of the pipe: FrameReader and WorkRequest decoding"
        case .workerResult: "the parent's side of the pipe: frame headers and ResultCoding's binary decoding"
        }
    }

    func run(_ bytes: [UInt8]) {
        switch self {
        case .query: QueryHarness.spotlight(bytes)
        case .shortQuery: QueryHarness.short(bytes)
        case .rtf: ExtractionFuzzing.rtf(bytes)
        case .image: ExtractionFuzzing.imageHeader(bytes)
        case .audio: ExtractionFuzzing.audioHeader(bytes)
        case .media: ExtractionFuzzing.media(bytes)
        case .mailStructure: ExtractionFuzzing.mailStructure(bytes)
        case .zip: ExtractionFuzzing.zip(bytes)
        case .workerRequest: WorkerProtocolHarness.request(bytes)
        case .workerResult: WorkerProtocolHarness.result(bytes)
        }
    }
}
