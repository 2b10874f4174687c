import Attributes
import Configuration
import Foundation
import Indexing
import MemberwiseInit

/// Decides mail's `isPriority` after extraction: the stage that needs evidence across items,
/// which no worker has (a worker sees one file; "from someone I write to" needs the mail I sent).
///
/// The extraction records each message's facts (recipients, `mailBulkHeaders`,
/// `mentionedDates`); this pass gathers the evidence (who "me" is, whom "me" writes to) and
/// applies `PriorityRule` to the messages the index marks: those written since their last
/// decision, and those whose recheck time has come (a mentioned day entering or leaving the next
/// days). When the evidence changes (a new sent message, a new address), every message is
/// marked and decided again. Each decision that flips `isPriority` is returned, for
/// subscribers (`ItemChanges.prioritized`).
///
/// A key design decision: time is handled by rechecking, not by a timer. Every decision stores
/// the next time it could change by itself, and each pass also takes the messages whose time has
/// come; `fsindexd` runs a pass after every piece of work and when it starts, so a deadline
/// passing in an idle daemon is noticed with the next file event or start (cheap: an index
/// lookup). `fsindex index` runs it to the end.
///
/// Cost: gathering the evidence reads every message's JSON once per batch (measured on 20,000
/// generated messages, half of them in a Sent folder, debug build on a loaded 2-core machine:
/// 26 ms for the correspondents, 84 ms for the senders of the 10,000 messages in Sent folders);
/// deciding and storing all 20,000 took 1.6 s, about 80 µs a message. A daemon batch is 256
/// messages, so a large import of mail pays the evidence once per 256 messages.
///
/// For example:
/// ```swift
/// let pass = PriorityPass(store: store, settings: settings)
/// let report = try pass.runAll()   // report.decided, report.changed
/// ```
@MemberwiseInit
package struct PriorityPass: Sendable {
    package let store: IndexStore
    package var rule: PriorityRule = PriorityRule()
    /// `[mail] addresses`; empty: derived (see `evidence()`).
    package var configuredAddresses: [String] = []
    /// Addresses known without the mail: `[agent] me`'s (or git's) and `$EMAIL`.
    package var knownAddresses: [String] = []
    package var now: @Sendable () -> Date = { Date() }

    /// The pass as `settings` configure it; `environment` gives `$EMAIL` and what
    /// `Identity.resolve` reads (git's config under `HOME`).
    package init(store: IndexStore, settings: Settings, environment: [String: String] = ProcessInfo.processInfo.environment,
                now: @escaping @Sendable () -> Date = { Date() }) {
        var known = Identity.resolve(configured: settings.agent.me, environment: environment)?.emails ?? []
        if let e = environment["EMAIL"], e.contains("@") { known.append(e) }
        self.init(store: store, rule: PriorityRule(deadlineDays: settings.mail.deadlineDays),
                  configuredAddresses: settings.mail.addresses, knownAddresses: known, now: now)
    }

    /// Folder names that hold the mail one sent, lowercased: `Sent`, Maildir++'s `.Sent`, and
    /// the names mail programs give them.
    static let sentFolderNames: Set<String> = ["sent", ".sent", "sent items", "sent messages", "sent mail"]

    static func isSentFolder(_ name: [UInt8]) -> Bool {
        let n = String(decoding: name, as: UTF8.self).lowercased()
        return sentFolderNames.contains(n) || n.hasSuffix(".sent")
    }

    /// Who "me" is and whom "me" writes to. "Me": `[mail] addresses` when set; otherwise the
    /// senders of the messages in Sent folders, with the known addresses.
    package func evidence() throws(UpdateError) -> PriorityRule.Evidence {
        do {
            var me = Set(configuredAddresses.map { $0.lowercased() })
            if me.isEmpty {
                me = Set(knownAddresses.map { $0.lowercased() })
                    .union(try store.sentMailSenders(isSentFolder: Self.isSentFolder))
            }
            return PriorityRule.Evidence(me: me, correspondents: try store.correspondents(of: me))
        } catch {
            throw .index(error)
        }
    }

    /// What one batch did.
    package struct Batch: Sendable, Hashable {
        /// The messages whose `isPriority` flipped.
        package var changed: [ItemIdentifier] = []
        /// Messages decided.
        package var examined = 0
        /// The last rowid read: the next batch starts after it.
        package var lastRowID: Int64 = 0
        /// Whether the batch was full, so more may be waiting.
        package var mayHaveMore = false
        /// Whether the evidence had changed, so every message was marked again (a sweep
        /// should start over).
        package var evidenceChanged = false
    }

    /// Decides up to `limit` marked messages after rowid `after` and stores the decisions in one
    /// transaction. `evidence`: gathered already (nil: gathered here, only if there is work).
    package func runBatch(limit: Int, after: Int64 = 0, evidence known: PriorityRule.Evidence? = nil) throws(UpdateError) -> Batch {
        let at = now()
        var candidates = try Self.index { () throws(IndexError) in try store.priorityCandidates(limit: limit, after: after, now: at) }
        guard !candidates.isEmpty else { return Batch() }
        let evidence: PriorityRule.Evidence
        if let known { evidence = known } else { evidence = try self.evidence() }
        var batch = Batch()
        if try Self.index({ () throws(IndexError) in try store.priorityEvidence() }) != evidence.fingerprint {
            try Self.index { () throws(IndexError) in try store.resetPriorities(evidence: evidence.fingerprint) }
            batch.evidenceChanged = true
            candidates = try Self.index { () throws(IndexError) in try store.priorityCandidates(limit: limit, after: after, now: at) }
        }
        let outcomes = candidates.map { c in
            let d = rule.decide(c.attributes, evidence: evidence, now: at)
            return PriorityOutcome(rowID: c.rowID, version: c.version, isPriority: d.isPriority, reasons: d.reasons, recheck: d.recheck)
        }
        batch.changed = try Self.index { () throws(IndexError) in try store.storePriorities(outcomes) }
        batch.examined = candidates.count
        batch.lastRowID = candidates.last?.rowID ?? after
        batch.mayHaveMore = candidates.count == limit
        return batch
    }

    /// An index call, its error made an `UpdateError`.
    static func index<T>(_ body: () throws(IndexError) -> T) throws(UpdateError) -> T {
        do { return try body() } catch { throw .index(error) }
    }

    /// Decides every marked message, batch after batch, with the evidence gathered once.
    package func runAll(batchSize: Int = 512) throws(UpdateError) -> PriorityReport {
        var report = PriorityReport()
        guard try !store.priorityCandidatesEmpty(now: now()) else { return report }
        let evidence = try self.evidence()
        var after: Int64 = 0
        var restarted = false
        while true {
            let batch = try runBatch(limit: batchSize, after: after, evidence: evidence)
            report.decided += batch.examined
            report.changed += batch.changed
            if batch.evidenceChanged, !restarted, after > 0 {
                restarted = true
                after = 0
                continue
            }
            guard batch.mayHaveMore else { break }
            after = batch.lastRowID
        }
        return report
    }
}

/// What a whole priority pass did, for `fsindex index`.
package struct PriorityReport: Sendable, Hashable {
    /// Messages decided.
    package var decided = 0
    /// The messages whose `isPriority` flipped.
    package var changed: [ItemIdentifier] = []

    package init() {}
}

extension IndexStore {
    /// Whether no message waits for a decision at `now`.
    func priorityCandidatesEmpty(now: Date) throws(UpdateError) -> Bool {
        do { return try priorityCandidates(limit: 1, now: now).isEmpty } catch { throw .index(error) }
    }
}
