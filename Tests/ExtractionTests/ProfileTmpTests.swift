import Attributes
import Crawling
@testable import Extraction
import FoundationEssentials
import SystemPackage
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Test func profileTmp() throws {
    let files = Array(regularFiles(below: "/usr/share/doc").prefix(3000))
    let facts = files.compactMap { try? FileFacts.read($0) }
    var blobs: [[UInt8]] = []
    let clock = ContinuousClock()
    let tRead = clock.measure {
        for f in facts {
            let fd = f.path.withPlatformString { open($0, O_RDONLY) }
            var b = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &b, 65536); close(fd)
            blobs.append(Array(b[0..<max(n, 0)]))
        }
    }
    let magic = try MagicDatabase()
    var mimes: [String: Int] = [:]
    let tMagic = clock.measure { for b in blobs { mimes[magic.identify(b)?.mimeType ?? "nil", default: 0] += 1 } }
    let det = TypeDetector()
    let tDetect = clock.measure { for (i, b) in blobs.enumerated() { _ = det.detect(name: facts[i].path.lastComponent.map(FilePathBytes.of) ?? [], magic: ("text/plain", "us-ascii"), isEmpty: b.isEmpty) } }
    let tText = clock.measure { for b in blobs { if let d = TextDecoding.decode(b[...], isComplete: true) { _ = TextDecoding.capped(d.text, toUTF8Bytes: 1 << 20) } } }
    var names = UserNameCache()
    let tFS = clock.measure { for f in facts { _ = FileSystemExtractor().attributes(of: f, names: &names) } }
    print("PROFILE read \(tRead) magic \(tMagic) detect \(tDetect) text \(tText) fs \(tFS) total bytes \(blobs.reduce(0) { $0 + $1.count })")
    print("PROFILE mimes \(mimes.sorted { $0.value > $1.value }.prefix(8))")
}
