import Foundation
import SystemPackage

/// The seed corpus of `fsindex-fuzz` (`Tests/Fuzz/corpus/TARGET/NAME`), where each input that
/// once crashed a parser is kept as `crash-…`. The regression test of each fix replays its
/// input from here, so the corpus and the tests cannot drift apart.
package enum FuzzCorpus {
    /// `<checkout>/Tests/Fuzz/corpus`, found from this source file (`Tests/TestSupport/…`).
    package static var root: FilePath {
        FilePath(#filePath).removingLastComponent().removingLastComponent().appending("Fuzz/corpus")
    }

    /// The bytes of one input, e.g. `input("short-query/crash-name-nul")`.
    package static func input(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: root.appending(relative).string)))
    }
}
