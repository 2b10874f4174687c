import CStemmer

/// Snowball's stemmer for one language (libstemmer): `running`, `runs` and `run` share the stem
/// `run`, `libraries` and `library` the stem `librari`.
///
/// A key design decision: the index keeps words as they are written, and a question's words
/// are matched to every form of them the index holds (`Inflections`), found by stemming the
/// index's own words that could share the stem. So nothing is stemmed at index time, the index
/// does not grow, exact words keep their exact matches, and an item's language needs no
/// tokenizer of its own.
///
/// Not thread-safe (libstemmer keeps its work area in the stemmer): one per question.
package final class Stemmer {
    private let handle: OpaquePointer
    package let language: String

    /// A stemmer for `language`, an ISO 639-1 code (`en`, `de`) or Snowball's name
    /// (`english`); nil when Snowball has none for it.
    package init?(language: String) {
        guard let h = sb_stemmer_new(language, "UTF_8") else { return nil }
        handle = h
        self.language = language
    }

    deinit { sb_stemmer_delete(handle) }

    /// The stem of a lowercase word. A word Snowball cannot take (too long) is its own stem.
    package func stem(_ word: String) -> String {
        let bytes = Array(word.utf8)
        guard !bytes.isEmpty, bytes.count <= 256 else { return word }
        let count = Int32(bytes.count)
        return bytes.withUnsafeBufferPointer { buffer -> String in
            guard let out = sb_stemmer_stem(handle, buffer.baseAddress, count) else { return word }
            let length = Int(sb_stemmer_length(handle))
            return String(decoding: UnsafeBufferPointer(start: out, count: length), as: UTF8.self)
        }
    }

    /// The languages Snowball stems, by their codes and names.
    package static var languages: [String] {
        var out: [String] = []
        guard var list = sb_stemmer_list() else { return [] }
        while let name = list.pointee {
            out.append(String(cString: name))
            list = list.advanced(by: 1)
        }
        return out
    }
}
