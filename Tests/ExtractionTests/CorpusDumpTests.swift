import Attributes
import Extraction
import Testing
import TestSupport
import Foundation

@Test func dumpCorpus() throws {
    for path in regularFiles(below: RealCorpus.root) {
        let r = try extract(path)
        let a = r.attributes
        print("\(path.string.dropFirst(RealCorpus.root.string.count + 1)) | \(a.string(.mimeType) ?? "-") | \(a.contentType?.rawValue ?? "-") | \(a.kind ?? "-") | enc=\(a.string(.encoding) ?? "-") | title=\(a.title ?? "-") | text=\(a.textContent.map { String($0.prefix(60)).replacingOccurrences(of: "\n", with: "⏎") } ?? "-") | \(r.problems)")
    }
}
