import Attributes
import Crawling
import Extraction
import ExtractionModel
import SystemPackage
import TestSupport
import Glibc

/// Extracts one file with a fresh context (tests run in parallel; contexts are per thread).
func extract(_ path: FilePath, textCap: Int = 1 << 20) throws -> ExtractionResult {
    let context = try ExtractionContext(options: ExtractionOptions(textCap: textCap))
    return context.extract(try FileFacts.read(path))
}

/// Extracts a file of the shared real-document corpus.
func extractReal(_ relative: String, textCap: Int = 1 << 20) throws -> ExtractionResult {
    try extract(RealCorpus.file(relative), textCap: textCap)
}

/// Every regular file below a directory, as byte-exact paths.
func regularFiles(below root: FilePath) -> [FilePath] {
    var out: [FilePath] = []
    var pending = [root]
    while let dir = pending.popLast() {
        guard let d = dir.withPlatformString({ opendir($0) }) else { continue }
        defer { closedir(d) }
        while let entry = readdir(d) {
            let name: FilePath.Component? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                raw.withMemoryRebound(to: CChar.self) { FilePath.Component(platformString: $0.baseAddress!) }
            }
            guard let name, name.kind == .regular else { continue }
            let child = dir.appending(name)
            guard let facts = try? FileFacts.read(child) else { continue }
            if facts.type == .directory { pending.append(child) } else if facts.type == .regular { out.append(child) }
        }
    }
    return out.sorted { $0.string < $1.string }
}
