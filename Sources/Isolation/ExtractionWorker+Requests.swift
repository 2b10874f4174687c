import Crawling
import ExtractionModel
import SystemCalls
import SystemPackage

/// A worker's answer to a request about one file, other than an extraction: what it decodes
/// from, and what stands for a failure (the worker crashed, hung, answered nonsense).
package protocol WorkerAnswer {
    init?(decoding bytes: [UInt8])
    static func failed(_ why: String) -> Self
}

extension RecognitionAnswer: WorkerAnswer {}
extension ThumbnailAnswer: WorkerAnswer {}

extension ExtractionWorker {
    /// Reads the words of the regular file `facts` describes with OCR, in the worker, under the
    /// same sandbox as an extraction.
    package func recognize(_ facts: FileFacts, _ request: RecognitionRequest) -> RecognitionAnswer {
        ask(.recognize, request.encoded(), about: facts)
    }

    /// Makes a thumbnail of the regular file `facts` describes, in the worker, with the same
    /// sandbox and limits as an extraction. The worker answers PNG bytes, which the caller
    /// checks before writing them anywhere (`PNGFile.describes`).
    package func thumbnail(_ facts: FileFacts, _ request: ThumbnailRequest) -> ThumbnailAnswer {
        ask(.thumbnail, request.encoded(), about: facts)
    }

    /// One request about a regular file: the file is opened here and passed as a descriptor
    /// (the worker opens nothing by name); a worker that crashes, hangs or answers nonsense is
    /// `.failed` with the reason, like a file whose extraction failed, and a malformed answer
    /// retires the worker.
    private func ask<Answer: WorkerAnswer>(_ kind: FrameKind, _ payload: [UInt8], about facts: FileFacts) -> Answer {
        let descriptor: Int32
        do throws(ExtractionError) { descriptor = try CrawledFile.open(facts).descriptor } catch {
            return .failed(error.description)
        }
        defer { SystemCall.close(descriptor) }
        switch run(kind, payload, passing: descriptor) {
        case let .success(_, frame, _):
            guard let answer = Answer(decoding: frame) else {
                stop()
                return .failed("the worker's answer was malformed")
            }
            return answer
        case let .failure(failure, stage):
            return .failed(stage.map { "\($0): \(failure.description)" } ?? failure.description)
        }
    }
}
