import Attributes
import Foundation

/// Apps' items, as Core Spotlight's `CSSearchableItem`s: one JSON object per line,
///
///     {"uniqueIdentifier": "n-42", "attributes": {"title": "Budget", "textContent": "…",
///      "contentURL": "https://notes.example/n/42", "keywords": ["work"],
///      "contentCreationDate": "2026-11-01T09:00:00Z", "expirationDate": "2027-01-01T00:00:00Z"}}
///
/// read into `SearchableItem`s of one domain. Any attribute name of ours is taken with its type
/// (dates as ISO 8601 text or seconds since 1970); anything else is an error naming the line, so
/// a typo never disappears in silence. Limits keep one app from filling the index: 256 KiB of
/// text and 64 attributes per item, 16 KiB for any other string (a title, a URL), 1,000 strings
/// and 64 KiB in all for a list (keywords, authors), 1,024-byte identifiers, 100,000 items per
/// batch. Values are taken exactly or refused: whole numbers within 64 bits, dates in the years
/// 0001 to 9999 (see `AttributeValue.supportedDates`).
package enum DonationReader {
    package static let maximumTextBytes = 256 * 1024
    /// Any string attribute but `textContent` (a title, a description, a URL).
    package static let maximumStringBytes = 16 * 1024
    /// A list attribute (`keywords`, `authors`): its strings, and their bytes together.
    package static let maximumListCount = 1_000
    package static let maximumListBytes = 64 * 1024
    package static let maximumAttributes = 64
    package static let maximumIdentifierBytes = 1024
    package static let maximumItems = 100_000
    package static let maximumClientStateBytes = 250
    /// A donated thumbnail (`thumbnailData`), decoded: a picture for a result list, not a photo.
    package static let maximumThumbnailBytes = 1 << 20
    /// The JSON text of one batch, with and without fsindexd: the daemon's socket takes a
    /// request line of this and its envelope (`WireFormat.maxRequestLine`), so a batch never
    /// passes one way and fails the other.
    package static let maximumBatchBytes = 64 << 20
    /// Nesting of an item's JSON (an item, its attributes, a list: 3 levels are used).
    package static let maximumDepth = 8

    /// Attributes an app may not set: the index's own bookkeeping and the file system's.
    static let reserved: Set<AttributeKey> = [.path, .domainIdentifier, .extractor, .extractionError, .fileIdentifier,
                                              .filePermissions, .symlinkTarget, .fsCreationDate, .fsContentChangeDate,
                                              .contentTypeTree]

    /// A domain name apps can use: short, plain, and never a path.
    package static func validate(domain: String) throws(DonationError) {
        let ok = !domain.isEmpty && domain.utf8.count <= 64 && domain.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        guard ok, domain != ".", domain != ".." else { throw .badDomain(domain) }
    }

    /// Schemes no app may declare as its own: they run code or show data of their own making
    /// in whatever opens them, or name local files without `file:`'s checks.
    static let forbiddenSchemes: Set<String> = ["javascript", "vbscript", "data", "blob", "about", "view-source", "jar", "file",
                                                 "filesystem", "resource", "chrome", "ms-msdt", "search-ms", "shell"]

    /// A URL scheme an app declares as its own (`--url-scheme`, `"urlScheme"`): its items'
    /// contentURLs may then use it, and opening one starts the app's handler
    /// (`x-scheme-handler/SCHEME`). A scheme's syntax (a letter, then letters, digits, `+`, `-`,
    /// `.`; at most 64), never one of `forbiddenSchemes`.
    package static func validate(urlScheme: String) throws(DonationError) {
        let s = urlScheme.lowercased()
        let syntax = (1...64).contains(s.utf8.count) && s.utf8.first.map { $0 >= 0x61 && $0 <= 0x7A } == true
            && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
        guard syntax else { throw .badURLScheme(urlScheme, reason: "a scheme is a letter, then letters, digits, '+', '-' or '.' (at most 64)") }
        guard !forbiddenSchemes.contains(s) else { throw .badURLScheme(urlScheme, reason: "it runs code or reads local data in what opens it") }
    }

    /// The items of `text` (JSON lines; blank lines skipped), all in `domain`.
    package static func read(_ text: [UInt8], domain: String) throws(DonationError) -> [SearchableItem] {
        try read(lines(text).map { ("line \($0.number)", $0.text) }, domain: domain)
    }

    /// The item lines of donated text, numbered from 1 (blank lines skipped): what `read`
    /// reads, and what `fsindex donate` sends to fsindexd as the batch's items.
    package static func lines(_ text: [UInt8]) throws(DonationError) -> [(number: Int, text: [UInt8])] {
        guard text.count <= maximumBatchBytes else { throw .batchTooLarge(size: text.count, limit: maximumBatchBytes) }
        var numbered: [(number: Int, text: [UInt8])] = []
        var lineNumber = 0
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            numbered.append((lineNumber, Array(line)))
            if numbered.count > maximumItems { throw .tooManyItems(limit: maximumItems) }
        }
        return numbered
    }

    /// The items of a socket request: each one JSON object's text.
    package static func read(objects: [[UInt8]], domain: String) throws(DonationError) -> [SearchableItem] {
        guard objects.count <= maximumItems else { throw .tooManyItems(limit: maximumItems) }
        let size = objects.reduce(0) { $0 + $1.count + 1 }
        guard size <= maximumBatchBytes + 1 else { throw .batchTooLarge(size: size - 1, limit: maximumBatchBytes) }
        return try read(objects.enumerated().map { ("item \($0.offset + 1)", $0.element) }, domain: domain)
    }

    static func read(_ numbered: [(String, [UInt8])], domain: String) throws(DonationError) -> [SearchableItem] {
        try validate(domain: domain)
        var items: [SearchableItem] = []
        var seen = Set<[UInt8]>()
        for (place, line) in numbered {
            let item = try self.item(line, line: place, domain: domain)
            guard seen.insert(item.uniqueIdentifier.bytes).inserted else {
                throw .badItem(place: place, reason: "uniqueIdentifier \"\(item.uniqueIdentifier.donatedParts?.id ?? "")\" appears twice in this batch")
            }
            items.append(item)
        }
        return items
    }

    static func item(_ line: [UInt8], line n: String, domain: String) throws(DonationError) -> SearchableItem {
        let object: [String: Any]
        do {
            // The shape first, in one linear pass: nesting bounded, and a name given twice
            // refused (Foundation's parsers disagree on which value wins).
            try JSONShape.check(line, maximumDepth: maximumDepth)
            guard let o = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw DonationError.badItem(place: n, reason: "is not a JSON object")
            }
            object = o
        } catch let e as DonationError {
            throw e
        } catch let e as JSONShape.Failure {
            throw .badItem(place: n, reason: "is not valid JSON: \(e)")
        } catch {
            throw .badItem(place: n, reason: "is not valid JSON (\(Self.reason(error)))")
        }
        for key in object.keys where !["uniqueIdentifier", "attributes", "expirationDate"].contains(key) {
            throw .badItem(place: n, reason: "\"\(key)\" is not a field of an item; an item has uniqueIdentifier, attributes and expirationDate")
        }
        guard let id = object["uniqueIdentifier"] as? String, !id.isEmpty else {
            throw .badItem(place: n, reason: "uniqueIdentifier is missing (every item needs a non-empty string)")
        }
        guard id.utf8.count <= maximumIdentifierBytes, !id.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
            // A line break too: a provider is handed identifiers one per line (issue 22, F18).
            throw .badItem(place: n, reason: "uniqueIdentifier is longer than \(maximumIdentifierBytes) bytes or holds a NUL or a line break")
        }
        let raw = object["attributes"] ?? [String: Any]()
        guard let fields = raw as? [String: Any] else { throw .badItem(place: n, reason: "attributes must be a JSON object") }
        guard fields.count <= maximumAttributes else {
            throw .badItem(place: n, reason: "has \(fields.count) attributes; an item has at most \(maximumAttributes)")
        }
        var attributes = AttributeSet()
        var expiration: Date?
        var thumbnail: [UInt8]?
        if let e = object["expirationDate"] { expiration = try date(e, key: "expirationDate", line: n) }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            if name == "expirationDate" { expiration = try date(value, key: name, line: n); continue }
            if name == "thumbnailData" {
                if !(value is NSNull) { thumbnail = try self.thumbnail(value, line: n) }
                continue
            }
            let key = AttributeKey(name)
            guard let type = key.valueType else {
                throw .badItem(place: n, reason: "\"\(name)\" is not an attribute FSIndex knows (see `fsindex show` for names, such as title, textContent, contentURL, keywords, authors)")
            }
            guard !reserved.contains(key) else { throw .badItem(place: n, reason: "\"\(name)\" is the index's own and cannot be donated") }
            if value is NSNull { continue }
            attributes[key] = try self.value(value, type: type, key: name, line: n)
        }
        if let text = attributes.textContent, text.utf8.count > maximumTextBytes {
            throw .badItem(place: n, reason: "textContent is \(text.utf8.count) bytes; an item holds at most \(maximumTextBytes) (256 KiB)")
        }
        try checkSizes(attributes, line: n)
        if attributes.string(.name) == nil { attributes[.name] = .string(attributes.title ?? id) }
        if attributes.kind == nil { attributes[.kind] = .string("Item of \(domain)") }
        return SearchableItem(uniqueIdentifier: .donated(domain: domain, id: id), domainIdentifier: domain,
                              attributes: attributes, expirationDate: expiration, thumbnailData: thumbnail)
    }

    /// `thumbnailData`: base64 text of a PNG or JPEG picture (Core Spotlight's attribute of
    /// that name), at most `maximumThumbnailBytes` once decoded. Anything else refuses the
    /// item, naming the line, as any malformed attribute does: a picture that no viewer could
    /// show would otherwise be served as if it were one.
    static func thumbnail(_ value: Any, line n: String) throws(DonationError) -> [UInt8] {
        guard let text = value as? String else {
            throw .badItem(place: n, reason: "thumbnailData must be a string: the PNG or JPEG picture in base64")
        }
        // Line breaks and spaces, which some encoders put every 64 or 76 characters, are not data.
        let compact = String(text.unicodeScalars.filter { !" \n\r\t".unicodeScalars.contains($0) })
        guard compact.utf8.count <= (maximumThumbnailBytes + 2) / 3 * 4 else {
            throw .badItem(place: n, reason: "thumbnailData holds more than \(maximumThumbnailBytes >> 20) MiB; give a picture of a few hundred pixels")
        }
        guard let data = Data(base64Encoded: compact) else {
            throw .badItem(place: n, reason: "thumbnailData is not base64 text (give the PNG or JPEG picture's bytes in base64)")
        }
        let bytes = [UInt8](data)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: png) || bytes.starts(with: [0xFF, 0xD8, 0xFF]) else {
            throw .badItem(place: n, reason: "thumbnailData is neither a PNG nor a JPEG picture (give one of those, in base64)")
        }
        return bytes
    }

    /// Refuses a string or a list past its limit, naming the attribute and the limit: a 14 MB
    /// title and a million keywords were taken before (issue 22, F18).
    static func checkSizes(_ attributes: AttributeSet, line n: String) throws(DonationError) {
        for key in attributes.keys where key != .textContent {
            switch attributes[key]! {
            case .string(let s) where s.utf8.count > maximumStringBytes:
                throw .badItem(place: n, reason: "\(key.rawValue) is \(s.utf8.count) bytes; a string attribute holds at most \(maximumStringBytes) (16 KiB; textContent up to 256 KiB)")
            case .strings(let a):
                guard a.count <= maximumListCount else {
                    throw .badItem(place: n, reason: "\(key.rawValue) has \(a.count) strings; a list attribute holds at most \(maximumListCount)")
                }
                let bytes = a.reduce(0) { $0 + $1.utf8.count }
                guard bytes <= maximumListBytes else {
                    throw .badItem(place: n, reason: "\(key.rawValue) is \(bytes) bytes in all; a list attribute holds at most \(maximumListBytes) (64 KiB)")
                }
            default: break
            }
        }
    }

    static func value(_ v: Any, type: AttributeValueType, key: String, line n: String) throws(DonationError) -> AttributeValue {
        func wrong(_ want: String) -> DonationError { .badItem(place: n, reason: "\(key) must be \(want)") }
        switch type {
        case .string:
            guard let s = v as? String else { throw wrong("a string") }
            return .string(s)
        case .strings:
            if let s = v as? String { return .strings([s]) }
            guard let a = v as? [Any], let s = a as? [String] else { throw wrong("a list of strings") }
            return .strings(s)
        case .integer:
            guard let i = integer(v) else {
                throw wrong("a whole number from \(Int64.min) to \(Int64.max) (written with a fraction or an exponent, at most 2^53 = 9007199254740992 in size)")
            }
            return .integer(i)
        case .double:
            guard let d = v as? NSNumber, !isBoolean(v), d.doubleValue.isFinite else { throw wrong("a number") }
            return .double(d.doubleValue)
        case .bool:
            guard isBoolean(v), let b = v as? Bool else { throw wrong("true or false") }
            return .bool(b)
        case .date:
            return .date(try date(v, key: key, line: n))
        }
    }

    static func date(_ v: Any, key: String, line n: String) throws(DonationError) -> Date {
        let date: Date
        if let s = v as? String, let d = AttributeValue.parseISO8601(s) {
            date = d
        } else if let x = v as? NSNumber, !isBoolean(v), x.doubleValue.isFinite {
            date = Date(timeIntervalSince1970: x.doubleValue)
        } else {
            throw .badItem(place: n, reason: "\(key) must be a date: ISO 8601 text (2026-11-24T10:00:00Z) or seconds since 1970")
        }
        // Refused here rather than stored: a date outside ISO 8601's four-digit years was
        // stored and then could not be read back, losing the item's other attributes with it
        // (issue 22, F15).
        guard AttributeValue.supportedDates.contains(date) else {
            throw .badItem(place: n, reason: "\(key) is out of range: dates are from \(AttributeValue.supportedDatesText) (years 0001 to 9999, as ISO 8601 writes them; in seconds since 1970, \(Int64(AttributeValue.supportedDates.lowerBound.timeIntervalSince1970)) up to \(Int64(AttributeValue.supportedDates.upperBound.timeIntervalSince1970)))")
        }
        return date
    }

    /// Whether a JSON value is `true` or `false`. Not `v is Bool`: Foundation bridges the
    /// numbers 0 and 1 to `Bool` too, so `"pageCount": 1` was refused as not a whole number.
    static func isBoolean(_ v: Any) -> Bool {
        guard let n = v as? NSNumber else { return v is Bool }
        return String(cString: n.objCType) == "c"
    }

    /// A JSON number as an exact 64-bit integer, or nil. `JSONSerialization` gives an integer
    /// written plainly as an integer `NSNumber` (exact), one past 64 bits or with a long fraction
    /// as an `NSDecimalNumber` (exact), and one with an exponent or a short fraction as a
    /// `Double`, exact only up to 2^53. Reading every number as a `Double`, as before, stored
    /// 9007199254740993 as …992 and refused Int64.max (issue 22, F18).
    static func integer(_ v: Any) -> Int64? {
        guard let n = v as? NSNumber, !isBoolean(v) else { return nil }
        if let decimal = n as? NSDecimalNumber {
            let d = decimal.decimalValue
            var rounded = Decimal(), copy = d
            NSDecimalRound(&rounded, &copy, 0, .plain)
            guard rounded == d, d >= Decimal(Int64.min), d <= Decimal(Int64.max) else { return nil }
            return v as? Int64
        }
        switch String(cString: n.objCType) {
        case "d", "f":
            let d = n.doubleValue
            guard d.isFinite, d.rounded() == d, abs(d) < 9_007_199_254_740_992 else { return nil }
            return Int64(d)
        case "Q", "L":
            return Int64(exactly: n.uint64Value)
        default:
            return n.int64Value
        }
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        return (ns.userInfo[NSDebugDescriptionErrorKey] as? String) ?? ns.localizedDescription
    }
}
