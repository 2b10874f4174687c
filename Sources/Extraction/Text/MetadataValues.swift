import ExtractionModel
import FoundationEssentials

/// Small parsers for metadata values found in text formats (front matter, Dublin Core, meta
/// tags): coordinates and lists (dates: `DocumentFields.iso8601`).
///
/// For example:
/// ```swift
/// MetadataValues.coordinates("50.1, 8.6")           // (50.1, 8.6)
/// MetadataValues.list("[a, \"b c\"]")               // ["a", "b c"]
/// ```
enum MetadataValues {
    /// `lat, lon` or `lat;lon` (decimal degrees) as a checked pair.
    static func coordinates(_ text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == ";" }).map { String($0).trimmingSpaces() }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        return (lat, lon)
    }

    /// A YAML/TOML flow list `[a, "b"]`, or a comma-separated string, as trimmed unquoted items.
    static func list(_ text: String) -> [String] {
        var t = text.trimmingSpaces()
        if t.hasPrefix("["), t.hasSuffix("]") { t = String(t.dropFirst().dropLast()) }
        return t.split(separator: ",").map { unquoted(String($0).trimmingSpaces()) }.filter { !$0.isEmpty }
    }

    /// The text without one pair of enclosing `"` or `'`.
    static func unquoted(_ s: String) -> String {
        if s.count >= 2, let f = s.first, let l = s.last, (f == "\"" && l == "\"") || (f == "'" && l == "'") {
            return String(s.dropFirst().dropLast())
        }
        return s
    }
}
