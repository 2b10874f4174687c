import Crawling
import ExtractionModel
import SystemCalls
import SystemPackage

extension ExtractionWorker {
    /// Reads the words of the regular file `facts` describes with OCR, in the worker, under the
    /// same sandbox as an extraction (the file is opened here and passed as a descriptor). A
    /// worker that crashes, hangs or answers nonsense is `.failed` with the reason.
    package func recognize(_ facts: FileFacts, _ request: RecognitionRequest) -> RecognitionAnswer {
        let descriptor: Int32
        do throws(ExtractionError) { descriptor = try CrawledFile.open(facts).descriptor } catch {
            return .failed(error.description)
        }
        defer { SystemCall.close(descriptor) }
        switch run(.recognize, request.encoded(), passing: descriptor) {
        case let .success(_, frame, _):
            guard let answer = RecognitionAnswer(decoding: frame) else {
                stop()
                return .failed("the worker's answer was malformed")
            }
            return answer
        case let .failure(failure, stage):
            return .failed(stage.map { "\($0): \(failure.description)" } ?? failure.description)
        }
    }
}
