import Attributes
import Crawling
import SystemCalls
import SystemPackage

/// File-system facts and a type guessed from the name alone, without opening the file.
///
/// Two users: the names-first pass of a first crawl (names searchable within seconds), and the
/// parent of a worker that died on a file, which records what it knows without the file's bytes
/// (no untrusted content is parsed outside a worker). Needs no libmagic, so it is cheap to make.
package final class NamesOnlyExtraction {
    private let detector = TypeDetector(database: .shared)
    private var names = UserNameCache()

    package init() {}

    /// The result has extractor version 0 unless `version` is given, so that a later pass
    /// extracts the file fully.
    package func extract(_ facts: FileFacts, extractor: String? = nil, version: Int = 0) -> ExtractionResult {
        var attributes = FileSystemExtractor().attributes(of: facts, names: &names)
        let detection: TypeDetection
        if facts.type == .regular {
            let name = facts.path.lastComponent.map(\.bytes) ?? facts.pathBytes
            detection = detector.detect(name: name, magic: nil, isEmpty: facts.size == 0)
        } else {
            detection = TypeDetector.nonRegular(facts.type)
        }
        attributes.contentType = detection.contentType
        attributes.contentTypeTree = detection.contentTypeTree
        attributes[.mimeType] = .string(detection.mimeType)
        attributes.kind = detection.kind
        if let extractor { attributes[.extractor] = .string(extractor) }
        return ExtractionResult(attributes: attributes, problems: [], extractor: extractor, extractorVersion: version)
    }
}
