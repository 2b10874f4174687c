import Crawling
import ExtractionModel
import SystemCalls
import SystemPackage

extension ExtractionWorker {
    /// Makes a thumbnail of the regular file `facts` describes, in the worker, with the same
    /// sandbox and limits as an extraction: the file is opened here and passed as a descriptor;
    /// the worker answers PNG bytes, which the caller checks before writing them anywhere
    /// (`PNGFile.describes`). A worker that crashes, hangs or answers nonsense is `.failed`
    /// with the reason, like a file whose extraction failed.
    package func thumbnail(_ facts: FileFacts, _ request: ThumbnailRequest) -> ThumbnailAnswer {
        let descriptor: Int32
        do throws(ExtractionError) { descriptor = try CrawledFile.open(facts).descriptor } catch {
            return .failed(error.description)
        }
        defer { SystemCall.close(descriptor) }
        switch run(.thumbnail, request.encoded(), passing: descriptor) {
        case let .success(_, frame, _):
            guard let answer = ThumbnailAnswer(decoding: frame) else {
                stop()
                return .failed("the worker's answer was malformed")
            }
            return answer
        case let .failure(failure, stage):
            return .failed(stage.map { "\($0): \(failure.description)" } ?? failure.description)
        }
    }
}
