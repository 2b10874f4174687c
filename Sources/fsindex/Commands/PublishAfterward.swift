import CommandSupport
import Foundation
import Indexing
import SharedIndex

/// `fsindex index` and `fsindex donate` with a shared index (`--index-url`, else `[index]
/// url`): what they just wrote to the local index goes on to the shared one, as `fsindex
/// publish` sends it (issue 29). The local index is the journal, as for fsindexd: it is
/// written first and keeps what was indexed or donated whatever the server does.
///
/// Only the domains the command wrote are compared and sent (the roots it indexed, the app's
/// domain it donated to), under the same rules as `fsindex publish`: the host is `--host`,
/// else `[index] host`, else the machine's name; a domain another watcher owns is refused and
/// recorded; an item the server refuses is left out, recorded in `failures`, and printed.
/// A server that cannot be reached is not waited for (`fsindex publish --retry-for` does
/// that): the command says so and exits 2, and `fsindex publish` sends the items later.
enum PublishAfterward {
    /// Publishes `domains` of the local index at `options`' location when a shared index is
    /// given or configured; prints what was sent (`quiet`: nothing on stdout, for `--json`).
    /// Returns whether it published; throws a `CommandFailure` (exit 2) when it could not.
    @discardableResult
    static func run(_ options: IndexOptions, host: HostOption, domains: Set<String>, quiet: Bool) throws -> Bool {
        guard let url = try options.sharedURL() else { return false }
        let local = try IndexStore(location: options.location(), readOnly: true)
        let publisher = SharedPublisher(store: local, url: url, host: try host.hostName(options))
        publisher.publishes = { domains.contains($0) }
        defer { publisher.disconnect() }
        let report: PublishReport
        do {
            report = try publisher.publishAllRetrying(giveUpAfter: 0)
        } catch {
            throw CommandFailure("the local index has the items, but they were not published: \(error.description); `fsindex publish` sends them later")
        }
        try say(report, host: publisher.host, url: url, quiet: quiet)
        return true
    }

    /// What a publish sent, on stdout (unless `quiet`), and what the server refused, on stderr
    /// with exit 2: the rest went in. Shared with `fsindex publish`.
    static func say(_ report: PublishReport, host: String, url: SharedIndexURL, quiet: Bool) throws {
        if !quiet {
            let unchanged = report.unchanged.isEmpty ? "" : ", \(report.unchanged.count) unchanged"
            Output.standardOutput.write("published \(report.written) items and removed \(report.removed) as host \(host) in \(report.batches) batches (\(report.domains.count) domains\(unchanged)) to \(url)\n")
            Output.standardOutput.flush()
        }
        if !report.failures.isEmpty {
            for f in report.failures { Output.error("fsindex", SharedPublisher.describe(f)) }
            throw CommandFailure("\(report.failures.count) not published; `fsindex status --index-url …` lists them, and the next publish tries them again")
        }
    }
}
