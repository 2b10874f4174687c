import Attributes
import Crawling
import ExtractionModel
import Glibc

extension IndexUpdater {
    /// The longest path the extraction worker can open (`PATH_MAX` without its NUL).
    static let longestReadablePath = Int(PATH_MAX) - 1

    /// What is stored for a regular file whose path is longer than `PATH_MAX`: the walker reaches
    /// it (in steps), but the worker opens files by path, which the kernel refuses.
    ///
    /// A key design decision: such a file is indexed from its facts (name, size, dates, a type
    /// from its name) and marked with an `extractionError` that says why its content was not
    /// read, at the current version of "no extractor". So it is found by name, listed once by
    /// `fsindex failures`, reported once by the crawl that first meets it, and not tried again
    /// until it changes: a deep tree no longer makes every later `fsindex index` exit 2.
    /// Returns nil for a path that fits, which goes to the worker as usual.
    static func tooLongToRead(_ facts: FileFacts, names: NamesOnlyExtraction) -> ExtractionResult? {
        let length = facts.pathBytes.count
        guard facts.type == .regular, length > longestReadablePath else { return nil }
        var r = names.extract(facts, extractor: nil, version: ExtractionVersions.version(of: nil))
        let error = ExtractionError.unreadable(
            errno: ENAMETOOLONG,
            message: "its path is \(length) bytes, longer than the \(longestReadablePath) a program can open (PATH_MAX); "
                + "the name and file-system attributes are indexed, not the content (move it higher up to have it read)")
        r.problems = [error]
        r.attributes[.extractionError] = .string(error.description)
        return r
    }
}
