@testable import Embedding
import Foundation
import Glibc
import TestSupport
import Testing

/// The tokenizer and the encoder against Hugging Face's (`tokenizers` 0.23 with the model's
/// tokenizer.json; the encoder's figures from a float32 NumPy run of the same weights), and the
/// model files' checks.
@Suite struct SentenceEncoderTests {
    static func tokenizer(_ pieces: [String]) throws -> WordPieceTokenizer {
        try WordPieceTokenizer(vocabulary: pieces.joined(separator: "\n") + "\n")
    }

    @Test func wordPiecesAreTheLongestFirstAndAWordWithoutPiecesIsUnknown() throws {
        let t = try Self.tokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "hello", ",", "!", "cafe", "東", "京"])
        // [CLS] un ##aff ##able , hello ! [SEP]
        #expect(t.encode("Unaffable, HELLO!") == [2, 4, 5, 6, 8, 7, 9, 3])
        // Accents go, ideographs are words of their own, a word without pieces is [UNK].
        #expect(t.encode("Café 東京 xyzzy") == [2, 10, 11, 12, 1, 3])
        // At most `maximum` ids, [SEP] kept.
        #expect(t.encode("hello hello hello hello", maximum: 4) == [2, 7, 7, 3])
        #expect(t.encode("") == [2, 3])
    }

    @Test func aVocabularyWithoutItsSpecialPiecesIsRefused() {
        #expect(throws: EmbeddingError.self) { try Self.tokenizer(["a", "b"]) }
    }

    @Test(.sentenceModel) func theModelsTokensAreHuggingFaces() throws {
        let encoder = try SentenceEncoder(folder: SentenceModelFixture.folder.get())
        let t = encoder.tokenizer
        #expect(t.encode("How do I pause the program for a few seconds?") == [101, 2129, 2079, 1045, 8724, 1996, 2565, 2005, 1037, 2261, 3823, 1029, 102])
        #expect(t.encode("A hash map implemented with quadratic probing") == [101, 1037, 23325, 4949, 7528, 2007, 17718, 23671, 28664, 102])
        #expect(t.encode("Café naïve résumé: Unaffable 東京 tokens!") == [101, 7668, 15743, 13746, 1024, 14477, 20961, 3468, 1879, 1755, 19204, 2015, 999, 102])
    }

    @Test(.sentenceModel) func theVectorsAreTheReferences() throws {
        let encoder = try SentenceEncoder(folder: SentenceModelFixture.folder.get())
        let question = encoder.embed("How do I pause the program for a few seconds?")
        let sleep = encoder.embed("std::thread::sleep puts the current thread to sleep for at least the specified amount of time.")
        let map = encoder.embed("A hash map implemented with quadratic probing")
        #expect(question.count == SentenceEncoder.dimensions)
        func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }
        #expect(abs(dot(question, question) - 1) < 1e-4)
        #expect(abs(dot(question, sleep) - 0.2375) < 2e-3)
        #expect(abs(dot(question, map) - -0.0103) < 2e-3)
        for (got, want) in zip(question.prefix(6), [0.0166, 0.045, -0.0805, -0.0398, 0.0075, 0.0875] as [Float]) {
            #expect(abs(got - want) < 1e-3)
        }
        // Stored as bytes, the closeness moves by less than a hundredth.
        let stored = StoredVector.encode(sleep)
        #expect(stored.count == SentenceEncoder.dimensions + 4)
        let close = try #require(StoredVector.closeness(question, stored))
        #expect(abs(close - dot(question, sleep)) < 0.01)
        #expect(StoredVector.closeness(question, Array(stored.dropLast())) == nil)
    }

    @Test func malformedOrUntrustedModelFilesAreErrorsThatNameTheFile() throws {
        let dir = try TemporaryTree()
        let path = dir.path("model.safetensors").string
        func write(_ bytes: [UInt8], mode: mode_t = 0o644) throws {
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            chmod(path, mode)
        }
        func header(_ json: String, data: Int) -> [UInt8] {
            // Padded with spaces to a multiple of 8, as the format's writers do.
            let h = Array(json.utf8) + [UInt8](repeating: 0x20, count: (8 - json.utf8.count % 8) % 8)
            return withUnsafeBytes(of: UInt64(h.count).littleEndian, Array.init) + h + [UInt8](repeating: 0, count: data)
        }
        func refusal() -> String? {
            do { _ = try SafeTensors(path: path).floats("w", shape: [2]); return nil } catch { return error.description }
        }
        try write(Array("short".utf8))
        #expect(refusal()?.contains("5 bytes long") == true)
        try write(withUnsafeBytes(of: UInt64(1 << 20).littleEndian, Array.init) + [UInt8](repeating: 0, count: 16))
        #expect(refusal()?.contains("does not fit") == true)
        // A length whose low 31 bits fit the file is still the length it says.
        try write(withUnsafeBytes(of: (UInt64(1) << 32 | 16).littleEndian, Array.init) + [UInt8](repeating: 0x20, count: 24))
        #expect(refusal()?.contains("header length 4294967312 does not fit its 32 bytes") == true, "\(refusal() ?? "")")
        try write(header(#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,800]}}"#, data: 8))
        #expect(refusal()?.contains("within the file") == true)
        try write(header(#"{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#, data: 4))
        #expect(refusal()?.contains("not F32") == true)
        try write(header(#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}}"#, data: 12))
        #expect(refusal()?.contains("shape [3]") == true)
        try write(header("not json", data: 8))
        #expect(refusal()?.contains("not JSON") == true)
        let good = header(#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#, data: 8)
        try write(good)
        #expect(refusal() == nil)
        try write(good, mode: 0o666)
        #expect(refusal()?.contains("others may write it") == true)
    }

    @Test func theModelIsLookedForWhereItIsInstalled() {
        let folders = ModelLocation.candidates(environment: ["HOME": "/home/ann", "FSINDEX_MODEL_DIR": "/opt/m"], executable: "/usr/bin/fsindex")
        #expect(folders == ["/opt/m", "/home/ann/.local/share/fsindex/models/all-MiniLM-L6-v2",
                            "/usr/bin/../share/fsindex/models/all-MiniLM-L6-v2"])
        #expect(ModelLocation.candidates(environment: ["HOME": "/home/ann", "XDG_DATA_HOME": "/data"], executable: nil)
                == ["/data/fsindex/models/all-MiniLM-L6-v2"])
        #expect(throws: EmbeddingError.self) { try ModelLocation.find(environment: ["HOME": "/nonexistent"], executable: nil) }
    }
}

/// The encoder's matrix products against a plain loop in double precision: a question's few
/// rows (up to 16) take the small kernels of `blas.c`, more rows OpenBLAS; both must agree with
/// the loop, for widths that are and are not multiples of the kernels' four outputs.
@Suite struct MatrixProductTests {
    static var blas: Bool { (try? SentenceEncoder.loadBLAS()) != nil }

    @Test(.enabled(if: blas, "OpenBLAS (libopenblas0) is not installed"))
    func smallAndLargeProductsAreTheLoops() throws {
        var rng = SplitMix64(seed: 7)
        for (inputs, outputs) in [(384, 384), (384, 1536), (1536, 384), (32, 13), (48, 7)] {
            let weight = (0..<(inputs * outputs)).map { _ in Float.random(in: -1...1, using: &rng) }
            let bias = (0..<outputs).map { _ in Float.random(in: -1...1, using: &rng) }
            for rows in [1, 2, 3, 4, 5, 9, 16, 17, 40] {
                let input = (0..<(rows * inputs)).map { _ in Float.random(in: -1...1, using: &rng) }
                var got = [Float](repeating: 0, count: rows * outputs)
                weight.withUnsafeBufferPointer { w in bias.withUnsafeBufferPointer { b in
                    SentenceEncoder.apply(.init(weight: w.baseAddress!, bias: b.baseAddress!, inputs: inputs, outputs: outputs), input, &got, rows: rows)
                }}
                var worst = 0.0
                for r in 0..<rows {
                    for o in 0..<outputs {
                        var sum = Double(bias[o])
                        for i in 0..<inputs { sum += Double(input[r * inputs + i]) * Double(weight[o * inputs + i]) }
                        worst = max(worst, abs(sum - Double(got[r * outputs + o])))
                    }
                }
                #expect(worst < 1e-3, "\(rows) × \(inputs) → \(outputs): off by \(worst)")
            }
        }
    }
}
