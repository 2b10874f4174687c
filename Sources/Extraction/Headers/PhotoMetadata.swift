import ExtractionModel
import CExempi
import CExif
import CIPTC
import FoundationEssentials

/// The metadata of a photo, read from its EXIF (libexif), XMP (exempi) and IPTC (libiptcdata)
/// blocks. Each reader takes the bytes `ImageHeader` found and fills only what it sees.
///
/// EXIF dates ("2009:08:11 09:09:45") carry no zone: they are read as UTC unless the EXIF 2.31
/// `OffsetTimeOriginal` / `OffsetTime` tag gives the camera's offset, so a search by day matches
/// the day the camera showed.
struct PhotoMetadata {
    var make: String?
    var model: String?
    var orientation: Int?
    var created: Date?
    var exposureTime: Double?
    var fNumber: Double?
    var focalLength: Double?
    var isoSpeed: Int?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var pixelWidth: Int?
    var pixelHeight: Int?
    /// How many EXIF entries libexif read.
    var exifEntries = 0
    /// Set when the EXIF block's first directory lies outside it or overruns it.
    var exifDamaged = false

    var title: String?
    var authors: [String] = []
    var keywords: [String] = []
    var description: String?

    // MARK: EXIF

    /// Reads a TIFF stream of EXIF IFDs (IFD0, Exif, GPS).
    mutating func readEXIF(_ tiff: [UInt8]) {
        exifDamaged = !Self.firstDirectoryFits(tiff)
        guard let data = exif_data_new() else { return }
        defer { exif_data_unref(data) }
        // Read as written: FOLLOW_SPECIFICATION would add "mandatory" tags with made-up values.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_set_option(data, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE)
        let buffer = Array("Exif".utf8) + [0, 0] + tiff
        buffer.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32(clamping: $0.count)) }
        let order = exif_data_get_byte_order(data)
        for ifd in [EXIF_IFD_0, EXIF_IFD_EXIF, EXIF_IFD_GPS] {
            exifEntries += Int(cexif_content(data, ifd)?.pointee.count ?? 0)
        }
        guard exifEntries > 0 else { return }

        func entry(_ tag: UInt32, in ifds: [ExifIfd] = [EXIF_IFD_0, EXIF_IFD_EXIF]) -> EXIFValue? {
            for ifd in ifds {
                if let c = cexif_content(data, ifd), let e = exif_content_get_entry(c, ExifTag(rawValue: tag)),
                   let v = EXIFValue(e, order) { return v }
            }
            return nil
        }
        make = entry(0x010F)?.text
        model = entry(0x0110)?.text
        orientation = entry(0x0112)?.integer.flatMap { (1...8).contains($0) ? $0 : nil }
        let original = entry(0x9003)?.text.flatMap { Self.exifDate($0, offset: entry(0x9011)?.text) }
        created = original ?? entry(0x0132)?.text.flatMap { Self.exifDate($0, offset: entry(0x9010)?.text) }
        exposureTime = entry(0x829A)?.number(0).flatMap { $0 > 0 ? $0 : nil }
        fNumber = entry(0x829D)?.number(0).flatMap { $0 > 0 ? $0 : nil }
        focalLength = entry(0x920A)?.number(0).flatMap { $0 > 0 ? $0 : nil }
        isoSpeed = entry(0x8827)?.integer.flatMap { $0 > 0 ? $0 : nil }
        pixelWidth = entry(0xA002)?.integer.flatMap { $0 > 0 ? $0 : nil }
        pixelHeight = entry(0xA003)?.integer.flatMap { $0 > 0 ? $0 : nil }

        let gps = [EXIF_IFD_GPS]
        func coordinate(_ tag: UInt32, ref: UInt32, negative: String, limit: Double) -> Double? {
            guard let v = entry(tag, in: gps), let d = v.number(0) else { return nil }
            let degrees = d + (v.number(1) ?? 0) / 60 + (v.number(2) ?? 0) / 3600
            guard degrees.isFinite, degrees <= limit else { return nil }
            return entry(ref, in: gps)?.text?.uppercased() == negative ? -degrees : degrees
        }
        latitude = coordinate(0x0002, ref: 0x0001, negative: "S", limit: 90)
        longitude = coordinate(0x0004, ref: 0x0003, negative: "W", limit: 180)
        if let a = entry(0x0006, in: gps)?.number(0), a.isFinite {
            altitude = entry(0x0005, in: gps)?.integer == 1 ? -a : a
        }
    }

    /// Whether IFD0 of a TIFF stream (and its entries) lies inside the stream.
    static func firstDirectoryFits(_ t: [UInt8]) -> Bool {
        guard t.count >= 8 else { return false }
        let big = t[0] == 0x4D
        func u(_ i: Int, _ n: Int) -> Int {
            let b = t[i..<(i + n)]
            return big ? b.reduce(0) { $0 << 8 | Int($1) } : b.reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        let ifd = u(4, 4)
        guard ifd >= 8, ifd + 2 <= t.count else { return false }
        return ifd + 2 + 12 * u(ifd, 2) <= t.count
    }

    /// One EXIF entry's value, checked against its declared size.
    struct EXIFValue {
        let format: ExifFormat
        let bytes: [UInt8]
        let count: Int
        let order: ExifByteOrder

        init?(_ e: UnsafeMutablePointer<ExifEntry>, _ order: ExifByteOrder) {
            guard let data = e.pointee.data else { return nil }
            let unit = Int(exif_format_get_size(e.pointee.format))
            let size = Int(e.pointee.size), count = Int(e.pointee.components)
            guard unit > 0, count > 0, count <= size / unit else { return nil }
            format = e.pointee.format
            bytes = Array(UnsafeBufferPointer(start: data, count: size))
            self.count = count
            self.order = order
        }

        /// ASCII (or UTF-8) text up to the first NUL, trimmed; nil when empty.
        var text: String? {
            guard format == EXIF_FORMAT_ASCII || format == EXIF_FORMAT_UNDEFINED || format == EXIF_FORMAT_BYTE else { return nil }
            let raw = bytes.prefix { $0 != 0 }
            let s = String(validating: raw, as: UTF8.self) ?? String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) }))
            let t = s.trimmingSpaces()
            return t.isEmpty ? nil : t
        }

        /// The first value as an integer (BYTE, SHORT, LONG and their signed forms).
        var integer: Int? {
            bytes.withUnsafeBufferPointer { p -> Int? in
                guard let b = p.baseAddress else { return nil }
                switch format {
                case EXIF_FORMAT_BYTE, EXIF_FORMAT_UNDEFINED: return Int(b[0])
                case EXIF_FORMAT_SBYTE: return Int(Int8(bitPattern: b[0]))
                case EXIF_FORMAT_SHORT: return Int(exif_get_short(b, order))
                case EXIF_FORMAT_SSHORT: return Int(exif_get_sshort(b, order))
                case EXIF_FORMAT_LONG: return Int(exif_get_long(b, order))
                case EXIF_FORMAT_SLONG: return Int(exif_get_slong(b, order))
                default: return nil
                }
            }
        }

        /// The `i`th value as a number (rationals divided out); nil for a zero denominator.
        func number(_ i: Int) -> Double? {
            guard i < count else { return nil }
            return bytes.withUnsafeBufferPointer { p -> Double? in
                guard let b = p.baseAddress else { return nil }
                switch format {
                case EXIF_FORMAT_RATIONAL:
                    let r = exif_get_rational(b + 8 * i, order)
                    return r.denominator == 0 ? nil : Double(r.numerator) / Double(r.denominator)
                case EXIF_FORMAT_SRATIONAL:
                    let r = exif_get_srational(b + 8 * i, order)
                    return r.denominator == 0 ? nil : Double(r.numerator) / Double(r.denominator)
                case EXIF_FORMAT_SHORT: return Double(exif_get_short(b + 2 * i, order))
                case EXIF_FORMAT_LONG: return Double(exif_get_long(b + 4 * i, order))
                default: return i == 0 ? integer.map(Double.init) : nil
                }
            }
        }
    }

    /// "YYYY:MM:DD HH:MM:SS" (dashes accepted too), at the given "+HH:MM" offset or else UTC.
    static func exifDate(_ s: String, offset: String? = nil) -> Date? {
        let digits = s.utf8.filter { $0 >= 0x30 && $0 <= 0x39 }.map { Int($0 - 0x30) }
        guard digits.count >= 14, s.utf8.count >= 19 else { return nil }
        func num(_ from: Int, _ n: Int) -> Int { digits[from..<(from + n)].reduce(0) { $0 * 10 + $1 } }
        let (y, mo, d, h, mi, se) = (num(0, 4), num(4, 2), num(6, 2), num(8, 2), num(10, 2), num(12, 2))
        guard y >= 1800, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61 else { return nil }
        var seconds = Double(daysFromCivil(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + se)
        if let o = offset?.trimmingSpaces(), o.utf8.count == 6, let sign = o.first, sign == "+" || sign == "-",
           let oh = Int(o.dropFirst().prefix(2)), let om = Int(o.suffix(2)) {
            seconds -= Double((oh * 3600 + om * 60) * (sign == "-" ? -1 : 1))
        }
        return Date(timeIntervalSince1970: seconds)
    }


    // MARK: XMP

    /// Runs `xmp_init` once per process.
    static let xmpReady: Bool = xmp_init()

    static let dublinCore = "http://purl.org/dc/elements/1.1/"

    /// Reads dc:title, dc:creator, dc:subject and dc:description from an XMP packet; these win
    /// over IPTC, so call it after `readIPTC`.
    mutating func readXMP(_ packet: [UInt8]) {
        guard Self.xmpReady, !packet.isEmpty else { return }
        let parsed = packet.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { xmp_new($0.baseAddress, $0.count) }
        }
        guard let xmp = parsed else { return }
        defer { xmp_free(xmp) }
        guard let value = xmp_string_new() else { return }
        defer { xmp_string_free(value) }
        func text() -> String? {
            guard let c = xmp_string_cstr(value) else { return nil }
            let s = String(cString: c).trimmingSpaces()
            return s.isEmpty ? nil : s
        }
        func localized(_ name: String) -> String? {
            xmp_get_localized_text(xmp, Self.dublinCore, name, "", "x-default", nil, value, nil) ? text() : nil
        }
        func list(_ name: String) -> [String] {
            var out: [String] = []
            var i: Int32 = 1
            while i <= 1000, xmp_get_array_item(xmp, Self.dublinCore, name, i, value, nil) {
                if let s = text() { out.append(s) }
                i += 1
            }
            return out
        }
        if let t = localized("title") { title = t }
        if let d = localized("description") { description = d }
        let creators = list("creator"), subjects = list("subject")
        if !creators.isEmpty { authors = creators }
        if !subjects.isEmpty { keywords = subjects }
    }

    // MARK: IPTC

    /// Reads IPTC-IIM records from a Photoshop resource block (JPEG APP13).
    mutating func readPhotoshop(_ block: [UInt8]) {
        block.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            var length: UInt32 = 0
            let offset = Int(iptc_jpeg_ps3_find_iptc(base, UInt32(clamping: p.count), &length))
            guard offset > 0, offset + Int(length) <= p.count else { return }
            readIPTC(UnsafeBufferPointer(rebasing: p[offset..<(offset + Int(length))]))
        }
    }

    /// Reads raw IPTC-IIM records (TIFF tag 33723).
    mutating func readIPTC(_ records: [UInt8]) {
        records.withUnsafeBufferPointer { readIPTC($0) }
    }

    /// ObjectName (2:05) → title, By-line (2:80) → authors, Keywords (2:25) → keywords,
    /// Caption/Abstract (2:120) → description. Text is UTF-8 when 1:90 says so or when it is valid
    /// UTF-8, else Latin-1.
    private mutating func readIPTC(_ p: UnsafeBufferPointer<UInt8>) {
        guard let base = p.baseAddress, p.count > 0,
              let data = iptc_data_new_from_data(base, UInt32(clamping: p.count)) else { return }
        defer { iptc_data_unref(data) }
        var byline: [String] = [], words: [String] = []
        for i in 0..<Int(data.pointee.count) {
            guard let set = data.pointee.datasets?[i], let bytes = set.pointee.data else { continue }
            let raw = UnsafeBufferPointer(start: bytes, count: Int(set.pointee.size))
            let value = (String(validating: raw, as: UTF8.self) ?? String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) })))
                .trimmingSpaces()
            guard set.pointee.record.rawValue == 2, !value.isEmpty else { continue }
            switch set.pointee.tag.rawValue {
            case 5: title = title ?? value
            case 25: words.append(value)
            case 80: byline.append(value)
            case 120: description = description ?? value
            default: break
            }
        }
        if !byline.isEmpty { authors = byline }
        if !words.isEmpty { keywords = words }
    }
}
