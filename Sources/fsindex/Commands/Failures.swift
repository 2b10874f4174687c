import ArgumentParser
import Attributes
import CommandSupport
import FoundationEssentials
import Indexing

extension FSIndexCommand {
    struct Failures: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the files whose content could not be extracted, and why.",
            discussion: """
                Each line is PATH, a tab, and the reason: the extractor, then what happened (malformed, \
                encrypted, crashed with a signal, a time, CPU, memory or output limit). These files keep \
                their names and file-system attributes and are searchable by them; they are tried again \
                when they change or when their extractor's version rises.
                Exit status: 0 listed (also when there are none), 2 error.
                """)

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "One JSON object per line: path, extractor, error, indexed.")
        var json = false

        @Option(name: .long, help: "Show only failures of this extractor (pdf, mail, ...).")
        var extractor: String?

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                let failures: [ExtractionFailureRecord]
                failures = try IndexStore(location: location, readOnly: true).extractionFailures()
                let out = Output.standardOutput
                for f in failures where extractor == nil || f.extractor == extractor {
                    let (file, inside) = f.identifier.fileAndKey
                    if json {
                        var a = AttributeSet()
                        a[.extractor] = f.extractor.map(AttributeValue.string)
                        a[.extractionError] = .string(f.error)
                        a["indexed"] = .date(f.indexedAt)
                        if let inside { a["item"] = .string(inside) }
                        out.write(JSONLine.render(path: file, attributes: a) + "\n")
                    } else {
                        var shown = ByteString.escaped(file, escapeControls: out.isTerminal)
                        if let inside { shown += " (\(Output.field(inside)))" }
                        out.write(shown + "\t" + Output.field(f.error) + "\n")
                    }
                }
                out.flush()
            }
        }
    }
}
