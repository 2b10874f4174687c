import CBLASLoader
import Glibc
import SystemCalls

/// A sentence in, a unit vector of 384 numbers out, near the vectors of sentences that mean the
/// same: all-MiniLM-L6-v2, a 6-layer BERT encoder (22 M weights) trained for sentence
/// similarity, run on the CPU through OpenBLAS.
///
/// A key design decision, measured on the question sets (issue 43): a transformer, not a static
/// table of word vectors. Reordering the first 40 results of a question's any-word stage by
/// closeness to the question lifted hits@10 from 57.5 % to 63.8 % on the dev set and from 46 % to
/// 56 % on the held-out set; wordllama's static vectors (16 MB) moved them by one or two points.
/// The cost is the document side: about 15 ms a short text on one core, paid once per item by the
/// index's background pass; a question costs one short text.
///
/// For example:
/// ```swift
/// let encoder = try SentenceEncoder(folder: ModelLocation.find(environment: env, executable: nil))
/// let v = encoder.embed("pause the program for a few seconds")   // 384 floats, length 1
/// ```
package final class SentenceEncoder: Sendable {
    package static let dimensions = 384
    static let heads = 12, intermediate = 1536, maximumPositions = 512

    package let tokenizer: WordPieceTokenizer
    private let weights: SafeTensors
    private let embeddings: Embeddings
    private let layers: [Layer]

    struct Norm: @unchecked Sendable { let gain, bias: UnsafePointer<Float> }
    struct Linear: @unchecked Sendable {
        let weight, bias: UnsafePointer<Float>
        let inputs, outputs: Int
    }
    struct Embeddings: @unchecked Sendable {
        let words, positions, types: UnsafePointer<Float>
        let norm: Norm
    }
    struct Layer: Sendable {
        let query, key, value, attentionOut: Linear
        let attentionNorm: Norm
        let up, down: Linear
        let outputNorm: Norm
    }

    /// Reads the model in `folder` (`model.safetensors`, `vocab.txt`).
    package init(folder: String) throws(EmbeddingError) {
        tokenizer = try WordPieceTokenizer(vocabulary: Self.readText(folder + "/vocab.txt"))
        let w = try SafeTensors(path: folder + "/model.safetensors")
        weights = w
        let d = Self.dimensions, vocabulary = tokenizer.count
        func norm(_ prefix: String) throws(EmbeddingError) -> Norm {
            Norm(gain: try w.floats(prefix + ".weight", shape: [d]), bias: try w.floats(prefix + ".bias", shape: [d]))
        }
        func linear(_ prefix: String, _ inputs: Int, _ outputs: Int) throws(EmbeddingError) -> Linear {
            Linear(weight: try w.floats(prefix + ".weight", shape: [outputs, inputs]),
                   bias: try w.floats(prefix + ".bias", shape: [outputs]), inputs: inputs, outputs: outputs)
        }
        embeddings = Embeddings(words: try w.floats("embeddings.word_embeddings.weight", shape: [vocabulary, d]),
                                positions: try w.floats("embeddings.position_embeddings.weight", shape: [Self.maximumPositions, d]),
                                types: try w.floats("embeddings.token_type_embeddings.weight", shape: [2, d]),
                                norm: try norm("embeddings.LayerNorm"))
        var layers: [Layer] = []
        var i = 0
        while w.count(prefix: "encoder.layer.\(i).") > 0 {
            let p = "encoder.layer.\(i)."
            layers.append(Layer(query: try linear(p + "attention.self.query", d, d),
                                key: try linear(p + "attention.self.key", d, d),
                                value: try linear(p + "attention.self.value", d, d),
                                attentionOut: try linear(p + "attention.output.dense", d, d),
                                attentionNorm: try norm(p + "attention.output.LayerNorm"),
                                up: try linear(p + "intermediate.dense", d, Self.intermediate),
                                down: try linear(p + "output.dense", Self.intermediate, d),
                                outputNorm: try norm(p + "output.LayerNorm")))
            i += 1
        }
        guard !layers.isEmpty else { throw .malformed(file: w.name, reason: "it has no encoder layers") }
        self.layers = layers
        try Self.loadBLAS()
    }

    /// Loads OpenBLAS (once per process), or says why it cannot be.
    static func loadBLAS() throws(EmbeddingError) {
        var error = [CChar](repeating: 0, count: 512)
        guard fsindex_blas_load(&error, error.count) == 1 else {
            throw .unusable(file: "libopenblas.so.0", reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// The model's vector for `text`: its first `maximumTokens` pieces, averaged over the
    /// encoder's output and scaled to length 1.
    package func embed(_ text: String, maximumTokens: Int = 64) -> [Float] {
        encode(tokenizer.encode(text, maximum: min(maximumTokens, Self.maximumPositions)))
    }

    /// The vector of a sequence of token ids (`[CLS] … [SEP]`).
    func encode(_ ids: [Int32]) -> [Float] {
        let n = ids.count, d = Self.dimensions
        var x = [Float](repeating: 0, count: n * d)
        for (t, id) in ids.enumerated() {
            let word = embeddings.words + Int(id) * d, position = embeddings.positions + t * d
            for j in 0..<d { x[t * d + j] = word[j] + position[j] + embeddings.types[j] }
        }
        Self.layerNorm(&x, rows: n, embeddings.norm)
        var q = [Float](repeating: 0, count: n * d), k = q, v = q, context = q, projected = q
        var up = [Float](repeating: 0, count: n * Self.intermediate)
        var scores = [Float](repeating: 0, count: n * n)
        let headSize = d / Self.heads
        let scale = 1 / Float(headSize).squareRoot()
        for layer in layers {
            Self.apply(layer.query, x, &q, rows: n)
            Self.apply(layer.key, x, &k, rows: n)
            Self.apply(layer.value, x, &v, rows: n)
            for h in 0..<Self.heads {
                let offset = h * headSize
                q.withUnsafeBufferPointer { qp in k.withUnsafeBufferPointer { kp in scores.withUnsafeMutableBufferPointer { sp in
                    fsindex_sgemm(0, 1, Int32(n), Int32(n), Int32(headSize), scale,
                                qp.baseAddress! + offset, Int32(d), kp.baseAddress! + offset, Int32(d), 0, sp.baseAddress!, Int32(n))
                }}}
                Self.softmaxRows(&scores, rows: n)
                scores.withUnsafeBufferPointer { sp in v.withUnsafeBufferPointer { vp in context.withUnsafeMutableBufferPointer { cp in
                    fsindex_sgemm(0, 0, Int32(n), Int32(headSize), Int32(n), 1,
                                sp.baseAddress!, Int32(n), vp.baseAddress! + offset, Int32(d), 0, cp.baseAddress! + offset, Int32(d))
                }}}
            }
            Self.apply(layer.attentionOut, context, &projected, rows: n)
            for i in 0..<(n * d) { x[i] += projected[i] }
            Self.layerNorm(&x, rows: n, layer.attentionNorm)
            Self.apply(layer.up, x, &up, rows: n)
            for i in up.indices { let u = up[i]; up[i] = 0.5 * u * (1 + erff(u * 0.70710678)) }
            Self.apply(layer.down, up, &projected, rows: n)
            for i in 0..<(n * d) { x[i] += projected[i] }
            Self.layerNorm(&x, rows: n, layer.outputNorm)
        }
        var mean = [Float](repeating: 0, count: d)
        for t in 0..<n { for j in 0..<d { mean[j] += x[t * d + j] } }
        var length: Float = 0
        for j in 0..<d { length += mean[j] * mean[j] }
        length = length.squareRoot()
        return length > 0 ? mean.map { $0 / length } : mean
    }

    /// `output = input · weightᵀ + bias`, `rows` rows. A question's few rows go to the small
    /// products of `blas.c`, a text's many to OpenBLAS.
    static func apply(_ f: Linear, _ input: [Float], _ output: inout [Float], rows: Int) {
        input.withUnsafeBufferPointer { ip in output.withUnsafeMutableBufferPointer { op in
            let o = op.baseAddress!
            for r in 0..<rows { (o + r * f.outputs).update(from: f.bias, count: f.outputs) }
            fsindex_sgemm(0, 1, Int32(rows), Int32(f.outputs), Int32(f.inputs), 1,
                        ip.baseAddress!, Int32(f.inputs), f.weight, Int32(f.inputs), 1, o, Int32(f.outputs))
        }}
    }

    static func layerNorm(_ x: inout [Float], rows: Int, _ norm: Norm) {
        let d = dimensions
        for r in 0..<rows {
            var mean: Float = 0, variance: Float = 0
            for j in 0..<d { mean += x[r * d + j] }
            mean /= Float(d)
            for j in 0..<d { let c = x[r * d + j] - mean; variance += c * c }
            let inverse = 1 / (variance / Float(d) + 1e-12).squareRoot()
            for j in 0..<d { x[r * d + j] = (x[r * d + j] - mean) * inverse * norm.gain[j] + norm.bias[j] }
        }
    }

    static func softmaxRows(_ s: inout [Float], rows n: Int) {
        for r in 0..<n {
            var top = -Float.infinity
            for c in 0..<n { top = max(top, s[r * n + c]) }
            var sum: Float = 0
            for c in 0..<n { let e = expf(s[r * n + c] - top); s[r * n + c] = e; sum += e }
            for c in 0..<n { s[r * n + c] /= sum }
        }
    }

    /// A small text file of the model's, with the same trust as the weights.
    static func readText(_ path: String) throws(EmbeddingError) -> String {
        let (fd, _) = try ModelLocation.openTrusted(path)
        defer { SystemCall.close(fd) }
        switch SystemCall.readAll(fd, limit: 16 << 20) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let e): throw .unusable(file: path, reason: "\(e)")
        }
    }
}

extension SentenceEncoder {
    /// The process's encoder, loaded on first use from where the model is installed
    /// (`ModelLocation`), or why it cannot be. Loaded once: a front end that asks many
    /// questions (fsindexd, fsindex-mcp) maps the model once.
    package static let shared: Result<SentenceEncoder, EmbeddingError> = {
        var environment: [String: String] = [:]
        for key in ["FSINDEX_MODEL_DIR", "XDG_DATA_HOME", "HOME"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        do throws(EmbeddingError) {
            return .success(try SentenceEncoder(folder: ModelLocation.find(environment: environment, executable: ModelLocation.executablePath())))
        } catch {
            return .failure(error)
        }
    }()
}
