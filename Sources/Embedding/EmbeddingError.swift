/// Why the sentence encoder cannot be used: each case names the file and what to do.
package enum EmbeddingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No model folder where FSIndex looks (`ModelLocation.searched`).
    case notInstalled(searched: [String])
    /// A model file is missing, unreadable, or cannot be trusted (owner, mode).
    case unusable(file: String, reason: String)
    /// A model file is not what the encoder reads (its header, a tensor's type or shape).
    case malformed(file: String, reason: String)

    package var description: String {
        switch self {
        case .notInstalled(let searched):
            return "the sentence model (all-MiniLM-L6-v2) is not installed: looked in \(searched.joined(separator: ", ")); install it with Config/models/fetch-model (or set FSINDEX_MODEL_DIR to its folder), or set [query] semantic = false"
        case .unusable(let file, let reason):
            return "cannot use the sentence model's \(file): \(reason)"
        case .malformed(let file, let reason):
            return "the sentence model's \(file) is not a model FSIndex reads: \(reason); install it again with Config/models/fetch-model"
        }
    }
}
