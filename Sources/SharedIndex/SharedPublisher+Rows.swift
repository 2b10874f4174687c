import Attributes
import Foundation
import Indexing

/// The rows a batch sends, and the digest a domain's client state is.
extension SharedPublisher {
    /// The batch as a JSON array of rows for `jsonb_to_recordset`: NULLs and arrays cross as
    /// JSON, and the whole batch is one bound value.
    ///
    /// `access` holds each item's owner, group, mode, folders and ACL entries (nil: the file
    /// could not be looked at; its `acl` is empty, never NULL, which marks a row published
    /// before ACLs were). A NUL left in a local index written before NUL became a space (issue 22, F3)
    /// becomes one here: PostgreSQL refuses `\u0000` in text and jsonb.
    func rowsJSON(_ items: [ExportedItem], access: [FolderAccess.Access?]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (n, e) in items.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            let item = e.item
            let a = item.attributes.replacingNUL()
            var stored = a.removing(.textContent)
            stored[.domainIdentifier] = .string(item.domainIdentifier)
            let name = a.string(.name) ?? AttributeValue.replacingNUL(String(decoding: item.uniqueIdentifier.nameBytes, as: UTF8.self))
            let other = AttributeKey.otherTextKeys.flatMap { a.strings($0) }.joined(separator: "\n")
            let access = access[n]
            var fields: [(String, JSONField)] = [
                ("path", .string(Self.hex(item.uniqueIdentifier.bytes))),
                ("domain", .string(item.domainIdentifier)),
                ("name", .string(name)),
                ("content_type", .optional(a.string(.contentType))),
                ("kind", .optional(a.kind)),
                ("extractor", .optional(e.extractor)),
                ("error", .optional(a.string(.extractionError))),
                ("size", .number(e.size.map { Double($0) })),
                ("modified", .number(e.modified)),
                ("created", .number(e.created)),
                ("used", .number(e.used)),
                ("expiration", .number(item.expirationDate?.timeIntervalSince1970)),
                ("attributes", .raw((try? stored.jsonText()) ?? "{}")),
                ("types", .strings(e.types)),
                ("title", .optional(a.title)),
                ("other", .optional(other.isEmpty ? nil : other)),
                ("body", .optional(a.textContent)),
                ("words", .string(WordVector.literal(name: name, title: a.title, other: other, text: a.textContent))),
                ("version", .string(e.version)),
            ]
            if let access {
                fields += [("owner", .number(Double(access.owner))), ("grp", .number(Double(access.group))),
                           ("mode", .number(Double(access.mode))), ("access", .numbers(access.folders))]
            }
            fields.append(("acl", .numbers(access?.acl ?? [])))
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                AttributeSet.appendJSONString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// An order-free digest of a domain's (path, version) pairs: its client state.
    static func digest(_ versions: [[UInt8]: String]) -> [UInt8] {
        var sum: UInt64 = 0, xor: UInt64 = 0
        for (path, version) in versions {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in path { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0xff) &* 0x0000_0100_0000_01B3
            for b in version.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            sum &+= h
            xor ^= h
        }
        return Array("v1:\(versions.count):\(String(sum, radix: 16)):\(String(xor, radix: 16))".utf8)
    }
}

/// One value of a row in `rowsJSON`.
enum JSONField {
    case string(String)
    case optional(String?)
    case number(Double?)
    case strings([String])
    case numbers([Int32])
    case raw(String)

    func append(to out: inout [UInt8]) {
        switch self {
        case .string(let s): AttributeSet.appendJSONString(s, to: &out)
        case .optional(let s):
            if let s { AttributeSet.appendJSONString(s, to: &out) } else { out += Array("null".utf8) }
        case .number(let d):
            guard let d, d.isFinite else { out += Array("null".utf8); return }
            out += Array((d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)).utf8)
        case .strings(let a):
            out.append(UInt8(ascii: "["))
            for (i, s) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                AttributeSet.appendJSONString(s, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .numbers(let a):
            out += Array(("[" + a.map(String.init).joined(separator: ",") + "]").utf8)
        case .raw(let s): out += Array(s.utf8)
        }
    }
}
