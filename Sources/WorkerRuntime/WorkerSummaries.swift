import Attributes
import ExtractionModel
import Summarizing

/// Makes each text's `textContentSummary` in the worker, where the text already is.
///
/// A key design decision (issue 23): the summary is made during extraction rather than by a pass
/// over the stored text afterwards. That pass read every text back out of the index (inflating
/// it) and rewrote each summarized row's full-text columns, which FTS5 does by deleting the row's
/// words and tokenizing the whole text again: on the bench corpus 48 s after a 99 s crawl, and
/// several GB of writes. Here the summary costs only the summarizer's own CPU, in the worker
/// processes that run beside each other, and the item is written once with it.
///
/// The summary is made from the text exactly as the index will store it (a NUL becomes a space
/// there, `AttributeSet.replacingNUL`), so it is the summary the pass would have made. Items
/// inside the file (an mbox's messages) get theirs the same way. A summary the extractor found
/// in the file itself is kept.
enum WorkerSummaries {
    static let summarizer = ExtractiveSummarizer()

    static func adding(to result: ExtractionResult) -> ExtractionResult {
        var r = result
        summarize(&r.attributes)
        for i in r.children.indices { summarize(&r.children[i].attributes) }
        return r
    }

    static func summarize(_ attributes: inout AttributeSet) {
        guard attributes[.textContentSummary] == nil, let text = attributes.textContent,
              ExtractiveSummarizer.qualifies(text) else { return }
        if let summary = summarizer.summary(of: AttributeValue.replacingNUL(text)) {
            attributes[.textContentSummary] = .string(summary)
        }
    }
}
