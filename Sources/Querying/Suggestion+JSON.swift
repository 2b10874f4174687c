import Attributes
import Foundation
import Indexing

/// A suggestion as one JSON object, the same for `fsindex suggest --json` and the MCP `suggest`
/// tool:
///
/// ```json
/// {"path":"/home/ada/cal/standup.ics","name":"Standup","kind":"Calendar","score":2.7,
///  "startsAt":"2026-11-27T09:00:00Z",
///  "reasons":[{"reason":"eventSoon","startsAt":"2026-11-27T09:00:00Z"},{"reason":"recent","usedAt":"…"}]}
/// ```
///
/// An item inside a file (an event of a calendar) has the file's `path` and its own `item` key.
extension Suggestion {
    /// The object's fields; `path` turns identifier bytes into text (the front end's own
    /// encoding, which keeps a name that is not UTF-8 apart).
    package func jsonObject(path: ([UInt8]) -> String) -> [String: Any] {
        let (file, key) = ItemIdentifier.split(item.uniqueIdentifier.bytes)
        var o: [String: Any] = ["path": path(file), "score": (score * 1000).rounded() / 1000,
                                "reasons": reasons.map { r -> [String: Any] in
                                    var f: [String: Any] = ["reason": r.name]
                                    for (k, v) in r.fields { f[k] = Int(v) ?? v as Any }
                                    return f
                                }]
        if let key { o["item"] = key }
        if let name = item.attributes.title ?? item.attributes.string(.name) { o["name"] = name }
        if let kind = item.attributes.kind { o["kind"] = kind }
        if let startsAt { o["startsAt"] = AttributeValue.iso8601(startsAt) }
        if let place = item.attributes.string(.namedLocation) { o["namedLocation"] = place }
        return o
    }

    /// The object as one line of JSON (keys sorted).
    package func jsonLine(path: ([UInt8]) -> String) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: jsonObject(path: path), options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
