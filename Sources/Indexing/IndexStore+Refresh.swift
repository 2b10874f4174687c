import Attributes
import FoundationEssentials
import GRDB

extension IndexStore {
    /// Replaces some attributes of a stored item, and its change stamp, keeping everything else:
    /// its text, what its content extractor found, its extractor version and `indexed_at`.
    ///
    /// This is the cheap path for a change that leaves the content alone (`IN_ATTRIB`: new
    /// tags, a chmod): no worker, one transaction of a few statements. Each key in `replacing`
    /// takes its value from `fresh`, or is removed when `fresh` has none (a tag list emptied).
    /// The full-text `other` column is rewritten from the result, so a new comment's words are
    /// searchable at once; the `name`, `title` and `text` columns are not touched.
    ///
    /// Returns false, changing nothing, when the index has no such item.
    @discardableResult
    package func refreshAttributes(of identifier: ItemIdentifier, stamp: FileStamp, replacing keys: Set<AttributeKey>,
                                  with fresh: AttributeSet) throws(IndexError) -> Bool {
        try write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, \(Self.attributeSelection) FROM items WHERE path = ?"),
                                             arguments: [Data(identifier.bytes)]) else { return false }
            let id: Int64 = row["id"]
            var columns = StoredAttributes(row: row)
            var attributes = columns.restoring(try Self.attributes(json: row["attributes"]), omitted: row["omitted"])
            for key in keys { attributes = attributes.removing(key) }
            // Through the same door as `upsert`: NUL is not text.
            let fresh = fresh.replacingNUL()
            for key in keys { if let value = fresh[key] { attributes[key] = value } }
            columns.size = stamp.size   // the column the UPDATE writes
            let (json, omitted) = try columns.encode(attributes)
            try db.cachedStatement(sql: """
                UPDATE items SET attributes = ?, omitted = ?, size = ?, mtime_ns = ?, ctime_ns = ?, inode = ?, used = ? WHERE id = ?
                """).execute(arguments: [json, omitted, stamp.size, stamp.modificationNanos, stamp.changeNanos,
                                         Int64(bitPattern: stamp.inode), attributes.date(.lastUsedDate)?.timeIntervalSince1970, id])
            let other = AttributeKey.otherTextKeys.flatMap { attributes.strings($0) }.joined(separator: "\n")
            // item_texts' update trigger indexes the new words (and takes the old ones out).
            try db.cachedStatement(sql: "UPDATE item_texts SET other = ? WHERE id = ?")
                .execute(arguments: [other.isEmpty ? nil : other, id])
            return true
        }
    }
}
