extension TroffReader {
    /// The text an input line prints: escapes turned into characters (`\(em` → "—", `\-` → "-",
    /// `\*(lq` → "“", `\[u00E9]` → "é"), fonts, sizes, motions and other formatting dropped, a
    /// comment (`\"`, `\#`) cut off. `join` is true when the line ends in `\c` (the next text line
    /// continues the same word).
    ///
    /// For example:
    /// ```swift
    /// reader.unescape(#"\fBcp\fR \- copy \(lqfiles\(rq"#)   // ("cp - copy “files”", false)
    /// ```
    func unescape(_ s: Substring) -> (text: String, join: Bool) {
        var out = String.UnicodeScalarView()
        let c = Array(s.unicodeScalars)
        var i = 0
        var join = false
        while i < c.count {
            let ch = c[i]
            guard ch == "\\", i + 1 < c.count else {
                out.append(ch == "\t" ? " " : ch)
                i += 1
                continue
            }
            let e = c[i + 1]
            i += 2
            switch e {
            case "\"", "#":
                i = c.count
            case "\\", "e", "E":
                out.append("\\")
            case "-", "=":
                out.append("-")
            case " ", "~", "0", "_":
                out.append(" ")
            case "&", "|", "^", "%", ":", ")", "/", ",", "{", "}", "a", "d", "r", "u", "p", "t", "z", "!", "?":
                if e == "t" { out.append(" ") }
                if e == "z", i < c.count { i += 1 }   // zero-width: the next character overstrikes
            case "c":
                if i >= c.count { join = true }
            case ".", "'", "`":
                out.append(e == "'" ? "´" : e)
            case "(", "[":
                i -= 1
                let name = Self.escapeName(c, &i)
                out.append(contentsOf: glyph(name).unicodeScalars)
            case "C":
                let name = Self.escapeName(c, &i)
                out.append(contentsOf: glyph(name).unicodeScalars)
            case "*":
                var name = Self.escapeName(c, &i)
                if name.hasPrefix("[") { name.removeFirst() }
                // `\*[name arg…]`: groff's string with arguments; the name is the first word.
                if let space = name.firstIndex(of: " ") { name = String(name[..<space]) }
                out.append(contentsOf: (strings[name] ?? "").unicodeScalars)
            case "N":
                let code = Self.escapeName(c, &i)
                if let n = UInt32(code), let scalar = Unicode.Scalar(n), n >= 32 { out.append(scalar) }
            case "f", "F", "m", "M", "n", "g", "k", "V", "Y", "$":
                if e == "$", i < c.count, c[i] == "*" || c[i] == "@" || c[i] == "^" { i += 1; break }
                _ = Self.escapeName(c, &i)
            case "s":
                // \s+2, \s-1, \s0, \s12, \s(12, \s[12], \s'12', \s+(12
                if i < c.count, c[i] == "+" || c[i] == "-" { i += 1 }
                if i < c.count, c[i] == "(" || c[i] == "[" || c[i] == "'" {
                    _ = Self.escapeName(c, &i)
                } else if i < c.count, ("0"..."9").contains(c[i]) {
                    let two = i + 1 < c.count && ("0"..."9").contains(c[i + 1]) && ("1"..."3").contains(c[i])
                    i += two ? 2 : 1
                }
            case "h", "v", "w", "l", "L", "o", "D", "X", "Z", "b", "x", "H", "S", "R", "A", "B", "O", "T", "U", "j", "y":
                // An escape with a delimited argument: dropped (\w is a width, not text).
                if e == "o" || e == "Z" || e == "b" {
                    // \o'e\'' overstrikes, \Z'…' and \b'…' print their characters: keep them.
                    let inner = Self.delimited(c, &i)
                    out.append(contentsOf: unescape(Substring(String(String.UnicodeScalarView(inner.prefix(e == "o" ? 1 : inner.count))))).text.unicodeScalars)
                } else {
                    _ = Self.delimited(c, &i)
                }
            default:
                out.append(e)   // an unknown escape prints its character, as troff does
            }
        }
        return (String(out), join)
    }

    /// The argument of an escape like `\h'…'`: the characters up to the repeated delimiter.
    static func delimited(_ c: [Unicode.Scalar], _ i: inout Int) -> [Unicode.Scalar] {
        guard i < c.count else { return [] }
        let delimiter = c[i]
        if delimiter == "[" {
            var j = i + 1
            while j < c.count, c[j] != "]" { j += 1 }
            defer { i = min(j + 1, c.count) }
            return Array(c[(i + 1)..<j])
        }
        var j = i + 1
        while j < c.count, c[j] != delimiter { j += 1 }
        defer { i = min(j + 1, c.count) }
        return Array(c[min(i + 1, c.count)..<j])
    }

    /// A named glyph (`em`, `u00E9`, `'e`), or the name itself when unknown (groff warns and
    /// prints nothing; keeping two characters is the safer loss for search).
    func glyph(_ name: String) -> String {
        if let g = TroffGlyphs.named[name] { return g }
        if name.hasPrefix("u"), name.count >= 5 {
            var out = String.UnicodeScalarView()
            for part in name.dropFirst().split(separator: "_") {
                guard let n = UInt32(part, radix: 16), let scalar = Unicode.Scalar(n) else { return "" }
                out.append(scalar)
            }
            return String(out)
        }
        if name.unicodeScalars.count == 2, let accent = TroffGlyphs.accents[name.unicodeScalars.first!],
           let composed = TroffGlyphs.compose(name.unicodeScalars.last!, accent) {
            return composed
        }
        if name.hasPrefix("char"), let n = UInt32(name.dropFirst(4)), let scalar = Unicode.Scalar(n) { return String(scalar) }
        return ""
    }
}
