import ExtractionModel
/// Little-endian reads that return nil past the end instead of trapping.
extension Array where Element == UInt8 {
    func ole16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= count else { return nil }
        return Int(self[at]) | Int(self[at + 1]) << 8
    }

    func ole32(_ at: Int) -> Int? {
        guard at >= 0, at + 4 <= count else { return nil }
        return Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 | Int(self[at + 3]) << 24
    }
}

/// The text of a Word binary document ([MS-DOC]).
enum WordText {
    enum Outcome: Equatable { case done, encrypted, unsupported, damaged(String) }

    /// Pieces read at most (a hostile CLX can declare millions).
    static let maxPieces = 100_000

    static func read(_ word: [UInt8], table: (String) -> [UInt8]?, into text: inout TextBuffer) -> Outcome {
        guard let ident = word.ole16(0), ident == 0xA5EC || ident == 0xA5DC, let nFib = word.ole16(2),
              let flags = word.ole16(0x0A) else {
            return .damaged("the WordDocument stream has no valid file information block")
        }
        if flags & 0x0100 != 0 { return .encrypted }   // fEncrypted (also XOR obfuscation)
        var reader = Reader()
        if nFib < 101 { return .unsupported }          // Word 2 and older
        if nFib < 150 {                                 // Word 6 / 95 (nFib 101–105)
            guard flags & 0x0004 == 0 else { return .unsupported }   // fComplex: fast-saved
            guard let fcMin = word.ole32(0x18), let ccpText = word.ole32(0x34) else { return .damaged("truncated file information block") }
            let end = min(word.count, fcMin + ccpText)
            guard fcMin < end else { return .done }
            for b in word[fcMin..<end] {
                reader.add(UInt16(TextDecoding.windows1252(b).value), into: &text)
                if text.isFull { break }
            }
            return .done
        }
        // Word 97 and later: the CLX in the table stream holds the piece table.
        let tableName = flags & 0x0200 != 0 ? "1Table" : "0Table"
        guard let fcClx = word.ole32(0x01A2), let lcbClx = word.ole32(0x01A6), let ccpText = word.ole32(0x4C) else {
            return .damaged("truncated file information block")
        }
        guard let tableStream = table(tableName) else { return .damaged("the \(tableName) stream is missing") }
        guard lcbClx > 0, fcClx >= 0, fcClx + lcbClx <= tableStream.count else {
            return .damaged("the piece table lies outside the \(tableName) stream")
        }
        let clx = Array(tableStream[fcClx..<(fcClx + lcbClx)])
        var i = 0
        // Skip the Prc entries (property modifiers), then read the Pcdt.
        while i < clx.count, clx[i] == 0x01 {
            guard let cb = clx.ole16(i + 1) else { return .damaged("truncated piece table") }
            i += 3 + cb
        }
        guard i < clx.count, clx[i] == 0x02, let lcb = clx.ole32(i + 1), i + 5 + lcb <= clx.count, lcb >= 4 else {
            return .damaged("the piece table is malformed")
        }
        let plc = Array(clx[(i + 5)..<(i + 5 + lcb)])
        let pieces = min((lcb - 4) / 12, maxPieces)
        for p in 0..<pieces {
            guard let cpStart = plc.ole32(p * 4), let cpEnd = plc.ole32((p + 1) * 4),
                  let fcRaw = plc.ole32((pieces + 1) * 4 + p * 8 + 2) else { break }
            // Main document text only (footnotes, headers, comments follow it).
            guard cpStart < ccpText else { break }
            let count = min(cpEnd, ccpText) - cpStart
            guard count > 0 else { continue }
            let compressed = fcRaw & 0x4000_0000 != 0
            let fc = fcRaw & 0x3FFF_FFFF
            if compressed {
                let start = fc / 2
                guard start < word.count else { continue }
                for b in word[start..<min(word.count, start + count)] {
                    reader.add(UInt16(TextDecoding.windows1252(b).value), into: &text)
                }
            } else {
                var k = fc
                let end = min(word.count - 1, fc + count * 2)
                while k < end {
                    reader.add(UInt16(word[k]) | UInt16(word[k + 1]) << 8, into: &text)
                    k += 2
                }
            }
            if text.isFull { break }
        }
        reader.finish(into: &text)
        return .done
    }

    /// Turns Word's control characters into text: paragraph and cell marks become line breaks,
    /// field codes (between 0x13 and 0x14) are dropped and field results kept, and UTF-16
    /// surrogate pairs are joined.
    struct Reader {
        /// For each open field, whether its separator (0x14) was seen.
        var inResult: [Bool] = []
        var high: UInt16?
        var run: String = ""

        mutating func add(_ unit: UInt16, into text: inout TextBuffer) {
            switch unit {
            case 0x13:
                inResult.append(false)
                if inResult.count > 64 { inResult.removeFirst() }
                return
            case 0x14:
                if !inResult.isEmpty { inResult[inResult.count - 1] = true }
                return
            case 0x15:
                _ = inResult.popLast()
                return
            default:
                break
            }
            if inResult.contains(false) { return }   // inside a field's instructions
            switch unit {
            case 0x0D, 0x07, 0x0B, 0x0C, 0x0E:
                flush(into: &text)
                text.breakLine()
            case 0x09:
                run.append(" ")
            case 0x1E:
                run.append("-")
            case 0x00...0x1F:
                break   // pictures, footnote marks, optional hyphens, ...
            case 0xD800...0xDBFF:
                high = unit
                return
            case 0xDC00...0xDFFF:
                if let h = high, let s = Unicode.Scalar(0x10000 + ((UInt32(h) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)) {
                    run.unicodeScalars.append(s)
                }
            default:
                if let s = Unicode.Scalar(UInt32(unit)) { run.unicodeScalars.append(s) }
            }
            high = nil
            if run.utf8.count >= 4096 { flush(into: &text) }
        }

        mutating func flush(into text: inout TextBuffer) {
            if !run.isEmpty { text.append(run) }
            run = ""
        }

        mutating func finish(into text: inout TextBuffer) { flush(into: &text) }
    }
}
