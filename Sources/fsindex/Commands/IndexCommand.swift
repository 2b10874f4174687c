import Configuration
import Crawling
import ArgumentParser
import CommandSupport
import Embedding
import FoundationEssentials
import ExtractionModel
import Indexing
import LocalIndex
import Querying
import Synchronization
import Updating
import SystemCalls

extension FSIndexCommand {
    struct IndexCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Index folders: crawl them, extract attributes and text, and store them.",
            discussion: """
                Each PATH becomes a root (a domain). Run it again to bring the index up to date:
                only files whose size, times or inode changed are read again, and items whose
                files are gone are removed. A crawl that is interrupted resumes where it stopped.
                Without PATH, the roots of the settings file are indexed (`roots`, and the files
                directly in each of `shallow_roots`); with neither set, the XDG folders of
                user-dirs.dirs (Desktop, Documents, Downloads, Music, Pictures, Videos) and the
                files directly in HOME, less those on network or removable mounts. Every text of 200
                characters or more that is new or changed gets its summary (textContentSummary:
                two or three of its sentences) as it is read; texts that apps donated get theirs
                before the command returns. Last, pictures and PDFs without a text layer are read
                by OCR (Tesseract, at the lowest priority; `[extraction] ocr`), and its time is
                reported apart.

                With a shared index (--index-url, or [index] url in the settings), the roots
                indexed are then published to it as `fsindex publish` sends them: their new,
                changed and removed items, as host --host (else [index] host, else the host name).
                The server is not waited for: when it cannot be reached, the local index keeps
                what was indexed, and `fsindex publish` sends it later.

                Exit status: 0 done, 2 when a root could not be indexed or any file had a problem
                (each is printed on stderr; the rest is indexed), or when the shared index could
                not be reached or refused items.
                """)

        @OptionGroup var store: IndexOptions
        @OptionGroup var host: HostOption

        @Flag(name: .long, help: "Print the summary as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Folders (or files) to index.", valueName: "path"))
        var paths: [String] = []

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let settings = try store.settings()
                // A URL that cannot be used is said before the crawl, not after it.
                _ = try store.sharedURL()
                let roots: [IndexRoot] = try IndexUpdater.roots(given: paths, settings: settings)
                let location = store.location()
                var report: CrawlReport
                do {
                    report = try crawl(settings: settings, roots: roots, location: location, forceRebuild: false)
                } catch let e as UpdateError {
                    // Damage met while working: move the database aside and rebuild it once.
                    guard case .index(.corrupt) = e else { throw reportFailure(e) }
                    do { report = try crawl(settings: settings, roots: roots, location: location, forceRebuild: true) } catch {
                        throw reportFailure(error)
                    }
                }
                if json {
                    Output.standardOutput.writeJSONLine(report)
                } else {
                    let mib = Double(report.bytes) / 1_048_576
                    Output.standardOutput.write(
                        "indexed \(report.roots.joined(separator: ", ")): \(report.seen) entries, \(report.indexed) read (\(String(format1(mib))) MiB), "
                            + "\(report.unchanged) unchanged, \(report.removed) removed, \(report.problems) problems in \(format1(report.seconds)) s"
                            + (report.summarized > 0 ? "; \(report.summarized) summarized" : "")
                            + (report.recognized + report.recognitionSkipped > 0
                                ? "; OCR: \(report.recognized) read, \(report.recognitionSkipped) skipped in \(format1(report.recognitionSeconds)) s" : "")
                            + (report.embedded > 0 ? "; by meaning: \(report.embedded) read in \(format1(report.meaningSeconds)) s" : "")
                            + "\n")
                }
                Output.standardOutput.flush()
                try PublishAfterward.run(store, host: host, domains: Set(roots.map { IndexUpdater.domainName($0.path) }), quiet: json)
                if report.problems > 0 { throw ExitCode(2) }
            }
        }

        private func reportFailure(_ error: any Error) -> ExitCode {
            Output.error("fsindex", "\(error)")
            return ExitCode(2)
        }

        /// Opens the index (repairing a damaged one), runs the index's own reindex requests, then
        /// crawls the roots.
        private func crawl(settings: Settings, roots: [IndexRoot], location: IndexLocation,
                           forceRebuild: Bool) throws -> CrawlReport {
            let indexStore: IndexStore
            let opened = try IndexStore.openRecovering(location: location, forceRebuild: forceRebuild)
            indexStore = opened.store
            if opened.rebuilt {
                Output.error("fsindex", "the index at \(location.directory.string) was damaged; it was moved aside and is rebuilt from the files")
            }
            let progress = ProgressLine(enabled: Output.standardError.isTerminal)
            let updater = IndexUpdater(store: indexStore, settings: settings, progress: { p in
                progress.show(p)
            }, problem: { p in
                progress.clear()
                Output.error("fsindex", p.description)
            })
            // Apps' domains the index lost (a rebuild) and their expired items are asked for again
            // (noted before maintenance purges the expired ones; run after the crawl).
            let providers = ProviderRequests(store: indexStore, providers: settings.providers, indexDirectory: location.directory)
            _ = try? providers.noteWhatIsMissing()
            // What the index asks for by itself (rebuild after a repair or a schema change, items of
            // an older extractor, expired items), through the same reindex handler.
            do {
                _ = try indexStore.performMaintenance(extractorVersions: ExtractionVersions.forIndex,
                                                      handler: Reindexer(updater: updater, roots: roots),
                                                      log: { Output.error("fsindex", $0) })
            } catch {
                progress.clear()
                if let e = error as? IndexError { throw UpdateError.index(e) }
                throw error
            }
            var report: CrawlReport
            do { report = try updater.crawl(roots: roots) } catch {
                progress.clear()
                throw error
            }
            // The files' summaries came with their texts; what is left pending (apps' donated
            // texts, an older index's) is summarized before returning.
            do {
                let summaries = try SummaryPass(store: indexStore).runAll(threads: settings.index.threads)
                report.summarized += summaries.summarized
                report.summarySeconds = summaries.seconds
                // Each batch rewrote its rows of the full-text table: compact it again, as the
                // crawl did (about 3 s for the bench corpus's 1 GB index).
                if summaries.summarized > 5000 {
                    do { try indexStore.optimize() } catch { throw UpdateError.index(error) }
                }
                // Mail's isPriority needs the mail across files (who "me" writes to): decided now.
                _ = try PriorityPass(store: indexStore, settings: settings).runAll()
                // OCR last, at the lowest priority, its time apart (issue 28), after the crawl's
                // caches are given back: the OCR worker's own memory must not add to them (41).
                switch RecognitionPass.configured(store: indexStore, settings: settings) {
                case .success(let pass)?:
                    indexStore.releaseMemory()
                    SystemCall.returnFreedMemory()
                    let ocr = try pass.runAll()
                    report.recognized = ocr.recognized
                    report.recognitionSkipped = ocr.skipped
                    report.recognitionSeconds = ocr.seconds
                case .failure(let problem)?:
                    // Said when it matters: there are pictures or scans to read.
                    if (try? indexStore.pendingRecognitionCount()) ?? 0 > 0 {
                        progress.clear()
                        Output.error("fsindex", problem.description)
                    }
                case nil:
                    break
                }
                // What files are about, as vectors (issue 43), last: on one core.
                if settings.query.semantic {
                    switch SentenceEncoder.shared {
                    case .success(let encoder):
                        let meaning = try MeaningPass(store: indexStore, encoder: encoder).runAll()
                        report.embedded = meaning.embedded
                        report.meaningSeconds = meaning.seconds
                    case .failure(let problem):
                        // Said on a terminal; `fsindex status` and `fsfind --explain` say it too.
                        if progress.enabled, (try? indexStore.pendingMeaningCount()) ?? 0 > 0 {
                            progress.clear()
                            Output.error("fsindex", "questions rank by their words only: \(problem)")
                        }
                    }
                }
            } catch {
                progress.clear()
                throw error
            }
            progress.clear()
            // With fsindexd running, it runs the providers' commands itself.
            if !settings.providers.isEmpty, !DaemonOrIndexRepair.daemonRuns(for: location) {
                do {
                    for r in try providers.runDue() where r.error != nil {
                        Output.error("fsindex", "provider \(r.domain): \(r.error ?? ""); it is asked again later (see `fsindex status`)")
                    }
                } catch {
                    Output.error("fsindex", "providers: \(error)")
                }
            }
            return report
        }
    }
}

func format1(_ x: Double) -> String {
    let r = (x * 10).rounded() / 10
    return String(r)
}

import SystemPackage

/// The one-line progress display on a terminal: files seen, indexed, rate. Nothing when stderr is
/// not a terminal.
final class ProgressLine: Sendable {
    let enabled: Bool
    private let shown = Mutex(false)
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ p: CrawlProgress) {
        guard enabled else { return }
        let rate = p.elapsed > 0 ? Int(Double(p.indexed) / p.elapsed) : 0
        let line = "\r\u{1B}[K\(p.phase.rawValue): \(p.seen) seen, \(p.indexed)/\(p.toIndex) indexed, \(rate)/s"
        shown.withLock { s in
            Output.standardError.write(line)
            Output.standardError.flush()
            s = true
        }
    }

    func clear() {
        guard enabled else { return }
        shown.withLock { s in
            if s {
                Output.standardError.write("\r\u{1B}[K")
                Output.standardError.flush()
                s = false
            }
        }
    }
}
