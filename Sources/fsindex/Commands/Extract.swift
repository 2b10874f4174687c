import Configuration
import ArgumentParser
import Attributes
import CommandSupport
import Crawling
import ExtractionModel
import FoundationEssentials
import Isolation
import SystemCalls
import SystemPackage
import Updating

extension FSIndexCommand {
    struct Extract: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extract one file's attributes without storing them (like mdimport -t -d2).",
            discussion: """
                Runs the same sandboxed worker as `fsindex index` and shows each stage that ran \
                (file system, type detection, the content extractor), its time, the attributes it \
                set, and the resulting attribute set. Nothing is written to the index.
                Exit status: 0 extracted, 2 the file could not be read or its extraction failed.
                """)

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Print one JSON object per file: path, stages, problems, attributes.")
        var json = false

        @Flag(name: .long, help: "Print the whole text content instead of its first 200 characters.")
        var fullText = false

        @Argument(help: ArgumentHelp("The files.", valueName: "path"))
        var paths: [String]

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let settings = try store.settings()
                let worker = ExtractionWorker(executable: try WorkerExecutable.locate(), limits: settings.workerLimits)
                let out = Output.standardOutput
                var failed = false
                for path in paths {
                    let bytes = PathArgument.absolute(path)
                    let facts: FileFacts
                    do { facts = try FileFacts.read(FilePath(bytes: bytes)) } catch {
                        Output.error("fsindex", "\(ByteString.escaped(bytes, escapeControls: true)): \(String(describing: error))")
                        failed = true
                        continue
                    }
                    let start = ContinuousClock.now
                    var r = worker.extract(facts, textCap: settings.index.textCap)
                    // Tags, comment, origin and rating: read here, as `fsindex index` reads them.
                    let metadataStart = ContinuousClock.now
                    let metadata = ExtendedAttributeMetadata.read(facts.path)
                    r.attributes.merge(metadata.attributes)
                    r.trace.append(ExtractorRun(name: "xattrs", seconds: seconds(ContinuousClock.now - metadataStart),
                                                keys: metadata.attributes.keys))
                    let total = ContinuousClock.now - start
                    if !r.problems.isEmpty { failed = true }
                    if json {
                        out.write(render(json: r, notes: metadata.notes, path: bytes, total: total) + "\n")
                    } else {
                        out.write(ByteString.escaped(bytes, escapeControls: out.isTerminal) + "\n")
                        let width = max(10, r.trace.map(\.name.count).max() ?? 0)
                        for stage in r.trace {
                            out.write("  " + stage.name.padding(width) + "  " + milliseconds(stage.seconds).leftPadded(9) + "  "
                                      + stage.keys.map(\.rawValue).joined(separator: ", ") + "\n")
                        }
                        out.write("  " + "total".padding(width) + "  " + milliseconds(seconds(total)).leftPadded(9)
                                  + "  (in a sandboxed worker, its start included)\n")
                        for p in r.problems { out.write("  problem: \(Output.field("\(p)"))\n") }
                        for n in metadata.notes { out.write("  note: \(Output.field(n))\n") }
                        for child in r.children {
                            out.write("  inside: \(Output.field(child.key))  \(Output.field(child.attributes.title ?? child.attributes.string(.name) ?? ""))\n")
                        }
                        let attributes = r.attributes
                        let keyWidth = attributes.keys.map(\.rawValue.count).max() ?? 0
                        for key in attributes.keys {
                            var value = attributes[key]!.displayText
                            if key == .textContent && !fullText && value.count > 200 { value = String(value.prefix(200)) + "…" }
                            value = Output.field(value)
                            out.write("  " + key.rawValue.padding(keyWidth) + " = " + value + "\n")
                        }
                    }
                }
                out.flush()
                if failed { throw ExitCode(2) }
            }
        }

        private func render(json r: ExtractionResult, notes: [String], path: [UInt8], total: Duration) -> String {
            struct Stage: Encodable { var name: String; var milliseconds: Double; var attributes: [String] }
            struct Child: Encodable { var key: String; var attributes: AttributeSet }
            struct Body: Encodable {
                var path: String
                var pathBase64: String?
                var stages: [Stage]
                var milliseconds: Double
                var problems: [String]
                /// What was left out of the extended attributes (a rating that is not 0-10).
                var notes: [String]
                var attributes: AttributeSet
                var items: [Child]
            }
            let body = Body(path: ByteString.escaped(path),
                            pathBase64: ByteString.isValidUTF8(path) ? nil : Data(path).base64EncodedString(),
                            stages: r.trace.map { Stage(name: $0.name, milliseconds: ($0.seconds * 1e6).rounded() / 1e3,
                                                        attributes: $0.keys.map(\.rawValue)) },
                            milliseconds: (seconds(total) * 1e6).rounded() / 1e3,
                            problems: r.problems.map(\.description), notes: notes, attributes: r.attributes,
                            items: r.children.map { Child(key: $0.key, attributes: $0.attributes) })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }

        private func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }

        private func milliseconds(_ s: Double) -> String {
            let ms = s * 1000
            return (ms < 10 ? decimal(ms, digits: 2) : decimal(ms, digits: 1)) + " ms"
        }
    }
}

/// `value` with `digits` decimals, without Foundation's format strings.
func decimal(_ value: Double, digits: Int) -> String {
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let scaled = (abs(value) * p).rounded()
    let whole = Int(scaled / p)
    let fracText = String(Int(scaled - Double(whole) * p))
    return (value < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: max(0, digits - fracText.count)) + fracText
}
