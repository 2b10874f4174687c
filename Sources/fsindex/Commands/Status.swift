import ArgumentParser
import Attributes
import CommandSupport
import Embedding
import Configuration
import Controlling
import Crawling
import FoundationEssentials
import Indexing
import Isolation
import SharedIndex
import SystemPackage
import Updating

extension FSIndexCommand {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the index: roots, item counts per root and per kind, size, last crawl.")

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Print one JSON object.")
        var json = false

        func run() throws {
            try ToolRun.reporting("fsindex") {
                if store.indexDir == nil, let url = try sharedURLOrExit() {
                    try sharedStatus(url)
                    return
                }
                let location = store.location()
                let status: IndexStatus
                let apps: [DonatedDomain]
                let requests: [ProviderRequest]
                let opened = try IndexStore(location: location, readOnly: true)
                status = try opened.status()
                apps = try opened.donatedDomains()
                requests = try opened.providerRequests()
                // The daemon's view, when one runs for this index.
                var daemon: DaemonStatus?
                if let client = try connectDaemon(location),
                   case .status(let d)? = try? client.request(.status, timeout: .seconds(5)) {
                    daemon = d
                }
                // Whether workers can confine their reads: a missing layer is said, never hidden.
                let confinement = ReadConfinement.current
                // Whether questions rank by meaning, or why not: said, never hidden.
                let semantic: String = {
                    guard (try? store.settings())?.query.semantic ?? true else { return "off: [query] semantic = false" }
                    switch SentenceEncoder.shared {
                    case .success: return "on, \(ModelLocation.name); read by fsindexd in the background, or by `fsindex index`"
                    case .failure(let problem): return "off: \(problem)"
                    }
                }()
                let out = Output.standardOutput
                if json {
                    struct Root: Encodable {
                        var domain: String, items: Int, lastCrawlStarted: String?, lastCrawlFinished: String?, lastCrawlProblems: Int?
                        /// `recursive`, or `files-only` (a `shallow_roots` entry: no subfolder).
                        var depth: String
                    }
                    struct Body: Encodable {
                        var index: String, items: Int, bytes: Int64, roots: [Root], kinds: [String: Int], clientState: String?
                        var failures: [String: Int]
                        var itemsInsideFiles: Int
                        /// Items waiting for their `textContentSummary`.
                        var summariesPending: Int
                        /// Pictures and scanned PDFs waiting for OCR.
                        var ocrPending: Int
                        /// Questions by meaning (issue 43): items with a vector, items waiting for
                        /// the semantic pass, and whether it is on or why not.
                        var meaning: Meaning
                        var daemon: DaemonStatus?
                        /// The Landlock ABI extraction workers confine their reads with; absent without Landlock.
                        var landlockABI: Int32?
                        var sandbox: String
                        /// Apps' domains (`fsindex donate`) and what their providers owe.
                        var apps: [App]
                        var providerRequests: [ProviderRequest]
                        /// fsindexd's control socket for this index, where apps send `donate` requests.
                        var socket: String
                        /// The volumes indexed (issue 29), mounted or offline.
                        var volumes: [VolumeRow]
                    }
                    struct App: Encodable { var domain: String, items: Int, clientState: String?, lastBatch: String? }
                    struct Meaning: Encodable { var items: Int, pending: Int, state: String }
                    let body = Body(
                        index: location.directory.string, items: status.itemCount, bytes: status.databaseBytes,
                        roots: status.domains.map {
                            Root(domain: $0.name, items: $0.itemCount, lastCrawlStarted: $0.lastCrawlStarted.map(AttributeValue.iso8601),
                                 lastCrawlFinished: $0.lastCrawlFinished.map(AttributeValue.iso8601), lastCrawlProblems: $0.lastCrawlProblems,
                                 depth: IndexUpdater.recordedDepth(in: opened, domain: $0.name).rawValue)
                        },
                        kinds: Dictionary(status.kinds.map { ($0.kind, $0.count) }, uniquingKeysWith: +),
                        clientState: status.clientState.map { String(decoding: $0, as: UTF8.self) },
                        failures: Dictionary(status.failures.map { ($0.extractor, $0.count) }, uniquingKeysWith: +),
                        itemsInsideFiles: status.innerItemCount, summariesPending: status.summariesPending,
                        ocrPending: status.recognitionsPending,
                        meaning: Meaning(items: status.meanings, pending: status.meaningsPending, state: semantic), daemon: daemon,
                        landlockABI: { if case .available(let abi) = confinement { abi } else { nil } }(),
                        sandbox: confinement.description,
                        apps: apps.map { App(domain: $0.name, items: $0.itemCount, clientState: $0.clientState.map { String(decoding: $0, as: UTF8.self) },
                                             lastBatch: $0.lastBatch.map(AttributeValue.iso8601)) },
                        providerRequests: requests,
                        socket: ControlLocation.forIndex(directory: location.directory).socketPath.string,
                        volumes: VolumeRow.all(indexDirectory: location))
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    out.write(String(decoding: (try? encoder.encode(body)) ?? Data(), as: UTF8.self) + "\n")
                } else {
                    if let d = daemon {
                        out.write("fsindexd: \(d.state.rawValue) (pid \(d.pid), up \(Int(d.uptimeSeconds)) s), queue \(d.queueLength), "
                                  + "\(d.itemsIndexedSinceStart) items indexed since start\n")
                        out.write("folders: \(d.watched) watched, \(d.polled) polled, \(d.unreachable) unreachable\n")
                        for m in d.missingRoots {
                            let kept = m.itemsKeptForSeconds.map { "its items are kept for \(Int($0)) s more" }
                                ?? "its items were removed"
                            out.write("missing root: ")
                            out.writePath(m.path)
                            out.write(" (gone for \(Int(m.missingSeconds)) s; waiting for it to come back; \(kept))\n")
                        }
                        if let e = d.lastError { out.write("last error: \(Output.field(e))\n") }
                    } else {
                        out.write("fsindexd: not running\n")
                    }
                    out.write("index: \(location.directory.string)\n")
                    out.write("sandbox: \(confinement)\n")
                    out.write("items: \(status.itemCount)"
                              + (status.innerItemCount > 0 ? " (\(status.innerItemCount) of them inside files, such as the messages of an mbox)" : "")
                              + "\n")
                    out.write("size:  \(format1(Double(status.databaseBytes) / 1_048_576)) MiB\n")
                    if status.summariesPending > 0 {
                        out.write("summaries: \(status.summariesPending) pending (made by fsindexd in the background, or by `fsindex index`)\n")
                    }
                    if status.recognitionsPending > 0 {
                        out.write("OCR: \(status.recognitionsPending) pictures or scans waiting (read by fsindexd at the lowest priority, or by `fsindex index`)\n")
                    }
                    out.write("by meaning: \(status.meanings) items have a vector, \(status.meaningsPending) waiting (\(semantic))\n")
                    out.write("roots:\n")
                    if status.domains.isEmpty { out.write("  (none)\n") }
                    for d in status.domains {
                        var line = "  \(Output.field(d.name))  \(d.itemCount) items"
                        if IndexUpdater.recordedDepth(in: opened, domain: d.name) == .filesOnly { line += " (files directly inside, no subfolders)" }
                        if let f = d.lastCrawlFinished, (d.lastCrawlStarted ?? f) <= f {
                            line += ", last crawl \(AttributeValue.iso8601(f))"
                            if let p = d.lastCrawlProblems, p > 0 { line += " (\(p) problems)" }
                        } else if d.lastCrawlStarted != nil {
                            line += ", crawl interrupted or running; `fsindex index` resumes it"
                        }
                        out.write(line + "\n")
                    }
                    if !apps.isEmpty || !requests.isEmpty {
                        out.write("apps:\n")
                        for a in apps {
                            out.write("  \(String(a.itemCount).leftPadded(8))  \(Output.field(a.name))" + (a.lastBatch.map { ", last batch \(AttributeValue.iso8601($0))" } ?? "")
                                      + (a.clientState.map { ", client state \(Output.field($0))" } ?? "") + "\n")
                        }
                        for r in requests {
                            let what = r.ids.map { "\($0.count) items" } ?? "all items"
                            if let e = r.lastError {
                                out.write("  provider \(Output.field(r.domain)): reindex of \(what) failed \(r.attempts)× (\(Output.field(e))); next try \(AttributeValue.iso8601(r.nextAttempt))\n")
                            } else {
                                out.write("  provider \(Output.field(r.domain)): reindex of \(what) pending\n")
                            }
                        }
                    }
                    let failed = status.failures.reduce(0) { $0 + $1.count }
                    if failed > 0 {
                        out.write("failures: \(failed) items whose content could not be extracted (`fsindex failures` lists them)\n")
                        for f in status.failures { out.write("  \(String(f.count).leftPadded(8))  \(Output.field(f.extractor))\n") }
                    }
                    let volumes = VolumeRow.all(indexDirectory: location)
                    if !volumes.isEmpty {
                        out.write("volumes:\n")
                        for v in volumes { out.write(v.line) }
                    }
                    out.write("kinds:\n")
                    for k in status.kinds.prefix(30) { out.write("  \(String(k.count).leftPadded(8))  \(Output.field(k.kind))\n") }
                    if status.kinds.count > 30 { out.write("  … \(status.kinds.count - 30) more\n") }
                }
                out.flush()
            }
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

extension FSIndexCommand.Status {
    func sharedURLOrExit() throws -> SharedIndexURL? {
        return try store.sharedURL()
    }

    /// The shared index: each host with its items, domains and last batch.
    func sharedStatus(_ url: SharedIndexURL) throws {
        let hosts: [SharedHost]
        let link = try PostgresLink.connect(url)
        defer { link.close() }
        hosts = try SharedIndexHosts.list(link)
        let out = Output.standardOutput
        if json {
            struct Host: Encodable { var host: String, items: Int, domains: [String], lastBatch: String?, lastBatchItems: Int?, failures: [SharedFailureCount] }
            struct Body: Encodable { var index: String, items: Int, hosts: [Host] }
            let body = Body(index: url.description, items: hosts.reduce(0) { $0 + $1.items }, hosts: hosts.map {
                Host(host: $0.host, items: $0.items, domains: $0.domains, lastBatch: $0.lastBatch.map { AttributeValue.iso8601($0) }, lastBatchItems: $0.lastBatchItems,
                     failures: $0.failures)
            })
            out.writeJSONLine(body)
        } else {
            out.write("index: \(url) (shared)\nitems: \(hosts.reduce(0) { $0 + $1.items })\nhosts:\n")
            for h in hosts {
                let last = h.lastBatch.map { "last batch \(AttributeValue.iso8601($0)) (\(h.lastBatchItems ?? 0) items)" } ?? "no batch yet"
                out.write("  \(Output.field(h.host)): \(h.items) items, domains \(h.domains.map(Output.field).joined(separator: ", ")); \(last)\n")
                for f in h.failures {
                    out.write("    not published in \(Output.field(f.domain)): \(f.count) (\(Output.field(f.error))); the next pass tries again\n")
                }
            }
        }
        out.flush()
    }
}
