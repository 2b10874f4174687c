import Glibc

/// What U+0000 means in an attribute: nothing. NUL is not text (issue 22, F3 and F16).
///
/// A key design decision: every NUL in an attribute's name or text becomes one space, at the
/// index's door (`IndexStore`'s writes), so all three places that read the text agree. Before,
/// each read it differently: SQLite's full-text tokenizer stopped at the NUL (the words after
/// it were stored but never found), and PostgreSQL refused the whole batch (`22P05`, "\u0000
/// cannot be converted to text"), which stopped publishing. A space keeps the words on either
/// side apart and findable (`a\0b` is the words `a` and `b`), and it is what a NUL-separated
/// list (`xattr -z`, `find -print0`) means. U+FFFD was the other candidate; it would show up
/// in titles and match nothing anyone types.
///
/// For example, a `user.xdg.comment` of `draft\0final` is stored as `draft final`, and
/// `fsfind final` finds the file. Cost: one scan of each string's UTF-8 bytes; a string
/// without a NUL (nearly all) is returned as it is.
extension AttributeSet {
    /// The set with each NUL in an attribute's name or text replaced by a space.
    package func replacingNUL() -> AttributeSet {
        guard values.contains(where: { AttributeValue.hasNUL($0.key.rawValue) || $0.value.containsNUL }) else { return self }
        var out: [AttributeKey: AttributeValue] = [:]
        for (key, value) in values {
            out[AttributeKey(AttributeValue.replacingNUL(key.rawValue))] = value.replacingNUL()
        }
        return AttributeSet(out)
    }
}

extension AttributeValue {
    /// Whether any of the text this value holds contains a NUL.
    package var containsNUL: Bool {
        textValues.contains(where: AttributeValue.hasNUL)
    }

    /// The value with each NUL of its text replaced by a space (numbers, dates and booleans as they are).
    package func replacingNUL() -> AttributeValue {
        switch self {
        case .string(let s): .string(Self.replacingNUL(s))
        case .strings(let a): .strings(a.map(Self.replacingNUL))
        default: self
        }
    }

    /// Whether `s` holds a NUL: `memchr` over its bytes where they are contiguous (a native
    /// string's always are). The generic `utf8.contains(0)` walked 1.3 GB of text a byte at a
    /// time, twice per file: 1.4 % of a first index's CPU.
    static func hasNUL(_ s: String) -> Bool {
        if let found = s.utf8.withContiguousStorageIfAvailable({ b in
            b.count > 0 && memchr(b.baseAddress!, 0, b.count) != nil
        }) { return found }
        return s.utf8.contains(0)
    }

    /// `s` with each NUL replaced by a space; `s` itself when it has none.
    package static func replacingNUL(_ s: String) -> String {
        guard hasNUL(s) else { return s }
        return String(decoding: s.utf8.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
