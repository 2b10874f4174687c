import Attributes
import FoundationEssentials
import GRDB
import MemberwiseInit

/// A mail message whose `isPriority` is to be decided: what the priority pass reads.
package struct PriorityCandidate: Sendable, Hashable {
    package var rowID: Int64
    package var identifier: ItemIdentifier
    /// The item's stored attributes (the facts: senders, recipients, `mailBulkHeaders`,
    /// `mentionedDates`, and the `isPriority` decided last).
    package var attributes: AttributeSet
    /// The item's write stamp when it was read: a decision is stored only if the item was not
    /// written again since.
    package var version: Double
}

/// What the priority pass decided for one `PriorityCandidate`.
@MemberwiseInit
package struct PriorityOutcome: Sendable, Hashable {
    package var rowID: Int64
    package var version: Double
    package var isPriority: Bool
    package var reasons: [String]
    /// When the answer may change by itself (a mentioned day enters or leaves the next days);
    /// nil: only new evidence changes it.
    package var recheck: Date?
}

extension IndexStore {
    /// The content type of one mail message (an `.eml`, a Maildir file, an mbox's child).
    package static let mailMessageType = "public.email-message"
    /// The `meta` key of the evidence the last decisions were made with (see `PriorityPass`).
    static let priorityEvidenceKey = "priority_evidence"

    /// Up to `limit` messages to decide, in rowid order after `after`: those written since
    /// their last decision, and those whose recheck time is at or before `now`. Reads through
    /// the partial indexes `items_priority_pending` and `items_priority_recheck`.
    package func priorityCandidates(limit: Int, after: Int64 = 0, now: Date) throws(IndexError) -> [PriorityCandidate] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, path, indexed_at, attributes FROM items
                WHERE (priority_pending OR priority_recheck <= ?) AND id > ? ORDER BY id LIMIT ?
                """), arguments: [now.timeIntervalSince1970, after, limit]).map { row in
                PriorityCandidate(rowID: row["id"], identifier: ItemIdentifier(bytes: Array(row["path"] as Data)),
                                  attributes: try Self.attributes(json: row["attributes"]), version: row["indexed_at"])
            }
        }
    }

    /// The senders' addresses of the messages whose path has a folder (or mbox file) that
    /// `isSentFolder` accepts: who "me" is when the config does not say. Reads the paths of the
    /// messages whose path holds "sent" in any case, and their senders.
    package func sentMailSenders(isSentFolder: ([UInt8]) -> Bool) throws(IndexError) -> Set<String> {
        try read { db in
            var out: Set<String> = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT path, json_extract(attributes, '$.authorEmailAddresses') AS senders FROM items
                WHERE content_type = ? AND instr(lower(CAST(path AS TEXT)), 'sent') > 0
                """, arguments: [Self.mailMessageType])
            while let row = try rows.next() {
                let path = Array(row["path"] as Data)
                let folders = path.split(whereSeparator: { $0 == UInt8(ascii: "/") || $0 == 0 }).dropLast()
                guard folders.contains(where: { isSentFolder(Array($0)) }), let json = row["senders"] as String?,
                      let senders = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else { continue }
                for e in senders { out.insert(e.lowercased()) }
            }
            return out
        }
    }

    /// The recipients' addresses (To and Cc) of the messages one of `me` sent: the people "me"
    /// writes to. Reads the attributes of every message (a scan of the mail's JSON: 26 ms for
    /// 20,000 messages in a debug build).
    package func correspondents(of me: Set<String>) throws(IndexError) -> Set<String> {
        guard !me.isEmpty else { return [] }
        let list = String(decoding: (try? JSONEncoder().encode(me.sorted())) ?? Data("[]".utf8), as: UTF8.self)
        return try read { db in
            var out: Set<String> = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT json_extract(attributes, '$.recipientEmailAddresses') FROM items
                WHERE content_type = ? AND EXISTS (SELECT 1 FROM json_each(items.attributes, '$.authorEmailAddresses')
                                                   WHERE lower(value) IN (SELECT value FROM json_each(?)))
                """, arguments: [Self.mailMessageType, list])
            while let row = try rows.next() {
                guard let json = row[0] as String?, let addresses = try? JSONDecoder().decode([String].self, from: Data(json.utf8)) else { continue }
                for a in addresses { out.insert(a.lowercased()) }
            }
            return out.subtracting(me)
        }
    }

    /// The evidence fingerprint the stored decisions were made with (nil: none yet).
    package func priorityEvidence() throws(IndexError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.priorityEvidenceKey]) }
    }

    /// Records `fingerprint` as the evidence of the decisions to come, and marks every message
    /// to be decided again with it (a new address of "me", a new correspondent).
    package func resetPriorities(evidence fingerprint: String) throws(IndexError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [Self.priorityEvidenceKey, fingerprint])
            try db.execute(sql: "UPDATE items SET priority_pending = 1 WHERE content_type = ?", arguments: [Self.mailMessageType])
        }
    }

    /// Stores decisions in one transaction: `isPriority` and `priorityReasons` go into the
    /// item's attributes, and the item is no longer pending (its recheck time set). Returns the
    /// identifiers of the items whose `isPriority` changed (a message not decided before
    /// counts as not priority), for subscribers.
    ///
    /// An item written again since it was read, or deleted, is left alone (it is pending again).
    package func storePriorities(_ outcomes: [PriorityOutcome]) throws(IndexError) -> [ItemIdentifier] {
        try storePassResults(outcomes, pending: nil) { db, made, attributes in
            let was = attributes[.isPriority] == .bool(true)
            let reasons = attributes[.priorityReasons]
            attributes[.isPriority] = .bool(made.isPriority)
            attributes[.priorityReasons] = made.reasons.isEmpty ? nil : .strings(made.reasons)
            if attributes[.isPriority] != .bool(was) || reasons != attributes[.priorityReasons] {
                try db.cachedStatement(sql: "UPDATE items SET attributes = ? WHERE id = ?").execute(arguments: [try Self.json(attributes), made.rowID])
            }
            try db.cachedStatement(sql: "UPDATE items SET priority_pending = NULL, priority_recheck = ? WHERE id = ?")
                .execute(arguments: [made.recheck?.timeIntervalSince1970, made.rowID])
            return was != made.isPriority
        }
    }

    /// How many messages wait for their priority (for tests and `fsindex status`).
    package func pendingPriorityCount() throws(IndexError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE priority_pending") ?? 0 }
    }
}
