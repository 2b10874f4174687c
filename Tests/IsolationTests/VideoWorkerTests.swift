import Attributes
import Crawling
import Extraction
import ExtractionModel
import FoundationEssentials
import SystemPackage
import Testing
import TestSupport
@testable import Isolation

/// Videos through the sandboxed worker (issue 28): libavformat is loaded there on the first
/// media file, under Landlock and seccomp, and reads the file through the descriptor the
/// parent passed. Its answers must be the in-process extraction's, value for value.
@Suite("Video in the sandboxed worker", .blocking, .needsFFmpeg)
struct VideoWorkerTests {
    @Test("a generated MP4 and Matroska file give the same attributes in the worker as in-process")
    func sameAsInProcess() throws {
        let tree = try TemporaryTree(prefix: "fsindex-video-worker")
        let mp4 = try VideoFixture.make(VideoFixture.mp4, in: tree.root.string)
        let mkv = try VideoFixture.makeMatroska(in: tree.root.string)
        let aac = try VideoFixture.make(VideoFixture.audio[1], in: tree.root.string)
        let cut = try tree.create("cut.mp4", bytes: try readPrefix(mp4, 4000))
        let worker = ExtractionWorker(executable: try workerPath())
        let context = try ExtractionContext()
        for path in [FilePath(mp4), FilePath(mkv), FilePath(aac), cut] {
            let facts = try FileFacts.read(path)
            let sandboxed = worker.extract(facts, textCap: 1 << 20)
            let direct = context.extract(facts, textCap: 1 << 20)
            #expect(sandboxed.extractor == "video", "\(path)")
            #expect(sandboxed.problems == direct.problems, "\(path): \(sandboxed.problems) vs \(direct.problems)")
            for key in Set(sandboxed.attributes.keys).union(direct.attributes.keys) where key != .textContentSummary {
                #expect(SandboxCorpusTests.same(sandboxed.attributes[key], direct.attributes[key]),
                        "\(path): \(key.rawValue): \(String(describing: sandboxed.attributes[key])) vs \(String(describing: direct.attributes[key]))")
            }
        }
        let a = worker.extract(try FileFacts.read(FilePath(mp4)), textCap: 1 << 20).attributes
        #expect(a.title == "Harbour at dawn")
        #expect(a.integer(.pixelWidth) == 320)
        #expect(a.strings(.codecs) == ["h264", "aac"])
        let m = worker.extract(try FileFacts.read(FilePath(mkv)), textCap: 1 << 20).attributes
        #expect(m.strings(.chapters) == ["0:00:00 Opening", "0:00:01 The bridge"])
        #expect(m.strings(.subtitleLanguages) == ["deu", "fra"])
        let c = worker.extract(try FileFacts.read(cut), textCap: 1 << 20)
        #expect(c.problems.map(\.description) == ["video: not a container libavformat reads: moov atom not found"])
    }

    func readPrefix(_ path: String, _ count: Int) throws -> [UInt8] {
        guard let f = fopen(path, "rb") else { throw VideoFixture.Failure(message: "cannot open \(path)") }
        defer { fclose(f) }
        var out = [UInt8](repeating: 0, count: count)
        let n = fread(&out, 1, count, f)
        return Array(out.prefix(n))
    }
}

import Glibc
