import ArgumentParser
import CommandSupport
import Foundation
import Indexing
import SharedIndex

extension FSIndexCommand {
    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send this machine's items to the shared PostgreSQL index, once (fsindexd does it continuously).",
            discussion: """
                Compares the local index with the shared one, domain by domain, and sends what
                differs: new and changed items, and the removal of items the local index no longer
                has, in batches that each commit with the domain's client state. A domain whose
                client state shows it unchanged is skipped. While the server cannot be reached, it
                tries again (0.5 s, doubling to 30 s) for --retry-for seconds.

                Examples:
                  fsindex publish --index-url 'postgresql://fsindex@/fsindex?host=/run/postgresql'
                  fsindex publish --host lab-3 --retry-for 600
                """)

        @OptionGroup var store: IndexOptions
        @OptionGroup var host: HostOption

        @Option(name: .customLong("retry-for"), help: ArgumentHelp("Seconds to keep trying while the server is unreachable (0: fail at once).", valueName: "seconds"))
        var retryFor: Double = 60

        @Option(name: .customLong("batch-size"), help: ArgumentHelp("Items per transaction.", valueName: "n"))
        var batchSize: Int = 256

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                guard let url = try store.sharedURL() else {
                    throw CommandFailure("publish needs the shared index: give --index-url postgresql://… or set [index] url")
                }
                let local = try IndexStore(location: location, readOnly: true)
                let publisher = SharedPublisher(store: local, url: url, host: try host.hostName(store))
                publisher.batchSize = max(1, min(batchSize, 10_000))
                let report = try publisher.publishAllRetrying(giveUpAfter: retryFor) { Output.error("fsindex", $0) }
                publisher.disconnect()
                try PublishAfterward.say(report, host: publisher.host, url: url, quiet: false)
            }
        }
    }
}
