import Dispatch

/// A pass's sweep through what is pending, as `fsindex index` runs it (`runAll` of the summary,
/// OCR and semantic passes): batch after batch in rowid order, each starting after the last
/// one's last row, until a batch says nothing may be left or `stop()` says so. An item written
/// again meanwhile (by a running fsindexd) is pending again and left to the next sweep.
enum PassSweep {
    /// Runs `batch` (given the rowid to start after; it returns the last rowid it took and
    /// whether more may be left) and returns the seconds the sweep took.
    static func run(stop: () -> Bool, _ batch: (_ after: Int64) throws(UpdateError) -> (lastRowID: Int64, mayHaveMore: Bool)) throws(UpdateError) -> Double {
        let start = DispatchTime.now()
        var after: Int64 = 0
        while !stop() {
            let taken = try batch(after)
            guard taken.mayHaveMore else { break }
            after = taken.lastRowID
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
