import Attributes
import FoundationEssentials
import Crawling
import Extraction
import ExtractionModel
import Summarizing
import SystemPackage
import Testing
import TestSupport
@testable import Isolation
import Glibc

/// Every file of the real-document corpus, extracted by the sandboxed worker (Landlock-confined,
/// `nobody` when we are root, the file passed as a descriptor) and in-process with no sandbox:
/// the results must be the same. This is how the worker's read-only data paths were found, and
/// it keeps them complete: a library that needs a file outside them shows up here as a
/// difference, not as quietly poorer results. The worker adds one thing of its own: each text's
/// summary, which must be the summarizer's of the in-process text (NULs made spaces).
@Suite("Sandboxed worker on the real corpus", .blocking)
struct SandboxCorpusTests {
    @Test("the sandboxed worker extracts every corpus file exactly as in-process extraction does", .realCorpus)
    func sameAsInProcess() throws {
        let worker = ExtractionWorker(executable: try workerPath())
        let context = try ExtractionContext()
        var compared = 0
        for path in Self.files(under: RealCorpus.root) {
            let facts = try FileFacts.read(path)
            let sandboxed = worker.extract(facts, textCap: 1 << 20)
            let direct = context.extract(facts, textCap: 1 << 20)
            compared += 1
            #expect(sandboxed.problems == direct.problems, "\(path): \(sandboxed.problems) vs \(direct.problems)")
            #expect(sandboxed.extractor == direct.extractor, "\(path)")
            #expect(sandboxed.children.count == direct.children.count, "\(path)")
            let expected = direct.attributes.textContent.flatMap { ExtractiveSummarizer().summary(of: AttributeValue.replacingNUL($0)) }
            #expect(sandboxed.attributes.string(.textContentSummary) == expected, "\(path): summary")
            for key in Set(sandboxed.attributes.keys).union(direct.attributes.keys) where key != .textContentSummary {
                #expect(Self.same(sandboxed.attributes[key], direct.attributes[key]),
                        "\(path): \(key.rawValue): \(String(describing: sandboxed.attributes[key]).prefix(200)) vs \(String(describing: direct.attributes[key]).prefix(200))")
            }
        }
        #expect(compared >= 100)
    }

    /// Equal, dates to the millisecond (the worker's answer is JSON, which rounds them).
    static func same(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        if case .date(let x)? = a, case .date(let y)? = b { return abs(x.timeIntervalSince(y)) < 0.001 }
        return a == b
    }

    /// The regular files below `root`, depth first, in name order.
    static func files(under root: FilePath) -> [FilePath] {
        guard let dir = root.withPlatformString({ opendir($0) }) else { return [] }
        defer { closedir(dir) }
        var found: [FilePath] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name == Array(".".utf8) || name == Array("..".utf8) { continue }
            let child = FilePath(bytes: root.bytes + [0x2F] + name)
            if entry.pointee.d_type == UInt8(DT_DIR) { found += files(under: child) }
            else if entry.pointee.d_type == UInt8(DT_REG) { found.append(child) }
        }
        return found.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }
}
