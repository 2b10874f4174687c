import Embedding
import Indexing
import SystemCalls

/// Reads what items are about into vectors (issue 43): the semantic pass, after the crawl, the
/// summaries and OCR, as those run.
///
/// What is embedded is what people ask about: the item's name as words, its title and its
/// `other` text (description, summary, subject, keywords), the first 64 pieces of them; for a
/// note too short for a summary, its text. Not the body: a question names what a file is for,
/// which its first lines rarely say, and a transformer's cost grows with the text. An item
/// with nothing but a name (empty files, binaries without metadata) is left to the words; it
/// gets an empty vector, so it is not read again.
/// A question's second stage reorders its best candidates by closeness to the question
/// (`QueryEngine.runQuestion`).
///
/// The pass runs in the process that writes the index, on one core (OpenBLAS limited to one
/// thread): `fsindex index` runs it whole after the crawl and reports it apart; `fsindexd` runs
/// a batch at a time behind all other work, as it does OCR.
package struct MeaningPass: Sendable {
    package let store: IndexStore
    package let encoder: SentenceEncoder
    /// Whether each batch is embedded on a thread at the lowest priority (fsindexd with
    /// `[daemon] throttle = "low"`, as OCR's worker runs): the writer waits for it, and the
    /// machine lends it only the cores nothing else wants.
    package var lowestPriority = false
    /// Pieces of an item's text read: the name, title and description fit.
    package static let maximumTokens = 64

    package init(store: IndexStore, encoder: SentenceEncoder, lowestPriority: Bool = false) {
        self.store = store
        self.encoder = encoder
        self.lowestPriority = lowestPriority
    }

    /// What one batch did.
    package struct Batch: Sendable, Hashable {
        /// Items that got a vector.
        package var embedded = 0
        /// Pending items read (with nothing to embed, too).
        package var examined = 0
        package var lastRowID: Int64 = 0
        package var mayHaveMore = false
    }

    /// The text of an item that the pass embeds, or nil when it has nothing but its name.
    package static func text(of item: PendingMeaning) -> String? {
        let title = item.title.trimmingSpaces
        let other = item.other.trimmingSpaces.isEmpty ? item.passage.trimmingSpaces : item.other.trimmingSpaces
        guard !title.isEmpty || !other.isEmpty else { return nil }
        var words = ""
        for scalar in item.name.unicodeScalars {
            // "read_to_string.html" → "read to string html": a name's parts as the model's words.
            words.unicodeScalars.append(scalar == "_" || scalar == "." || scalar == "-" ? " " : scalar)
        }
        return [words, title, String(other.prefix(400))].filter { !$0.isEmpty }.joined(separator: ". ")
    }

    /// Embeds up to `limit` pending items after rowid `after` and stores their vectors in one
    /// transaction. `stop()` is asked between items.
    package func runBatch(limit: Int, after: Int64 = 0, stop: () -> Bool = { false }) throws(UpdateError) -> Batch {
        let pending: [PendingMeaning]
        do { pending = try store.pendingMeanings(limit: limit, after: after) } catch { throw .index(error) }
        guard !pending.isEmpty else { return Batch() }
        var batch = Batch(lastRowID: pending.last!.rowID, mayHaveMore: pending.count == limit)
        var made: [(item: PendingMeaning, vector: [UInt8])] = []
        func embed() {
            for item in pending {
                if stop() { batch.mayHaveMore = true; batch.lastRowID = made.last?.item.rowID ?? after; break }
                batch.examined += 1
                if let text = Self.text(of: item) {
                    made.append((item, StoredVector.encode(encoder.embed(text, maximumTokens: Self.maximumTokens))))
                    batch.embedded += 1
                } else {
                    made.append((item, []))
                }
            }
        }
        if lowestPriority { SystemCall.atLowestPriority(embed) } else { embed() }
        do { try store.storeMeanings(made) } catch { throw .index(error) }
        return batch
    }

    /// Embeds everything pending, batch after batch, until none is left or `stop()` says so.
    package func runAll(batchSize: Int = 64, stop: () -> Bool = { false }) throws(UpdateError) -> MeaningReport {
        var report = MeaningReport()
        report.seconds = try PassSweep.run(stop: stop) { after throws(UpdateError) in
            let batch = try runBatch(limit: batchSize, after: after, stop: stop)
            report.examined += batch.examined
            report.embedded += batch.embedded
            return (batch.lastRowID, batch.mayHaveMore)
        }
        return report
    }
}

/// What a whole semantic pass did, for `fsindex index`.
package struct MeaningReport: Sendable, Hashable, Codable {
    /// Items that got a vector.
    package var embedded = 0
    /// Items read, with nothing to embed too.
    package var examined = 0
    package var seconds: Double = 0

    package init() {}
}

extension String {
    var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
