import CFTS5CJK

/// The words of an item as a PostgreSQL `tsvector`, cut by the tokenizer the local index uses
/// (`fsindex_cjk`: unicode61 with diacritics removed, CJK runs as bigrams), so a word is found
/// on both backends or on neither. PostgreSQL's own parsers are not used: `to_tsvector('simple')`
/// keeps a run of Han or Kana as one lexeme and splits `stdio.h` otherwise than FTS5 does.
///
/// Columns become weights (A name, B title, C the other text attributes, D the text), and each
/// column starts 64 positions after the last, so no phrase spans two columns, as in FTS5.
/// PostgreSQL's limits apply: positions stop at 16,383, a lexeme keeps at most 255 positions,
/// lexemes of 2 KiB or more are left out, and a vector holds at most 1 MiB: past about 900 KB,
/// the text's remaining lexemes lose their positions (phrases across them are not found), and
/// past that the rest are left out.
package enum WordVector {
    package enum Weight: Character, Sendable { case a = "A", b = "B", c = "C", d = "D" }

    /// The tokens of `text`, as the index holds them (`query`: as a query's words are cut).
    /// Each token comes with whether it sits at the position of the one before (a CJK
    /// character colocated with its bigram).
    package static func tokens(_ text: String, query: Bool = false) -> [(token: String, colocated: Bool)] {
        final class Box { var out: [(token: String, colocated: Bool)] = [] }
        let box = Box()
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                _ = fsindex_tokenize(query ? 1 : 0, chars, Int32(buffer.count), Unmanaged.passUnretained(box).toOpaque()) { ctx, colocated, token, length in
                    guard let ctx, let token else { return 0 }
                    let box = Unmanaged<Box>.fromOpaque(ctx).takeUnretainedValue()
                    let bytes = UnsafeRawBufferPointer(start: token, count: Int(length))
                    box.out.append((String(decoding: bytes, as: UTF8.self), colocated != 0))
                    return 0
                }
            }
        }
        return box.out
    }

    /// The `tsvector` literal of the columns, in order name, title, other, text.
    package static func literal(name: String?, title: String?, other: String?, text: String?) -> String {
        var positions: [String: [(Int, Weight)]] = [:]
        var order: [String] = []
        var position = 0
        for (column, weight) in [(name, Weight.a), (title, .b), (other, .c), (text, .d)] {
            guard let column, !column.isEmpty else { continue }
            position += 64
            for (token, colocated) in tokens(column) {
                if !colocated { position += 1 }
                guard token.utf8.count < 2046 else { continue }
                if positions[token] == nil { order.append(token); positions[token] = [] }
                if positions[token]!.count < 255 { positions[token]!.append((min(position, 16383), weight)) }
            }
        }
        var out = ""
        var size = 0
        var withPositions = true
        for token in order {
            let list = positions[token]!
            let cost = token.utf8.count + 8 + (withPositions ? 2 * list.count : 2)
            if size + cost > 900_000 {
                if withPositions { withPositions = false }
                if size + token.utf8.count + 10 > 1_000_000 { break }
            }
            size += cost
            if !out.isEmpty { out += " " }
            out += quote(token)
            if withPositions {
                out += ":" + list.map { "\($0.0)\($0.1.rawValue)" }.joined(separator: ",")
            } else if let best = list.map(\.1).min(by: { $0.rawValue < $1.rawValue }), best != .d {
                // Without positions, a lexeme keeps its best weight on a position of its own.
                out += ":16383\(best.rawValue)"
            }
        }
        return out
    }

    /// A lexeme quoted for `tsvector`/`tsquery` input.
    package static func quote(_ token: String) -> String {
        var q = "'"
        for c in token {
            if c == "'" { q += "''" } else if c == "\\" { q += "\\\\" } else { q.append(c) }
        }
        return q + "'"
    }
}
