/// One line of `mdoc(7)` macros rendered to the words it prints: macro names dropped, their
/// arguments kept, with the few changes mdoc makes to them (`Fl v` → "-v", `Xr ls 1` →
/// "ls(1)", `Op …` → "[…]", `Fn f a b` → "f(a, b)", `Ar` alone → "file ...", `Nm` alone → the
/// page's name). Closing punctuation sticks to the word before it, as mdoc prints it.
///
/// For example:
/// ```swift
/// MdocLine.render(args("Op Fl R Ar dir , Xr ls 1 ."), pageName: "cp", firstIsMacro: true)
/// // "[-R dir], ls(1)."
/// ```
enum MdocLine {
    /// Macros that are recognized inside a line (mdoc's "callable" macros).
    static let callable: Set<String> = [
        "Ac", "Ad", "An", "Ao", "Ap", "Aq", "Ar", "At", "Bc", "Bo", "Bq", "Brc", "Bro", "Brq", "Bsx", "Bx", "Cd", "Cm",
        "Dc", "Do", "Dq", "Dv", "Dx", "Ec", "Em", "En", "Eo", "Er", "Es", "Ev", "Fa", "Fc", "Fl", "Fn", "Fr", "Ft", "Fx",
        "Ic", "In", "Li", "Lk", "Ms", "Mt", "Nm", "No", "Ns", "Nx", "Oc", "Oo", "Op", "Ot", "Ox", "Pa", "Pc", "Pf", "Po",
        "Pq", "Qc", "Ql", "Qo", "Qq", "Sc", "So", "Sq", "St", "Sx", "Sy", "Ta", "Tn", "Ux", "Va", "Vt", "Xc", "Xo", "Xr",
    ]

    /// Opening and closing text of the enclosures that span the rest of the line.
    static let enclosures: [String: (String, String)] = [
        "Op": ("[", "]"), "Pq": ("(", ")"), "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("⟨", "⟩"), "Dq": ("“", "”"),
        "Qq": ("\"", "\""), "Sq": ("‘", "’"), "Ql": ("‘", "’"),
    ]
    /// Openers and closers of multi-line enclosures.
    static let openers: [String: String] = ["Oo": "[", "Po": "(", "Bo": "[", "Bro": "{", "Do": "“", "Qo": "\"", "So": "‘", "Ao": "⟨"]
    static let closers: [String: String] = ["Oc": "]", "Pc": ")", "Bc": "]", "Brc": "}", "Dc": "”", "Qc": "\"", "Sc": "’", "Ac": "⟩"]
    /// Operating system names the macros stand for.
    static let systems: [String: String] = [
        "Ux": "UNIX", "Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD", "Dx": "DragonFly", "Bsx": "BSD/OS", "At": "AT&T UNIX",
    ]
    /// The standards `St` names most often.
    static let standards: [String: String] = [
        "-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)", "-p1003.1-2001": "IEEE Std 1003.1-2001 (“POSIX.1”)",
        "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)", "-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)",
        "-p1003.1-88": "IEEE Std 1003.1-1988 (“POSIX.1”)", "-p1003.1-90": "IEEE Std 1003.1-1990 (“POSIX.1”)",
        "-p1003.1-96": "ISO/IEC 9945-1:1996 (“POSIX.1”)", "-p1003.2-92": "IEEE Std 1003.2-1992 (“POSIX.2”)",
        "-ansiC": "ANSI X3.159-1989 (“ANSI C89”)", "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
        "-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)", "-isoC-2011": "ISO/IEC 9899:2011 (“ISO C11”)",
        "-xpg4": "X/Open Portability Guide Issue 4 (“XPG4”)", "-xpg4.2": "X/Open Portability Guide Issue 4, Version 2 (“XPG4.2”)",
        "-susv2": "Version 2 of the Single UNIX Specification (“SUSv2”)", "-susv3": "Version 3 of the Single UNIX Specification (“SUSv3”)",
        "-susv4": "Version 4 of the Single UNIX Specification (“SUSv4”)", "-svid4": "System V Interface Definition, Fourth Edition (“SVID4”)",
    ]

    static func isPunctuation(_ s: String) -> Bool {
        s.count == 1 && ".,:;)]?!".contains(s)
    }

    /// The words `tokens` print. `firstIsMacro`: the first token is the line's macro (always a
    /// macro, callable or not); other tokens are macros only when callable and not quoted.
    static func render(_ tokens: [TroffReader.Argument], pageName: String?, firstIsMacro: Bool = false) -> String {
        var out = Output()
        var i = 0
        render(tokens, &i, pageName: pageName, firstIsMacro: firstIsMacro, into: &out)
        return out.text
    }

    struct Output {
        var text = ""
        var noSpace = false

        mutating func word(_ w: String) {
            guard !w.isEmpty else { return }
            if !text.isEmpty, !noSpace, !MdocLine.isPunctuation(w) { text += " " }
            text += w
            noSpace = w == "(" || w == "[" || w == "“" || w == "‘" || w == "⟨" || w == "{"
        }

        /// Text that sticks to the previous word (a closer).
        mutating func attach(_ w: String) {
            text += w
            noSpace = false
        }
    }

    private static func isMacro(_ t: TroffReader.Argument) -> Bool { !t.quoted && callable.contains(t.text) }

    private static func render(_ tokens: [TroffReader.Argument], _ i: inout Int, pageName: String?, firstIsMacro: Bool,
                               into out: inout Output) {
        var first = firstIsMacro
        // Plain arguments up to the next macro.
        func arguments() -> [String] {
            var args: [String] = []
            while i < tokens.count, !isMacro(tokens[i]) { args.append(tokens[i].text); i += 1 }
            return args
        }
        while i < tokens.count {
            let t = tokens[i]
            i += 1
            guard first || isMacro(t) else { out.word(t.text); continue }
            first = false
            switch t.text {
            case "Fl":
                let args = arguments()
                if args.isEmpty || args.allSatisfy(isPunctuation) { out.word("-") }
                for a in args { isPunctuation(a) ? out.word(a) : out.word("-" + a) }
            case "Xr":
                let args = arguments()
                if args.count >= 2 {
                    out.word("\(args[0])(\(args[1]))")
                    for a in args.dropFirst(2) { out.word(a) }
                } else {
                    for a in args { out.word(a) }
                }
            case "Ar":
                let args = arguments()
                if args.isEmpty || args.allSatisfy(isPunctuation) { out.word("file ...") }
                for a in args { out.word(a) }
            case "Nm":
                let args = arguments()
                if args.isEmpty || args.allSatisfy(isPunctuation), let pageName { out.word(pageName) }
                for a in args { out.word(a) }
            case "Fn":
                let args = arguments()
                guard let name = args.first else { continue }
                let params = args.dropFirst().filter { !isPunctuation($0) }
                out.word("\(name)(\(params.joined(separator: ", ")))")
                for a in args.dropFirst() where isPunctuation(a) { out.word(a) }
            case "Fo":
                let args = arguments()
                out.word((args.first ?? "") + "(")
                out.noSpace = true
            case "Fc":
                out.attach(")")
            case "In":
                let args = arguments()
                if let h = args.first { out.word("#include <\(h)>") }
                for a in args.dropFirst() { out.word(a) }
            case "St":
                let args = arguments()
                if let s = args.first { out.word(standards[s] ?? String(s.drop { $0 == "-" })) }
                for a in args.dropFirst() { out.word(a) }
            case "Ex":
                let names = arguments().filter { $0 != "-std" }
                let who = names.isEmpty ? (pageName ?? "utility") : names.joined(separator: ", ")
                out.word("The \(who) utility exits 0 on success, and >0 if an error occurs.")
            case "Rv":
                let names = arguments().filter { $0 != "-std" }
                let who = names.isEmpty ? (pageName ?? "function") : names.map { "\($0)()" }.joined(separator: ", ")
                out.word("The \(who) function returns the value 0 if successful; otherwise the value -1 is returned and the global variable errno is set to indicate the error.")
            case "Ns":
                out.noSpace = true
            case "Ap":
                out.attach("'")
                out.noSpace = true
            case "Pf":
                if i < tokens.count { out.word(tokens[i].text); i += 1 }
                out.noSpace = true
            case "Eo":
                let args = arguments()
                if let o = args.first { out.word(o); out.noSpace = true }
            case "Ec":
                let args = arguments()
                if let c = args.first { out.attach(c) }
            case "Ta":
                out.word(" ")
            case "Lk":
                let args = arguments()
                for a in args.dropFirst() { out.word(a) }
                if let url = args.first { out.word(url) }
            default:
                if case let (open, close)? = enclosures[t.text] {
                    out.word(open)
                    var inner = Output()
                    // The rest of the line, except the trailing punctuation, which follows the closer.
                    var end = tokens.count
                    while end > i, isPunctuation(tokens[end - 1].text), !tokens[end - 1].quoted { end -= 1 }
                    var j = i
                    render(Array(tokens[..<end]), &j, pageName: pageName, firstIsMacro: false, into: &inner)
                    out.attach(inner.text)
                    out.attach(close)
                    i = end
                } else if let o = openers[t.text] {
                    out.word(o)
                    out.noSpace = true
                    for a in arguments() { out.word(a) }
                } else if let c = closers[t.text] {
                    out.attach(c)
                } else if let name = systems[t.text] {
                    let args = arguments()
                    out.word(args.first.map { t.text == "At" ? "Version \($0) AT&T UNIX" : "\(name) \($0)" } ?? name)
                    for a in args.dropFirst() { out.word(a) }
                }
                // Any other macro: its name is dropped, its arguments follow as words.
            }
        }
    }
}
