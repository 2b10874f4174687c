import ExtractionModel
import Glibc

/// Decodes bytes in a Windows code page (RTF `\ansicpg`, `\fcharset`; 8-bit Word text) to a
/// string. Windows-1252 is decoded here; other code pages go through glibc's iconv (`CP932`,
/// `CP1251`, ...). Bytes iconv rejects become U+FFFD. One value per document: it caches its
/// iconv handles and must be closed with `close()`; it is not shared between threads.
///
/// For example, `WindowsCodePages().decode([0x82, 0xB1], codePage: 932)` is `"こ"`.
final class WindowsCodePages {
    private var handles: [Int: iconv_t?] = [:]

    init() {}

    deinit {
        for case let h? in handles.values { iconv_close(h) }
    }

    /// The code page an RTF `\fcharsetN` names, if it differs from ANSI (0).
    static func codePage(forCharset charset: Int) -> Int? {
        switch charset {
        case 77: 10000
        case 128: 932
        case 129: 949
        case 130: 1361
        case 134: 936
        case 136: 950
        case 161: 1253
        case 162: 1254
        case 163: 1258
        case 177: 1255
        case 178: 1256
        case 186: 1257
        case 204: 1251
        case 222: 874
        case 238: 1250
        case 254: 437
        default: nil
        }
    }

    /// The iconv name of a Windows code page number.
    static func iconvName(_ codePage: Int) -> String {
        switch codePage {
        case 10000: "MACINTOSH"
        case 65001: "UTF-8"
        case 20127: "ASCII"
        case 28591: "ISO-8859-1"
        case 1200: "UTF-16LE"
        default: "CP\(codePage)"
        }
    }

    func decode(_ bytes: [UInt8], codePage: Int) -> String {
        if bytes.isEmpty { return "" }
        if codePage == 1252 || codePage == 0 {
            var s = String.UnicodeScalarView()
            for b in bytes { s.append(TextDecoding.windows1252(b)) }
            return String(s)
        }
        if codePage == 65001 { return String(decoding: bytes, as: UTF8.self) }
        let handle: iconv_t?
        if let cached = handles[codePage] {
            handle = cached
        } else {
            let h = iconv_open("UTF-8", Self.iconvName(codePage))
            handle = h == iconv_t(bitPattern: -1) ? nil : h
            handles[codePage] = handle
        }
        guard let handle else {   // unknown code page: Windows-1252 is the best guess
            return decode(bytes, codePage: 1252)
        }
        _ = iconv(handle, nil, nil, nil, nil)   // reset shift state
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 16)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * 2)
        input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                let inBase = UnsafeMutableRawPointer(inBuf.baseAddress!).assumingMemoryBound(to: CChar.self)
                let outBase = UnsafeMutableRawPointer(outBuf.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inPtr: UnsafeMutablePointer<CChar>? = inBase
                var inLeft = inBuf.count
                while inLeft > 0 {
                    var outPtr: UnsafeMutablePointer<CChar>? = outBase
                    var outLeft = outBuf.count
                    let r = iconv(handle, &inPtr, &inLeft, &outPtr, &outLeft)
                    let produced = outBuf.count - outLeft
                    result.append(contentsOf: UnsafeRawBufferPointer(start: outBuf.baseAddress, count: produced))
                    if r == -1 {
                        let err = errno
                        if err == E2BIG { continue }
                        // EILSEQ or EINVAL (a cut multi-byte character): skip one byte.
                        result.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        inPtr = inPtr.map { $0 + 1 }
                        inLeft -= 1
                        _ = iconv(handle, nil, nil, nil, nil)
                    }
                }
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
