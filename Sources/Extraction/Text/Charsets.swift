import ExtractionModel
import CUchardet
import Glibc

/// Legacy (non-Unicode) encodings: guessing one with uchardet and converting with iconv(3).
///
/// Only used for bytes that are neither valid UTF-8 nor marked by a byte-order mark, so the
/// common case never pays for it. uchardet sees at most `sampleBytes`; iconv converts all bytes.
///
/// For example:
/// ```swift
/// Charsets.guess(koi8rBytes[...])                       // "KOI8-R"
/// Charsets.convert(koi8rBytes[...], from: "KOI8-R", isComplete: true)?.text   // "Привет"
/// Charsets.name(ofDetected: "SHIFT_JIS")                // "shift_jis"
/// ```
enum Charsets {
    /// Bytes given to uchardet: enough for a confident guess, bounded for large files.
    static let sampleBytes = 64 * 1024

    /// uchardet's guess for `bytes` (its own upper-case name, such as `SHIFT_JIS`, `WINDOWS-1252`,
    /// `UTF-16`), or nil when it has none. uchardet 0.0.7 (Debian 12) does not recognise
    /// UTF-16 without a byte-order mark, nor EBCDIC.
    static func guess(_ bytes: ArraySlice<UInt8>) -> String? {
        guard !bytes.isEmpty, let detector = uchardet_new() else { return nil }
        defer { uchardet_delete(detector) }
        let sample = bytes.prefix(sampleBytes)
        let status = sample.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { uchardet_handle_data(detector, $0.baseAddress, $0.count) }
        }
        uchardet_data_end(detector)
        guard status == 0, let c = uchardet_get_charset(detector) else { return nil }
        let name = String(cString: c)
        return name.isEmpty ? nil : name
    }

    /// The charsets uchardet 0.0.7 can answer, as iconv names (plus EBCDIC, which is found here).
    static let detectable = [
        "ISO-8859-1", "ISO-8859-2", "ISO-8859-3", "ISO-8859-4", "ISO-8859-5", "ISO-8859-6", "ISO-8859-7", "ISO-8859-8",
        "ISO-8859-9", "ISO-8859-10", "ISO-8859-11", "ISO-8859-13", "ISO-8859-15", "ISO-8859-16",
        "WINDOWS-1250", "WINDOWS-1251", "WINDOWS-1252", "WINDOWS-1253", "WINDOWS-1255", "WINDOWS-1256", "WINDOWS-1257",
        "WINDOWS-1258", "KOI8-R", "IBM855", "IBM866", "MAC-CYRILLIC", "MAC-CENTRALEUROPE", "TIS-620", "VISCII",
        "SHIFT_JIS", "EUC-JP", "ISO-2022-JP", "GB18030", "BIG5", "EUC-TW", "HZ-GB-2312", "EUC-KR", "UHC", "ISO-2022-KR",
        "ISO-2022-CN", "IBM500",
    ]

    /// Of the two Greek charsets uchardet confuses (it answers `ISO-8859-7` for Greek in
    /// `WINDOWS-1253` and the other way round: their letters 0xB8–0xFE are the same), the one
    /// the bytes decide for, else `guess` unchanged. They differ where Greek text shows it:
    /// windows-1253 has `Ά` at 0xA2, typographic marks at 0x80–0x9F (C1 controls in
    /// ISO-8859-7) and `®` at 0xAE (unassigned in ISO-8859-7); ISO-8859-7 has `Ά` at 0xB6 (`¶`
    /// in windows-1253), quotes at 0xA1/0xA2 and `ͺ` at 0xAA (unassigned in windows-1253).
    /// So 0xA2 before a letter is windows-1253's `Ά` (a word's capital), 0xB5 before a Latin
    /// letter its `µ` (`5 µg`), 0xB6 or 0xA1 before a letter ISO-8859-7's `Ά` or opening
    /// quote; each such byte is a vote, and the charset
    /// with more votes is the one in which the text decodes to words. Other charsets are
    /// returned as they are.
    ///
    /// For example, `Άλλα` in windows-1253 is `A2 EB EB E1`: read as ISO-8859-7 it would be
    /// `’λλα`, so `greekVariant("ISO-8859-7", of: …)` is `"WINDOWS-1253"`.
    static func greekVariant(_ guess: String, of bytes: ArraySlice<UInt8>) -> String {
        let upper = guess.uppercased()
        guard upper == "ISO-8859-7" || upper == "WINDOWS-1253" else { return guess }
        /// A Greek letter in both charsets (0xB8–0xFE less 0xBB `»`, 0xBD `½` and unassigned 0xD2).
        func isLetter(_ b: UInt8) -> Bool { b >= 0xB8 && b != 0xBB && b != 0xBD && b != 0xD2 && b != 0xFF }
        let unassignedIn1253: Set<UInt8> = [0x81, 0x88, 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x90, 0x98, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F]
        let sample = Array(bytes.prefix(sampleBytes))
        var windows = 0, iso = 0
        for (i, b) in sample.enumerated() where b >= 0x80 && b < 0xB8 {
            let beforeLetter = i + 1 < sample.count && isLetter(sample[i + 1])
            switch b {
            case 0x80...0x9F where !unassignedIn1253.contains(b): windows += 1
            case 0xAE: windows += 1
            case 0xA2 where beforeLetter: windows += 1
            // `µ` before a Latin letter (`5 µg`, `µm`): ISO-8859-7's `΅` never is.
            case 0xB5 where i + 1 < sample.count && (sample[i + 1] | 0x20) >= 0x61 && (sample[i + 1] | 0x20) <= 0x7A: windows += 1
            case 0xAA: iso += 1
            case 0xA1 where beforeLetter, 0xB6 where beforeLetter: iso += 1
            default: break
            }
        }
        if windows > iso { return "WINDOWS-1253" }
        if iso > windows { return "ISO-8859-7" }
        return guess
    }

    /// Opens and closes an iconv converter for every charset in `detectable`, so that glibc has
    /// loaded their gconv modules before a sandbox forbids it.
    static func preloadConverters() {
        for charset in detectable {
            let cd = iconv_open("UTF-8", charset)
            if let cd, Int(bitPattern: cd) != -1 { iconv_close(cd) }
        }
    }

    /// The name recorded in `encoding` for a uchardet charset: lower-case IANA names where there
    /// is one (`shift_jis`, `euc-jp`, `gb18030`, `koi8-r`, `ibm866`, `windows-1251`), the name
    /// browsers use otherwise (`x-mac-cyrillic`), `cp949` for Korean "UHC".
    static func name(ofDetected charset: String) -> String {
        switch charset.uppercased() {
        case "UHC": "cp949"
        case "MAC-CYRILLIC": "x-mac-cyrillic"
        case "MAC-CENTRALEUROPE": "x-mac-ce"
        case "ASCII": "us-ascii"
        default: charset.lowercased()
        }
    }

    /// The bytes converted to UTF-8 by iconv(3) from `charset` (any name glibc knows), and how
    /// many invalid sequences were replaced by U+FFFD. A multi-byte character cut at the end of
    /// an incomplete prefix is dropped silently; at the end of a whole file it counts as an error.
    /// Nil when iconv does not know the charset.
    static func convert(_ bytes: ArraySlice<UInt8>, from charset: String, isComplete: Bool) -> (text: String, errors: Int)? {
        let cd = iconv_open("UTF-8", charset)
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        defer { iconv_close(cd) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2 + 16)
        var errors = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        bytes.withUnsafeBufferPointer { input in
            guard let base = input.baseAddress else { return }
            var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
            var inLeft = input.count
            var flushed = false
            while inLeft > 0 || !flushed {
                let flushing = inLeft == 0
                var failure: Int32 = 0
                let produced: Int = chunk.withUnsafeMutableBufferPointer { ob in
                    var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(ob.baseAddress!).assumingMemoryBound(to: CChar.self)
                    var outLeft = ob.count
                    let r = flushing ? iconv(cd, nil, nil, &outPtr, &outLeft) : iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    if r == -1 { failure = errno }
                    return ob.count - outLeft
                }
                out.append(contentsOf: chunk[0..<produced])
                if flushing { flushed = true; break }
                switch failure {
                case 0, E2BIG:
                    continue
                case EINVAL:   // an incomplete sequence at the end of the input
                    if isComplete {
                        errors += 1
                        out.append(contentsOf: replacement)
                    }
                    inLeft = 0
                default:       // EILSEQ: skip one byte
                    errors += 1
                    out.append(contentsOf: replacement)
                    inPtr = inPtr.map { $0 + 1 }
                    inLeft -= 1
                }
            }
        }
        return (String(decoding: out, as: UTF8.self), errors)
    }

    /// Unicode without a byte-order mark: UTF-32 whose every unit is a valid scalar, or UTF-16
    /// whose NUL bytes (the high half of ASCII characters) sit on one side. Returns the
    /// encoding name (`utf-16le`, ...), or nil.
    static func unicodeWithoutBOM(_ bytes: ArraySlice<UInt8>) -> String? {
        let s = Array(bytes.prefix(sampleBytes))
        guard s.count >= 8 else { return nil }
        // UTF-32: every complete unit is at most 0x10FFFF and not zero.
        func utf32(bigEndian: Bool) -> Bool {
            var units = 0
            for i in stride(from: 0, to: s.count - 3, by: 4) {
                let (top, next, low1, low0) = bigEndian ? (s[i], s[i + 1], s[i + 2], s[i + 3]) : (s[i + 3], s[i + 2], s[i + 1], s[i])
                guard top == 0, next <= 0x10, next != 0 || low1 != 0 || low0 != 0 else { return false }
                units += 1
            }
            return units >= 2
        }
        if utf32(bigEndian: false) { return "utf-32le" }
        if utf32(bigEndian: true) { return "utf-32be" }
        // UTF-16: NULs at odd offsets (LE) or even offsets (BE), hardly any on the other side,
        // and no NUL unit.
        var even = 0, odd = 0, nulUnits = 0
        for i in stride(from: 0, to: s.count - 1, by: 2) {
            if s[i] == 0 { even += 1 }
            if s[i + 1] == 0 { odd += 1 }
            if s[i] == 0 && s[i + 1] == 0 { nulUnits += 1 }
        }
        let units = s.count / 2
        guard nulUnits * 100 <= units else { return nil }
        if odd * 5 >= units, even * 100 <= units { return "utf-16le" }
        if even * 5 >= units, odd * 100 <= units { return "utf-16be" }
        return nil
    }

    /// UTF-16 without a byte-order mark and (nearly) without ASCII, such as Korean or Chinese
    /// text, whose NUL bytes, if any, follow no pattern: recognised when at least 95 % of the
    /// units of one byte order fall in the blocks of common scripts. Only asked after the NUL
    /// pattern check and uchardet found nothing.
    static func scriptUTF16(_ bytes: ArraySlice<UInt8>) -> String? {
        let s = Array(bytes.prefix(sampleBytes))
        guard s.count >= 16 else { return nil }
        func share(bigEndian: Bool) -> Double {
            var good = 0, units = 0
            for i in stride(from: 0, to: s.count - 1, by: 2) {
                let u = bigEndian ? UInt16(s[i]) << 8 | UInt16(s[i + 1]) : UInt16(s[i + 1]) << 8 | UInt16(s[i])
                units += 1
                switch u {
                case 0x00A0...0x024F, 0x0370...0x04FF, 0x0590...0x06FF, 0x0900...0x097F, 0x0E00...0x0E7F,
                     0x2000...0x206F, 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF00...0xFFEF:
                    good += 1
                default:
                    break
                }
            }
            return units == 0 ? 0 : Double(good) / Double(units)
        }
        let le = share(bigEndian: false), be = share(bigEndian: true)
        if le >= 0.95, le > be { return "utf-16le" }
        if be >= 0.95, be > le { return "utf-16be" }
        return nil
    }

    /// EBCDIC (IBM code page 500/037) text: the EBCDIC space 0x40 is frequent and nearly every
    /// byte is an EBCDIC letter, digit, space, common punctuation or line end. ASCII text fails
    /// this at once: its lower-case letters (0x61–0x7A) are not EBCDIC letters.
    static func looksEBCDIC(_ bytes: ArraySlice<UInt8>) -> Bool {
        let s = bytes.prefix(sampleBytes)
        guard s.count >= 16 else { return false }
        var spaces = 0, text = 0
        for b in s {
            switch b {
            case 0x40:
                spaces += 1
                text += 1
            case 0x81...0x89, 0x91...0x99, 0xA2...0xA9, 0xC1...0xC9, 0xD1...0xD9, 0xE2...0xE9, 0xF0...0xF9,
                 0x4B, 0x4D, 0x4E, 0x5A, 0x5C, 0x5D, 0x5E, 0x60, 0x61, 0x6B, 0x6C, 0x6D, 0x6F, 0x7A, 0x7B, 0x7D, 0x7E, 0x7F,
                 0x05, 0x0D, 0x15, 0x25:
                text += 1
            default:
                break
            }
        }
        return spaces * 100 >= s.count * 8 && text * 100 >= s.count * 90
    }
}
