/// Reads troff source the way `nroff` would for a manual page, far enough to get its words:
/// requests and macro calls with their arguments, text lines, and escapes turned into the
/// characters they print.
///
/// It knows groff's requests that change what text comes out (`.ds`/`.as` strings, `.nr`
/// registers, `.if`/`.ie`/`.el` with `\{ … \}` blocks, `.de`/`.am`/`.ig` bodies, which are
/// skipped), `tbl` tables (`.TS`/`.TE`: the format lines are dropped, the cells kept), and skips
/// `eqn` and `pic` blocks. Macros (`man`, `mdoc`) are left to the caller (`ManPageDocument`),
/// which gets one `Event` per line. Macros the page defines itself are reported as `defined`,
/// so the caller can drop them (pod2man's `.IX`, `.Vb`).
///
/// A key design decision: this is a reader, not a formatter. Fonts, sizes, motions and
/// indentation are dropped; a condition is decided for `nroff` (`n` is true, `t` false, `\n(.g`
/// is 1, registers are what `.nr` set); nothing is ever opened (`.so`, `.mso` are reported,
/// not followed), so a page can only cost time linear in its length.
///
/// For example:
/// ```swift
/// TroffReader.read(".TH CP 1\n.SH NAME\ncp \\- copy files") { print($0) }
/// // request("TH", ["CP", "1"]), request("SH", ["NAME"]), text("cp - copy files", joinNext: false)
/// ```
struct TroffReader {
    /// An argument of a request, after escapes; `quoted` when it was written in double quotes
    /// (mdoc never takes a quoted argument for a macro name).
    struct Argument: Equatable {
        var text: String
        var quoted: Bool
    }

    enum Event: Equatable {
        /// A text line; `joinNext` when it ended in `\c` (the next text continues the word).
        case text(String, joinNext: Bool)
        /// A line that is followed by a break whatever the fill mode (a table row).
        case row(String)
        /// A request or macro call that the page did not define itself.
        case request(String, [Argument])
        /// A call of a macro the page defined with `.de` (its body is not expanded).
        case defined(String, [Argument])
    }

    var strings: [String: String] = TroffGlyphs.predefinedStrings
    var registers: [String: Int] = [".g": 1, ".T": 0]
    var macros: Set<String> = []
    /// What the last `.ie` decided, for the `.el` that follows (a stack, as `.ie` nests).
    private var lastConditions: [Bool] = []

    /// Reads `source` and calls `emit` for each line's event.
    static func read(_ source: String, _ emit: (Event) -> Void) {
        var reader = TroffReader()
        reader.run(source, emit)
    }

    mutating func run(_ source: String, _ emit: (Event) -> Void) {
        var lines = Self.logicalLines(source)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            process(line, lines: &lines, index: &index, emit)
        }
    }

    /// Lines with `\` + newline continuations joined.
    static func logicalLines(_ source: String) -> [Substring] {
        var out: [Substring] = []
        var pending: String?
        for raw in source.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = raw
            if line.hasSuffix("\r") { line = line.dropLast() }
            var trailing = 0
            for c in line.reversed() { if c == "\\" { trailing += 1 } else { break } }
            if trailing % 2 == 1 {
                pending = (pending ?? "") + line.dropLast()
                continue
            }
            if let p = pending {
                out.append(Substring(p + line))
                pending = nil
            } else {
                out.append(line)
            }
        }
        if let p = pending { out.append(Substring(p)) }
        return out
    }

    private mutating func process(_ line: Substring, lines: inout [Substring], index: inout Int, _ emit: (Event) -> Void) {
        guard let first = line.first, first == "." || first == "'" else {
            if line.hasPrefix("\\#") { return }
            let (text, join) = unescape(line)
            emit(.text(text, joinNext: join))
            return
        }
        var rest = line.dropFirst().drop { $0 == " " || $0 == "\t" }
        if rest.hasPrefix("\\\"") || rest.hasPrefix("\\#") || rest.isEmpty { return }   // comment or empty request
        // A name ends at a blank or an escape (`.el\{\`).
        let nameEnd = rest.firstIndex { $0 == " " || $0 == "\t" || $0 == "\\" } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        rest = rest[nameEnd...].drop { $0 == " " || $0 == "\t" }
        switch name {
        case "de", "de1", "am", "am1", "ig":
            let args = Self.split(rest)
            if name != "ig", let m = args.first { macros.insert(m) }
            let end = name == "ig" ? (args.first.map { "." + $0 } ?? "..") : (args.count > 1 ? "." + args[1] : "..")
            while index < lines.count {
                let l = lines[index]
                index += 1
                let t = l.drop { $0 == " " || $0 == "\t" }
                if t == end || t.hasPrefix(end + " ") || (end == ".." && t.hasPrefix(".") && t.dropFirst().drop { $0 == " " } == ".") { break }
            }
        case "ds", "ds1", "as", "as1":
            let nameEnd = rest.firstIndex { $0 == " " || $0 == "\t" } ?? rest.endIndex
            let key = String(rest[..<nameEnd])
            var value = rest[nameEnd...].drop { $0 == " " || $0 == "\t" }
            if value.first == "\"" { value = value.dropFirst() }
            let text = unescape(value).text
            strings[key] = name.hasPrefix("as") ? (strings[key] ?? "") + text : text
        case "nr":
            let args = Self.split(rest)
            if args.count >= 2 {
                let value = evaluate(Array(args[1].unicodeScalars))
                let v = args[1].hasPrefix("+") ? (registers[args[0]] ?? 0) + value
                    : args[1].hasPrefix("-") && registers[args[0]] != nil ? (registers[args[0]] ?? 0) + value : value
                registers[args[0]] = v
            }
        case "rm": strings[String(rest)] = nil
        case "if", "ie":
            var scalars = Array(rest.unicodeScalars)
            var i = 0
            let result = condition(&scalars, &i)
            if name == "ie" { lastConditions.append(result) }
            branch(result, body: String(String.UnicodeScalarView(scalars[i...])), lines: &lines, index: &index, emit)
        case "el":
            let result = !(lastConditions.popLast() ?? true)
            branch(result, body: String(rest), lines: &lines, index: &index, emit)
        case "TS":
            table(lines: &lines, index: &index, emit)
        case "EQ", "PS", "GS", "G1":
            let end = name == "EQ" ? "EN" : name == "PS" ? "PE" : name == "GS" ? "GE" : "G2"
            while index < lines.count {
                let t = lines[index].dropFirst().drop { $0 == " " }
                index += 1
                if (lines[index - 1].first == "." || lines[index - 1].first == "'") && t.hasPrefix(end) { break }
            }
        case "nop":
            let (text, join) = unescape(rest)
            emit(.text(text, joinNext: join))
        default:
            // `\&.` is a period that is not mdoc's delimiter: such an argument counts as quoted.
            let args = Self.splitWithQuotes(rest).map { Argument(text: unescape($0.0[...]).text, quoted: $0.1 || $0.0.hasPrefix("\\&")) }
            emit(macros.contains(name) ? .defined(name, args) : .request(name, args))
        }
    }

    /// Runs (or skips) a conditional's body: a one-line body, or a `\{ … \}` block.
    private mutating func branch(_ run: Bool, body: String, lines: inout [Substring], index: inout Int, _ emit: (Event) -> Void) {
        var body = Substring(body).drop { $0 == " " || $0 == "\t" }
        var depth = Self.braceDepth(body)
        if !run {
            while depth > 0, index < lines.count {
                depth += Self.braceDepth(lines[index])
                index += 1
            }
            return
        }
        if body.hasPrefix("\\{") { body = body.dropFirst(2).drop { $0 == " " || $0 == "\t" } }
        if body.isEmpty || body == "\\}" { return }
        if body.hasPrefix("\\}") { body = body.dropFirst(2) }
        process(body, lines: &lines, index: &index, emit)
    }

    /// `\{` opened minus `\}` closed on a line.
    static func braceDepth(_ s: Substring) -> Int {
        var depth = 0
        var it = s.unicodeScalars.makeIterator()
        while let c = it.next() {
            guard c == "\\", let n = it.next() else { continue }
            if n == "{" { depth += 1 } else if n == "}" { depth -= 1 }
        }
        return depth
    }

    /// A `tbl` table: options and format lines dropped, each row's cells joined by spaces.
    private mutating func table(lines: inout [Substring], index: inout Int, _ emit: (Event) -> Void) {
        var tab: Character = "\t"
        var inFormat = true
        var block: String?   // a `T{ … T}` cell being collected
        var row = ""
        while index < lines.count {
            let line = lines[index]
            index += 1
            let trimmed = line.trimmed(of: " \t")
            if inFormat {
                if trimmed.hasSuffix(";"), let r = trimmed.firstRange(of: "tab(") {
                    let after = trimmed[r.upperBound...]
                    if let c = after.first, c != ")" { tab = c }
                }
                if trimmed.hasSuffix(".") { inFormat = false }
                if trimmed.hasPrefix(".TE") { return }
                continue
            }
            if block != nil {
                if trimmed.hasPrefix("T}") {
                    row += (block ?? "") + " " + cells(Substring(trimmed.dropFirst(2)), tab).joined(separator: " ")
                    block = nil
                    emit(.row(row))
                    row = ""
                } else if line.first == "." || line.first == "'" {
                    if trimmed.hasPrefix(".TE") { emit(.row(row + (block ?? ""))); return }
                } else {
                    block = (block ?? "") + unescape(line).text + " "
                }
                continue
            }
            if trimmed.hasPrefix(".TE") { return }
            if trimmed.hasPrefix(".T&") { inFormat = true; continue }
            if line.first == "." || line.first == "'" {
                process(line, lines: &lines, index: &index, emit)
                continue
            }
            if trimmed == "_" || trimmed == "=" { continue }
            var parts = cells(line, tab)
            if let last = parts.last, last.hasSuffix("T{") {
                parts[parts.count - 1] = String(last.dropLast(2))
                row = parts.joined(separator: " ")
                block = ""
                continue
            }
            emit(.row(parts.joined(separator: " ")))
        }
    }

    private func cells(_ line: Substring, _ tab: Character) -> [String] {
        line.split(separator: tab, omittingEmptySubsequences: false).map { cell in
            let t = cell.trimmed(of: " ")
            return t == "_" || t == "=" || t == "\\^" ? "" : unescape(Substring(t)).text
        }
    }

    // MARK: Arguments

    /// Splits a request's arguments: blanks separate, double quotes group (`""` inside is a
    /// quote), `\"` starts a comment, and an escaped blank (`\ `) does not separate.
    static func split(_ s: Substring) -> [String] {
        splitWithQuotes(s).map(\.0)
    }

    static func splitWithQuotes(_ s: Substring) -> [(String, Bool)] {
        var out: [(String, Bool)] = []
        let c = Array(s.unicodeScalars)
        var i = 0
        while i < c.count {
            while i < c.count, c[i] == " " || c[i] == "\t" { i += 1 }
            guard i < c.count else { break }
            if c[i] == "\\", i + 1 < c.count, c[i + 1] == "\"" { break }
            var arg = String.UnicodeScalarView()
            if c[i] == "\"" {
                i += 1
                while i < c.count {
                    if c[i] == "\"" {
                        if i + 1 < c.count, c[i + 1] == "\"" { arg.append("\""); i += 2; continue }
                        i += 1
                        break
                    }
                    if c[i] == "\\", i + 1 < c.count { arg.append(c[i]); arg.append(c[i + 1]); i += 2; continue }
                    arg.append(c[i]); i += 1
                }
                out.append((String(arg), true))
            } else {
                while i < c.count, c[i] != " ", c[i] != "\t" {
                    if c[i] == "\\", i + 1 < c.count {
                        if c[i + 1] == "\"" { i = c.count; break }
                        arg.append(c[i]); arg.append(c[i + 1]); i += 2; continue
                    }
                    arg.append(c[i]); i += 1
                }
                if !arg.isEmpty { out.append((String(arg), false)) }
            }
        }
        return out
    }

    // MARK: Conditions

    /// Decides a condition at `i` and moves past it (for `nroff`: `n` and `o` true, `t`, `e`
    /// and `v` false; `d`/`r` ask for a string/macro or register; `'a'b'` compares).
    private func condition(_ c: inout [Unicode.Scalar], _ i: inout Int) -> Bool {
        while i < c.count, c[i] == " " { i += 1 }
        var negate = false
        while i < c.count, c[i] == "!" { negate.toggle(); i += 1 }
        guard i < c.count else { return false }
        var result: Bool
        let ch = c[i]
        if "notevc".unicodeScalars.contains(ch), i + 1 >= c.count || c[i + 1] == " " || c[i + 1] == "\t" || ch == "c" {
            result = ch == "n" || ch == "o"
            i += ch == "c" ? 3 : 1
        } else if (ch == "d" || ch == "r" || ch == "m" || ch == "F" || ch == "S"), i + 1 < c.count, c[i + 1] == " " {
            i += 2
            while i < c.count, c[i] == " " { i += 1 }
            let start = i
            while i < c.count, c[i] != " ", c[i] != "\t" { i += 1 }
            let name = String(String.UnicodeScalarView(c[start..<i]))
            result = ch == "d" ? (strings[name] != nil || macros.contains(name)) : ch == "r" ? registers[name] != nil : false
        } else if ch == "'" || ch == "\"" || ch == "|" || ch == "/" {
            let delimiter = ch
            i += 1
            let a = i
            while i < c.count, c[i] != delimiter { i += 1 }
            let left = String(String.UnicodeScalarView(c[a..<min(i, c.count)]))
            i += 1
            let b = i
            while i < c.count, c[i] != delimiter { i += 1 }
            let right = String(String.UnicodeScalarView(c[min(b, c.count)..<min(i, c.count)]))
            i += 1
            result = unescape(Substring(left)).text == unescape(Substring(right)).text
        } else {
            let start = i
            var depth = 0
            while i < c.count, depth > 0 || (c[i] != " " && c[i] != "\t") {
                if c[i] == "(" { depth += 1 } else if c[i] == ")" { depth -= 1 }
                if c[i] == "\\", i + 1 < c.count {
                    // An escape with a bracketed or delimited name is one unit.
                    i += 2
                    if i < c.count, c[i - 1] == "n" || c[i - 1] == "w" || c[i - 1] == "*" {
                        if c[i] == "(" { i += 3 } else if c[i] == "[" { while i < c.count, c[i] != "]" { i += 1 }; i += 1 }
                        else if c[i] == "'" { i += 1; while i < c.count, c[i] != "'" { i += 1 }; i += 1 } else { i += 1 }
                    }
                    continue
                }
                i += 1
            }
            result = evaluate(Array(c[start..<min(i, c.count)])) > 0
        }
        if i > c.count { i = c.count }
        return negate ? !result : result
    }

    /// A numeric expression, left to right as troff does (no precedence): numbers with units,
    /// registers (`\n(xx`, `\n[xx]`, `\nx`), `\w'…'` (the text's length), `+ - * / %`,
    /// comparisons, `&` and `:`, and parentheses. Unknown parts count as 0.
    func evaluate(_ c: [Unicode.Scalar]) -> Int {
        var i = 0
        return expression(c, &i)
    }

    private func expression(_ c: [Unicode.Scalar], _ i: inout Int) -> Int {
        var value = operand(c, &i)
        while i < c.count {
            var op = String(c[i])
            if i + 1 < c.count, ["<=", ">=", "==", "<>", "<?", ">?"].contains(op + String(c[i + 1])) { op += String(c[i + 1]) }
            guard ["+", "-", "*", "/", "%", "<", ">", "=", "&", ":", "<=", ">=", "==", "<>", "<?", ">?"].contains(op) else { break }
            i += op.unicodeScalars.count
            let right = operand(c, &i)
            switch op {
            case "+": value = value &+ right
            case "-": value = value &- right
            case "*": value = value &* right
            case "/": value = right == 0 ? 0 : value / right
            case "%": value = right == 0 ? 0 : value % right
            case "<": value = value < right ? 1 : 0
            case ">": value = value > right ? 1 : 0
            case "<=": value = value <= right ? 1 : 0
            case ">=": value = value >= right ? 1 : 0
            case "=", "==": value = value == right ? 1 : 0
            case "<>": value = value != right ? 1 : 0
            case "&": value = value > 0 && right > 0 ? 1 : 0
            case ":": value = value > 0 || right > 0 ? 1 : 0
            case "<?": value = min(value, right)
            case ">?": value = max(value, right)
            default: break
            }
        }
        return value
    }

    private func operand(_ c: [Unicode.Scalar], _ i: inout Int) -> Int {
        guard i < c.count else { return 0 }
        if c[i] == "-" { i += 1; return -operand(c, &i) }
        if c[i] == "+" { i += 1; return operand(c, &i) }
        if c[i] == "(" {
            i += 1
            let v = expression(c, &i)
            if i < c.count, c[i] == ")" { i += 1 }
            return v
        }
        if c[i] == "\\", i + 1 < c.count {
            let kind = c[i + 1]
            i += 2
            let name = Self.escapeName(c, &i)
            switch kind {
            case "n": return registers[name] ?? 0
            case "w": return unescape(Substring(name)).text.count
            default: return 0
            }
        }
        var digits = 0
        var any = false
        while i < c.count, ("0"..."9").contains(c[i]) {
            digits = digits &* 10 &+ Int(c[i].value - 48)
            any = true
            i += 1
        }
        if i < c.count, c[i] == "." {   // fractions are dropped
            i += 1
            while i < c.count, ("0"..."9").contains(c[i]) { i += 1 }
        }
        if any, i < c.count, "icpPmnvuf".unicodeScalars.contains(c[i]) { i += 1 }
        if !any, i < c.count { i += 1 }   // something this reader does not know: skip it
        return digits
    }

    /// The name after an escape character that takes one (`x`, `(xx`, `[name]`, `'text'`).
    static func escapeName(_ c: [Unicode.Scalar], _ i: inout Int) -> String {
        guard i < c.count else { return "" }
        switch c[i] {
        case "(":
            let end = min(i + 3, c.count)
            let s = String(String.UnicodeScalarView(c[(i + 1)..<end]))
            i = end
            return s
        case "[", "'":
            // Up to the closing bracket or quote.
            let close: Unicode.Scalar = c[i] == "[" ? "]" : "'"
            var j = i + 1
            while j < c.count, c[j] != close { j += 1 }
            let s = String(String.UnicodeScalarView(c[(i + 1)..<j]))
            i = min(j + 1, c.count)
            return s
        default:
            i += 1
            return String(c[i - 1])
        }
    }
}

extension Substring {
    fileprivate func trimmed(of set: String) -> String {
        let skip = Set(set)
        guard let start = firstIndex(where: { !skip.contains($0) }) else { return "" }
        let end = lastIndex(where: { !skip.contains($0) })!
        return String(self[start...end])
    }
}
