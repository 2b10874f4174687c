import Attributes
import Foundation
import MemberwiseInit

/// Decides one mail message's `isPriority` from its facts and the evidence across the mail, and
/// says why (`priorityReasons`).
///
/// The rule: a message is priority when it is **not bulk** and **not sent by me**, and **two**
/// of these three hold:
/// - `direct`: one of my addresses is among its To and Cc recipients (not only a list's);
/// - `correspondent`: its sender is someone I have sent mail to (in the indexed mail);
/// - `deadline`: it mentions a day from today to `deadlineDays` days ahead.
///
/// For example, a message from a colleague I write to, addressed to me, is priority
/// (`direct` and `correspondent`); so is a stranger's message addressed to me that asks for
/// something by Friday (`direct` and `deadline`). A stranger's message addressed to me with no
/// date is not: any cold pitch is that. A newsletter is never priority, whatever it says
/// (`bulk`: `List-Unsubscribe`, `List-Id`, `Precedence: bulk`).
///
/// A key design decision: every piece of evidence that applied is recorded, the negative ones
/// too, so `fsindex show` explains a "no" as well as a "yes"; and each reason starts with a
/// stable code (`direct`, `correspondent`, `deadline`, `bulk`, `sent`) before a colon, so that
/// scripts match the code and people read the rest. Two of three rather than any one: direct
/// alone is nearly every personal message, and a date alone is every newsletter that escaped
/// its headers.
@MemberwiseInit
package struct PriorityRule: Sendable {
    /// Days ahead a mentioned day counts as due (`[mail] deadline_days`).
    package var deadlineDays: Int = 7
    /// The calendar "today" and a mentioned day are reckoned in (the user's local time).
    package var timeZone: TimeZone = .current

    /// Who "me" is, and whom "me" writes to: the evidence across the mail.
    package struct Evidence: Sendable, Hashable {
        /// My addresses, lowercased.
        package var me: Set<String>
        /// The recipients of the mail I sent, lowercased (my own addresses excluded).
        package var correspondents: Set<String>

        package init(me: Set<String>, correspondents: Set<String>) {
            self.me = Set(me.map { $0.lowercased() })
            self.correspondents = Set(correspondents.map { $0.lowercased() }).subtracting(self.me)
        }

        /// A short digest of the evidence, stored with the decisions: when it changes, every
        /// message is decided again.
        package var fingerprint: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for s in me.sorted() + ["\u{0}"] + correspondents.sorted() {
                for b in s.utf8 + [0x0A] {
                    hash ^= UInt64(b)
                    hash &*= 0x100_0000_01b3
                }
            }
            return "\(me.count).\(correspondents.count).\(String(hash, radix: 16))"
        }
    }

    /// The decision: the answer, every reason that applied, and when it may change by itself.
    package struct Decision: Sendable, Hashable {
        package var isPriority: Bool
        package var reasons: [String]
        /// When a mentioned day enters or leaves the next days; nil: never by itself.
        package var recheck: Date?
    }

    /// Decides a message with attributes `a` (`authorEmailAddresses`,
    /// `recipientEmailAddresses`, `mailBulkHeaders`, `mentionedDates`) at `now`.
    package func decide(_ a: AttributeSet, evidence: Evidence, now: Date) -> Decision {
        var reasons: [String] = []
        let authors = a.strings(.authorEmailAddresses).map { $0.lowercased() }
        let recipients = a.strings(.recipientEmailAddresses).map { $0.lowercased() }
        let bulk = a.strings(.mailBulkHeaders)
        let sentByMe = authors.contains(where: evidence.me.contains)
        if sentByMe { reasons.append("sent: sent by you") }
        if !bulk.isEmpty { reasons.append("bulk: bulk or list mail (\(bulk.joined(separator: ", ")))") }
        var positive = 0
        if recipients.contains(where: evidence.me.contains) {
            positive += 1
            reasons.append("direct: addressed to you directly")
        }
        if let sender = authors.first(where: evidence.correspondents.contains) {
            positive += 1
            reasons.append("correspondent: from someone you write to (\(sender))")
        }
        let (due, recheck) = dueDays(a.strings(.mentionedDates), now: now)
        if !due.isEmpty {
            positive += 1
            reasons.append("deadline: mentions a date in the next \(deadlineDays) days: \(due.joined(separator: ", "))")
        }
        return Decision(isPriority: !sentByMe && bulk.isEmpty && positive >= 2, reasons: reasons, recheck: recheck)
    }

    /// Of the ISO days `days`, those from today to `deadlineDays` ahead; and the first time
    /// after `now` at which that set changes (a later day enters the window, or a day in it
    /// passes).
    func dueDays(_ days: [String], now: Date) -> (due: [String], recheck: Date?) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        guard let last = calendar.date(byAdding: .day, value: deadlineDays, to: today) else { return ([], nil) }
        var due: [String] = []
        var recheck: Date?
        func sooner(_ d: Date?) {
            guard let d, d > now else { return }
            recheck = recheck.map { min($0, d) } ?? d
        }
        for iso in days {
            let parts = iso.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3,
                  let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { continue }
            if start < today { continue }
            if start <= last {
                due.append(iso)
                sooner(calendar.date(byAdding: .day, value: 1, to: start))
            } else {
                sooner(calendar.date(byAdding: .day, value: -deadlineDays, to: start))
            }
        }
        return (due, recheck)
    }
}
