import Attributes
import Crawling
import SystemPackage

/// What people attach to a file through its extended attributes, as the freedesktop.org
/// "Shared file metadata" spec and KDE's Dolphin/Baloo write them, turned into the attributes
/// Spotlight has for the same things:
///
/// | extended attribute    | attribute    | Spotlight           | value                          |
/// |-----------------------|--------------|---------------------|--------------------------------|
/// | `user.xdg.tags`       | `userTags`   | `kMDItemUserTags`   | comma-separated → list         |
/// | `user.xdg.comment`    | `comment`    | `kMDItemComment`    | text (its words are searchable) |
/// | `user.xdg.origin.url` | `whereFroms` | `kMDItemWhereFroms` | the URL, then `user.xdg.referrer.url` |
/// | `user.baloo.rating`   | `rating`     | `kMDItemStarRating` | integer 0–10 (two per star)    |
///
/// A key design decision: these are read in the parent, beside the file's facts (see
/// `ExtendedAttributes`), and merged over whatever the worker returned; so a change to them can
/// be applied without extracting the content again (`IndexUpdater.refreshAttributes`).
///
/// A value that cannot be understood (a rating that is not a number from 0 to 10) is left out
/// and becomes a *note*: the caller reports it as a crawl problem for that file, the item is
/// indexed regardless, and `extractionError` (which means "the content could not be read")
/// stays untouched.
package enum ExtendedAttributeMetadata {
    package static let tagsName = "user.xdg.tags"
    package static let commentName = "user.xdg.comment"
    package static let originName = "user.xdg.origin.url"
    package static let referrerName = "user.xdg.referrer.url"
    package static let ratingName = "user.baloo.rating"

    /// Every extended attribute read.
    package static let names: Set<String> = [tagsName, commentName, originName, referrerName, ratingName]
    /// Every attribute these produce: on a refresh, each is replaced or, when the file no longer
    /// has its extended attribute, removed.
    package static let keys: Set<AttributeKey> = [.userTags, .comment, .whereFroms, .rating]

    /// The attributes of `path`'s extended attributes, and the notes on what was left out.
    package static func read(_ path: FilePath) -> (attributes: AttributeSet, notes: [String]) {
        let raw = ExtendedAttributes.read(path, names: names)
        let (set, found) = attributes(from: raw.values)
        return (set, found + raw.problems.map(\.description))
    }

    /// The attributes of raw values by extended attribute name.
    package static func attributes(from values: [String: [UInt8]]) -> (attributes: AttributeSet, notes: [String]) {
        var set = AttributeSet()
        var notes: [String] = []
        if let raw = values[tagsName] {
            let tags = parseTags(text(raw))
            if !tags.isEmpty { set[.userTags] = .strings(tags) }
        }
        if let raw = values[commentName] {
            let comment = text(raw).trimmingWhitespace
            if !comment.isEmpty { set[.comment] = .string(comment) }
        }
        let froms = [originName, referrerName].compactMap { values[$0].map { text($0).trimmingWhitespace } }.filter { !$0.isEmpty }
        if !froms.isEmpty { set[.whereFroms] = .strings(froms) }
        if let raw = values[ratingName] {
            let value = text(raw).trimmingWhitespace
            if let n = Int64(value), (0...10).contains(n) {
                set[.rating] = .integer(n)
            } else if !value.isEmpty {
                let shown = value.count > 20 ? String(value.prefix(20)) + "…" : value
                notes.append("\(ratingName) \"\(shown)\" is not a rating from 0 to 10 (two per star); it was left out")
            }
        }
        return (set, notes)
    }

    /// `"work, Draft,,work"` → `["work", "Draft"]`: split at commas as the spec writes them,
    /// blanks around each tag dropped, empty tags dropped, a repeated tag (ignoring case) kept
    /// once, where it first appears.
    package static func parseTags(_ value: String) -> [String] {
        var out: [String] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: true) {
            let tag = String(piece).trimmingWhitespace
            if tag.isEmpty || out.contains(where: { sameTag($0, tag) }) { continue }
            out.append(tag)
        }
        return out
    }

    /// The value of `user.xdg.tags` for `tags`: joined by commas, without spaces, as Dolphin writes it.
    package static func formatTags(_ tags: [String]) -> String {
        tags.joined(separator: ",")
    }

    /// Whether two tags are the same tag: tags are matched ignoring case (`tag:work` finds "Work").
    package static func sameTag(_ a: String, _ b: String) -> Bool {
        a.lowercased() == b.lowercased()
    }

    /// `tags` with `add` appended (those not there yet) and `remove` taken out, order kept.
    /// A tag holding a comma cannot be stored (the comma separates tags): callers refuse it.
    package static func edit(_ tags: [String], adding add: [String], removing remove: [String]) -> [String] {
        var out = tags.filter { t in !remove.contains { sameTag($0, t) } }
        for tag in add where !out.contains(where: { sameTag($0, tag) }) && !remove.contains(where: { sameTag($0, tag) }) {
            out.append(tag)
        }
        return out
    }

    /// The bytes as UTF-8 (invalid sequences shown as U+FFFD), without the NULs some writers end
    /// a value with.
    static func text(_ raw: [UInt8]) -> String {
        var bytes = raw[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private extension String {
    /// Without blanks and newlines at either end (FoundationEssentials has no `trimmingCharacters`).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
