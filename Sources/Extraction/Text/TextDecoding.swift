import ExtractionModel
/// Turning bytes of unknown encoding into text: byte-order marks, UTF-8 validation, legacy
/// encodings guessed by uchardet and converted by iconv, a Latin-1/Windows-1252 fallback, and
/// the binary check that keeps non-text out of the index.
///
/// For example:
/// ```swift
/// TextDecoding.decode([0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], isComplete: true)   // ("hi", "utf-16le")
/// TextDecoding.decode([0x63, 0x61, 0x66, 0xE9], isComplete: true)               // ("café", "iso-8859-1")
/// TextDecoding.decode(koi8r, isComplete: true)                                   // ("Привет …", "koi8-r")
/// TextDecoding.decode([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x00], isComplete: true)   // nil: binary
/// ```
///
/// The order, cheapest and surest first: a byte-order mark; libmagic's UTF-16 hint; for bytes
/// that look binary (NULs), UTF-16/32 without a BOM or EBCDIC, else binary; valid UTF-8 (the
/// fast path: no uchardet call); EBCDIC; uchardet's guess (on the first 64 KiB; between the
/// two Greek charsets, the one the bytes decide for: `Charsets.greekVariant`) converted by
/// iconv; UTF-16 without NULs; finally Windows-1252/Latin-1.
///
/// Decoding errors: invalid sequences become U+FFFD. When more than 2 % of the bytes are
/// invalid in the guessed charset, the guess is dropped for the Windows-1252/Latin-1 fallback,
/// which never fails and keeps ASCII words searchable. When the guess decodes to exactly the
/// same text as that fallback (uchardet often says `windows-1250` or `iso-8859-2` for a Western
/// text with a few accents), the fallback's more common name is recorded.
package enum TextDecoding {
    package struct Decoded: Sendable, Hashable {
        package var text: String
        /// The IANA-style name: `utf-8`, `utf-16le`, `utf-16be`, `utf-32le`, `utf-32be`,
        /// `iso-8859-1`, `windows-1252`, or a detected legacy charset (`shift_jis`, `euc-jp`,
        /// `gb18030`, `big5`, `euc-kr`, `cp949`, `koi8-r`, `ibm866`, `windows-1251`, `ibm500`, ...).
        package var encoding: String
    }

    /// The encoding a byte-order mark announces, and the mark's length.
    package static func byteOrderMark(_ b: ArraySlice<UInt8>) -> (encoding: String, length: Int)? {
        let s = Array(b.prefix(4))
        if s.count >= 4, s[0] == 0xFF, s[1] == 0xFE, s[2] == 0, s[3] == 0 { return ("utf-32le", 4) }
        if s.count >= 4, s[0] == 0, s[1] == 0, s[2] == 0xFE, s[3] == 0xFF { return ("utf-32be", 4) }
        if s.count >= 3, s[0] == 0xEF, s[1] == 0xBB, s[2] == 0xBF { return ("utf-8", 3) }
        if s.count >= 2, s[0] == 0xFF, s[1] == 0xFE { return ("utf-16le", 2) }
        if s.count >= 2, s[0] == 0xFE, s[1] == 0xFF { return ("utf-16be", 2) }
        return nil
    }

    /// Decodes `bytes`, or returns nil when they look binary.
    /// - Parameters:
    ///   - isComplete: false when the bytes are a prefix of the file, so that a character cut
    ///     at the end does not make valid UTF-8 look invalid.
    ///   - hint: libmagic's charset (`utf-16le` without a BOM is only known from it; `binary`
    ///     means libmagic found no text encoding at all).
    package static func decode(_ bytes: ArraySlice<UInt8>, isComplete: Bool, hint: String? = nil) -> Decoded? {
        if let (encoding, length) = byteOrderMark(bytes) {
            return Decoded(text: decode(bytes.dropFirst(length), as: encoding), encoding: encoding)
        }
        if let hint, hint == "utf-16le" || hint == "utf-16be" {
            return Decoded(text: decode(bytes, as: hint), encoding: hint)
        }
        if hint == "binary" || looksBinary(bytes) {
            if let unicode = Charsets.unicodeWithoutBOM(bytes) {
                return Decoded(text: decode(bytes, as: unicode), encoding: unicode)
            }
            if let ebcdic = decodeEBCDIC(bytes, isComplete: isComplete) { return ebcdic }
            if let unicode = Charsets.scriptUTF16(bytes) { return Decoded(text: decode(bytes, as: unicode), encoding: unicode) }
            return nil
        }
        if let text = validUTF8(bytes, isComplete: isComplete) { return Decoded(text: text, encoding: "utf-8") }
        if let ebcdic = decodeEBCDIC(bytes, isComplete: isComplete) { return ebcdic }
        // uchardet needs material: with one to three non-ASCII bytes its guess is noise
        // (`caf\xE9` is "windows-1258"), and Windows-1252/Latin-1 is the likelier answer.
        var high = 0
        for b in bytes.prefix(Charsets.sampleBytes) where b >= 0x80 {
            high += 1
            if high >= 4 { break }
        }
        guard high >= 4, let guessed = Charsets.guess(bytes) else {
            if let unicode = Charsets.scriptUTF16(bytes) { return Decoded(text: decode(bytes, as: unicode), encoding: unicode) }
            return singleByteFallback(bytes)
        }
        let guess = Charsets.greekVariant(guessed, of: bytes)
        let upper = guess.uppercased()
        if upper == "UTF-16" || upper == "UTF-32" || upper.hasPrefix("X-ISO-10646") || upper == "ASCII" {
            return singleByteFallback(bytes)   // no BOM and no NUL pattern: not really UTF-16/32; ASCII is valid UTF-8
        }
        guard let (text, errors) = Charsets.convert(bytes, from: guess, isComplete: isComplete), errors * 50 <= bytes.count
        else { return singleByteFallback(bytes) }
        if let name = fallbackName(ifSameAs: guess, for: bytes) { return Decoded(text: text, encoding: name) }
        return Decoded(text: text, encoding: Charsets.name(ofDetected: guess))
    }

    /// `windows-1252` or `iso-8859-1` when `charset` decodes every byte ≥ 0x80 used in `bytes`
    /// to the same character as that fallback does (so the text is the same), else nil. Checks
    /// the used bytes once each, separated by newlines, so a multi-byte charset fails at once.
    static func fallbackName(ifSameAs charset: String, for bytes: ArraySlice<UInt8>) -> String? {
        var used = [Bool](repeating: false, count: 128)
        bytes.withUnsafeBufferPointer { buf in
            used.withUnsafeMutableBufferPointer { u in
                for b in buf where b >= 0x80 { u[Int(b &- 0x80)] = true }
            }
        }
        let high = (0..<128).filter { used[$0] }.map { UInt8($0 + 0x80) }
        let usesC1 = high.contains { $0 <= 0x9F }
        let probe: [UInt8] = high.flatMap { [$0, 0x0A] }
        guard let (text, errors) = Charsets.convert(probe[...], from: charset, isComplete: true), errors == 0 else { return nil }
        let decoded = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard decoded.count == high.count else { return nil }
        for (b, d) in zip(high, decoded) {
            let expected = usesC1 ? windows1252(b) : Unicode.Scalar(b)
            guard d.count == 1, d.first == expected else { return nil }
        }
        return usesC1 ? "windows-1252" : "iso-8859-1"
    }

    /// Windows-1252 when a byte in 0x80–0x9F is used (typographic quotes and dashes), else Latin-1.
    static func singleByteFallback(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let usesC1 = bytes.contains { $0 >= 0x80 && $0 <= 0x9F }
        if usesC1 {
            return Decoded(text: String(String.UnicodeScalarView(bytes.map(windows1252))), encoding: "windows-1252")
        }
        return Decoded(text: String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })), encoding: "iso-8859-1")
    }

    /// EBCDIC text (IBM code page 500), recorded as `ibm500`.
    static func decodeEBCDIC(_ bytes: ArraySlice<UInt8>, isComplete: Bool) -> Decoded? {
        guard Charsets.looksEBCDIC(bytes), let (text, _) = Charsets.convert(bytes, from: "IBM500", isComplete: isComplete)
        else { return nil }
        return Decoded(text: text, encoding: "ibm500")
    }

    /// True for a NUL byte or more than 5 % of C0 control bytes (other than tab, newlines, form
    /// feed, backspace and escape) in the first 64 KiB.
    package static func looksBinary(_ bytes: ArraySlice<UInt8>) -> Bool {
        let sample = bytes.prefix(64 * 1024)
        var controls = 0
        for b in sample {
            if b == 0 { return true }
            if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D, b != 0x0C, b != 0x0B, b != 0x08, b != 0x1B { controls += 1 }
            else if b == 0x7F { controls += 1 }
        }
        return controls * 20 > sample.count
    }

    /// The bytes as UTF-8, allowing a cut character at the end of an incomplete prefix.
    static func validUTF8(_ bytes: ArraySlice<UInt8>, isComplete: Bool) -> String? {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        guard !isComplete else { return nil }
        for cut in 1...3 where bytes.count > cut {
            if let s = String(validating: bytes.dropLast(cut), as: UTF8.self) { return s }
        }
        return nil
    }

    /// Decodes a Unicode encoding named by `byteOrderMark`; invalid sequences become U+FFFD.
    package static func decode(_ bytes: ArraySlice<UInt8>, as encoding: String) -> String {
        let b = Array(bytes)
        switch encoding {
        case "utf-16le", "utf-16be":
            let big = encoding == "utf-16be"
            var units: [UInt16] = []
            units.reserveCapacity(b.count / 2)
            for i in stride(from: 0, to: b.count - 1, by: 2) {
                let (hi, lo): (UInt8, UInt8) = big ? (b[i], b[i + 1]) : (b[i + 1], b[i])
                units.append(UInt16(hi) << 8 | UInt16(lo))
            }
            return String(decoding: units, as: UTF16.self)
        case "utf-32le", "utf-32be":
            let big = encoding == "utf-32be"
            var scalars = String.UnicodeScalarView()
            for i in stride(from: 0, to: b.count - 3, by: 4) {
                let q: [UInt8] = big ? [b[i], b[i + 1], b[i + 2], b[i + 3]] : [b[i + 3], b[i + 2], b[i + 1], b[i]]
                let v = q.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                scalars.append(Unicode.Scalar(v) ?? "\u{FFFD}")
            }
            return String(scalars)
        default:
            return String(decoding: b, as: UTF8.self)
        }
    }

    /// Windows-1252: Latin-1 except 0x80–0x9F, which hold typographic marks (the five unused
    /// positions map to the C1 control of the same number, as browsers do).
    static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        guard byte >= 0x80 && byte <= 0x9F else { return Unicode.Scalar(byte) }
        let table: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
        ]
        return Unicode.Scalar(table[Int(byte - 0x80)]) ?? "\u{FFFD}"
    }

    /// `text` cut to at most `cap` bytes of UTF-8, on a character boundary, and whether it was cut.
    package static func capped(_ text: String, toUTF8Bytes cap: Int) -> (text: String, truncated: Bool) {
        guard text.utf8.count > cap else { return (text, false) }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: max(cap, 0))
        while end > text.startIndex, String.Index(end, within: text) == nil {
            end = text.utf8.index(before: end)
        }
        return (String(text[..<end]), true)
    }
}
