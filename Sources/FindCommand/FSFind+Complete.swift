import CommandSupport
import Foundation
import Querying

/// `fsfind --complete TEXT`: the completions of TEXT's last word (`Completer`), one per line,
/// or with `--json` one object per line with the count. fsindexd answers it like any query
/// (`FindService` runs this same command), so a keystroke costs no process start of the index.
extension FSFind {
    /// Completions go to `io`; the status is 0 when there is one, 1 when none, 2 on error.
    func answerCompletions(io: FindIO) -> Int32 {
        do throws(QueryError) {
            let (_, pipeline) = try prepare(io: io)
            guard let engine = pipeline.engine as? QueryEngine else {
                throw QueryError.index("completions read the local index; the shared index (--index-url, [index] url) has none: use --index-dir")
            }
            let completions = try Completer.completions(for: queryText, limit: limit ?? 10, in: engine.store)
            for c in completions {
                if json {
                    io.out.write(Self.json(c) + "\n")
                } else {
                    io.out.write(c.text + "\n")
                }
            }
            io.out.flush()
            return io.finished(completions.isEmpty ? 1 : 0)
        } catch {
            io.errors.report("fsfind", error.description)
            return 2
        }
    }

    /// `{"count":812,"source":"value","text":"kind:pdf"}` (count null for a field name).
    static func json(_ c: Completion) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let text = (try? encoder.encode(c.text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return "{\"count\":\(c.count.map { String($0) } ?? "null"),\"source\":\"\(c.source.rawValue)\",\"text\":\(text)}"
    }
}
