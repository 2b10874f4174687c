/// A name that is a string underneath and nothing more: an attribute's key, a content type.
///
/// Why a protocol: both are spelled in code as literals (`"public.jpeg"`), sorted, printed and
/// stored as their bare string (JSON's single value, which the standard library's
/// `RawRepresentable` coding already writes), and each had its own copy of the same dozen lines.
package protocol StringName: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible where RawValue == String
{
    init(rawValue: String)
}

extension StringName {
    package init(stringLiteral value: String) { self.init(rawValue: value) }
    package var description: String { rawValue }
    package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
