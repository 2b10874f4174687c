import ExtractionModel
/// The text of an Excel 97+ `Workbook` stream ([MS-XLS]): BIFF8 records (type, length, data).
/// Sheet names come from `BoundSheet8` (0x0085) and cell text from the shared string table
/// (`SST`, 0x00FC, continued in `CONTINUE` records, 0x003C).
enum ExcelText {
    enum Outcome: Equatable { case done, encrypted }

    static let maxStrings = 1_000_000

    static func read(_ book: [UInt8], into text: inout TextBuffer) -> Outcome {
        var i = 0
        var sheets: [String] = []
        while i + 4 <= book.count, !text.isFull {
            guard let type = book.ole16(i), let length = book.ole16(i + 2) else { break }
            let body = i + 4
            let end = min(book.count, body + length)
            switch type {
            case 0x002F:   // FILEPASS
                return .encrypted
            case 0x0085:   // BoundSheet8: lbPlyPos(4) hsState(1) dt(1) stName (ShortXLUnicodeString)
                if body + 8 <= end {
                    let cch = Int(book[body + 6]), high = book[body + 7] & 0x01 != 0
                    var segments = Segments([Array(book[(body + 8)..<end])])
                    if let name = segments.characters(cch, high: high), let clean = DocumentFields.clean(name) {
                        sheets.append(clean)
                    }
                }
            case 0x00FC:   // SST, then its CONTINUE records
                for name in sheets { text.append(name); text.breakLine() }
                sheets = []
                var parts = [Array(book[body..<end])]
                var j = end
                while j + 4 <= book.count, book.ole16(j) == 0x003C, let l = book.ole16(j + 2) {
                    parts.append(Array(book[(j + 4)..<min(book.count, j + 4 + l)]))
                    j += 4 + l
                }
                readSST(Segments(parts), into: &text)
                i = j
                continue
            default:
                break
            }
            i = body + length
        }
        for name in sheets { text.append(name); text.breakLine() }
        return .done
    }

    private static func readSST(_ segments: Segments, into text: inout TextBuffer) {
        var s = segments
        guard s.skip(4), let unique = s.u32() else { return }
        for _ in 0..<min(unique, maxStrings) {
            guard let cch = s.u16(), let flags = s.u8() else { return }
            var runs = 0, ext = 0
            if flags & 0x08 != 0 { guard let r = s.u16() else { return }; runs = r }
            if flags & 0x04 != 0 { guard let e = s.u32() else { return }; ext = e }
            guard let value = s.characters(cch, high: flags & 0x01 != 0) else { return }
            guard s.skip(runs * 4 + ext) else {
                text.append(value)
                return
            }
            text.append(value)
            text.breakLine()
            if text.isFull { return }
        }
    }

    /// A record's data split over CONTINUE records. Characters of one string may continue in
    /// the next segment, which then starts with a fresh option byte (8- or 16-bit characters).
    struct Segments {
        var parts: [[UInt8]]
        var part = 0
        var offset = 0

        init(_ parts: [[UInt8]]) { self.parts = parts }

        private mutating func advanceIfAtEnd() -> Bool {
            while part < parts.count, offset >= parts[part].count {
                part += 1
                offset = 0
            }
            return part < parts.count
        }

        mutating func u8() -> Int? {
            guard advanceIfAtEnd() else { return nil }
            defer { offset += 1 }
            return Int(parts[part][offset])
        }

        mutating func u16() -> Int? {
            guard let a = u8(), let b = u8() else { return nil }
            return a | b << 8
        }

        mutating func u32() -> Int? {
            guard let a = u16(), let b = u16() else { return nil }
            return a | b << 16
        }

        mutating func skip(_ n: Int) -> Bool {
            var left = n
            while left > 0 {
                guard advanceIfAtEnd() else { return false }
                let take = min(left, parts[part].count - offset)
                offset += take
                left -= take
            }
            return true
        }

        /// `count` characters, 16-bit when `high`; a segment boundary inside them switches the
        /// width to the new segment's option byte.
        mutating func characters(_ count: Int, high: Bool) -> String? {
            var units: [UInt16] = []
            units.reserveCapacity(count)
            var wide = high
            while units.count < count {
                if part < parts.count, offset >= parts[part].count {
                    part += 1
                    offset = 0
                    guard part < parts.count, !parts[part].isEmpty else { return nil }
                    wide = parts[part][0] & 0x01 != 0
                    offset = 1
                    continue
                }
                guard part < parts.count else { return nil }
                if wide {
                    guard offset + 2 <= parts[part].count else { return nil }
                    units.append(UInt16(parts[part][offset]) | UInt16(parts[part][offset + 1]) << 8)
                    offset += 2
                } else {
                    units.append(UInt16(TextDecoding.windows1252(parts[part][offset]).value))
                    offset += 1
                }
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}
