import Attributes
import FoundationEssentials
import GRDB

/// A background pass's result for one item, tied to the item as the pass read it.
package protocol PassResult {
    var rowID: Int64 { get }
    /// The item's write stamp when it was read (`indexed_at`).
    var version: Double { get }
}

extension MadeSummary: PassResult {}
extension MadeRecognition: PassResult {}
extension PriorityOutcome: PassResult {}

extension IndexStore {
    /// Stores a background pass's results in one transaction. Each item is taken as the pass
    /// read it (the same row and write stamp, and still marked by `pending` when a column is
    /// named), its attributes decoded and handed to `apply`, which writes what it must and says
    /// whether subscribers are to hear of the item; their identifiers are returned.
    ///
    /// An item written again since it was read (a new version of the file), deleted, or no
    /// longer pending is left alone: the result would describe a version it no longer is.
    func storePassResults<R: PassResult>(_ results: [R], pending column: String?,
                                         _ apply: (Database, R, inout AttributeSet) throws -> Bool) throws(IndexError) -> [ItemIdentifier] {
        guard !results.isEmpty else { return [] }
        let sql = "SELECT path, attributes FROM items WHERE id = ? AND indexed_at = ?" + (column.map { " AND \($0)" } ?? "")
        return try write { db in
            var told: [ItemIdentifier] = []
            for result in results {
                guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [result.rowID, result.version]) else { continue }
                var attributes = try Self.attributes(json: row["attributes"])
                if try apply(db, result, &attributes) { told.append(ItemIdentifier(bytes: Array(row["path"] as Data))) }
            }
            return told
        }
    }

    /// Attributes as the `items.attributes` column holds them.
    static func json(_ attributes: AttributeSet) throws -> String {
        String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
    }
}
