/// A manual page read from its `man(7)` or `mdoc(7)` source: its name, section, NAME line and
/// the text of each section, as `man` would print them (without fonts or layout).
///
/// It takes the events of `TroffReader` and knows the macros real pages use: `man`'s `.TH`,
/// `.SH`, `.SS`, paragraphs (`.PP`, `.TP`, `.IP`, `.RS`/`.RE`, `.nf`/`.fi`), font macros (`.B`,
/// `.BR` joins its arguments without spaces, as it prints them), groff's `.UR`/`.SY`/`.OP`;
/// `mdoc`'s `.Dt`, `.Sh`, `.Nm`, `.Nd`, lists and displays, and its inline macros (`.Fl v` is
/// "-v", `.Xr ls 1` is "ls(1)", `.Op` brackets), whose names are dropped and whose arguments
/// are kept. Macros the page defines itself (pod2man's `.IX`, `.Vb`) are dropped, with their
/// arguments.
///
/// For example:
/// ```swift
/// let page = ManPageDocument(".TH CP 1\n.SH NAME\ncp \\- copy files and directories\n")
/// page.names          // ["cp"]
/// page.description    // "copy files and directories"
/// ```
struct ManPageDocument {
    struct Section {
        var heading: String
        var text: TextBuffer
    }

    /// The name and section of `.TH` or `.Dt`.
    private(set) var headerName: String?
    private(set) var section: String?
    /// The names of the NAME section (`.Nm` in mdoc, the words before the dash in man).
    private(set) var names: [String] = []
    /// The NAME line's text after the dash (`.Nd` in mdoc).
    private(set) var description: String?
    /// The target of a `.so` request: the page this one only includes.
    private(set) var include: String?
    private(set) var sections: [Section] = []
    /// Whether the page had any text outside its header.
    var hasText: Bool { sections.contains { !$0.text.result.text.isEmpty } }

    private let cap: Int
    private var noFill = false
    private var joinNext = false
    private var headingPending = false
    private var nameText = ""
    private var url: String?
    private var isMdoc = false

    init(_ source: String, cap: Int = 1 << 20) {
        self.cap = cap
        sections = [Section(heading: "", text: TextBuffer(cap: cap))]
        TroffReader.read(source) { self.handle($0) }
        finishName()
    }

    // MARK: Events

    private mutating func handle(_ event: TroffReader.Event) {
        switch event {
        case let .text(text, join):
            if headingPending {
                headingPending = false
                sections[sections.count - 1].heading = text.trimmingBlanks()
                return
            }
            if text.allSatisfy({ $0 == " " }) {
                if !joinNext { breakLine() }
                return
            }
            append(text)
            joinNext = join
            if !join { noFill ? breakLine() : space() }
        case let .row(text):
            append(text)
            breakLine()
        case let .request(name, args):
            if Self.mdocLineMacros.contains(name) || Self.mdocCallable.contains(name) {
                mdoc(name, args)
            } else {
                man(name, args.map(\.text))
            }
        case .defined:
            break   // the page's own macro: its body is not expanded
        }
    }

    private mutating func man(_ name: String, _ args: [String]) {
        switch name {
        case "TH":
            headerName = args.first
            section = args.count > 1 ? args[1].lowercased() : nil
        case "SH":
            startSection(args.joined(separator: " "))
        case "SS":
            breakLine()
            if args.isEmpty { return }
            append(args.joined(separator: " "))
            breakLine()
        case "PP", "LP", "P", "HP", "TP", "TQ", "RS", "RE", "br", "sp", "ne", "in", "ti", "YS", "PD":
            breakLine()
        case "IP":
            breakLine()
            if let tag = args.first, !tag.isEmpty { append(tag); space() }
        case "nf", "EX":
            noFill = true
            breakLine()
        case "fi", "EE":
            noFill = false
            breakLine()
        case "B", "I", "SM", "SB", "R":
            words(args.joined(separator: " "))
        case "BR", "BI", "IB", "IR", "RB", "RI":
            words(args.joined())
        case "UR", "MT":
            url = args.first
        case "UE", "ME":
            if let u = url { words(u) }
            url = nil
            if !args.isEmpty { appendJoined(args.joined()) }
        case "SY":
            breakLine()
            words(args.joined(separator: " "))
        case "OP":
            words("[" + args.joined(separator: " ") + "]")
        case "so":
            if include == nil, let target = args.first { include = target }
        default:
            // Formatting requests (`.ad`, `.ft`, `.ta`…) print nothing; an unknown capitalized
            // macro is most likely an extension whose arguments are text.
            if let first = name.unicodeScalars.first, first.properties.isUppercase, !Self.silentMacros.contains(name) {
                words(args.joined(separator: " "))
            }
        }
    }

    // MARK: mdoc

    private mutating func mdoc(_ name: String, _ args: [TroffReader.Argument]) {
        isMdoc = true
        let pageName = names.first ?? headerName
        let text = { (a: ArraySlice<TroffReader.Argument>) in MdocLine.render(Array(a), pageName: pageName) }
        switch name {
        case "Dt":
            headerName = args.first.map { $0.text }
            section = args.count > 1 ? args[1].text.lowercased() : nil
        case "Sh":
            startSection(args.map(\.text).joined(separator: " "))
        case "Ss":
            breakLine()
            append(args.map(\.text).joined(separator: " "))
            breakLine()
        case "Pp", "Lp", "Bl", "El", "Bk", "Ek":
            breakLine()
        case "Bd":
            breakLine()
            if args.contains(where: { $0.text == "-literal" || $0.text == "-unfilled" }) { noFill = true }
        case "Ed":
            noFill = false
            breakLine()
        case "D1", "Dl":
            breakLine()
            words(text(args[...]))
            breakLine()
        case "It":
            breakLine()
            let t = text(args[...])
            if !t.isEmpty { words(t); space() }
        case "Nm" where isNameSection && sections.count > 1:
            for a in args where !MdocLine.isPunctuation(a.text) && !a.text.isEmpty { names.append(a.text) }
            words(text(args[...]))
        case "Nd":
            let d = text(args[...])
            if isNameSection, description == nil { description = d }
            words("- " + d)
        case "Dd", "Os", "Sm", "Db", "Rs", "Re", "Bf", "Ef", "Ud", "Ed1":
            break
        default:
            words(MdocLine.render([TroffReader.Argument(text: name, quoted: false)] + args, pageName: pageName, firstIsMacro: true))
        }
    }

    /// Line macros of mdoc (a page using one is mdoc).
    static let mdocLineMacros: Set<String> = [
        "Dd", "Dt", "Os", "Sh", "Ss", "Pp", "Lp", "Nd", "Bl", "El", "It", "Bd", "Ed", "D1", "Dl", "Bk", "Ek", "Rs", "Re", "Nm",
        "Sm", "Db", "Bf", "Ef", "Ex", "Rv", "Lb", "In", "Fd", "Fo", "Fc", "Vt", "Ft", "Cd", "An", "Lk", "Mt", "Hf", "Ot",
        "%A", "%B", "%C", "%D", "%I", "%J", "%N", "%O", "%P", "%Q", "%R", "%T", "%U", "%V",
    ]
    /// Callable (inline) macros of mdoc.
    static let mdocCallable = MdocLine.callable

    /// Requests and macros that print nothing.
    static let silentMacros: Set<String> = [
        "TH", "DT", "UC", "AT", "PD", "IX", "Vb", "Ve", "Sp", "LO", "ME", "UE", "TS", "TE", "SE", "EE", "EX", "RS", "RE",
        "HP", "LP", "PP", "TP", "TQ", "IP", "SH", "SS", "YS", "OP", "SY", "MT", "UR", "URL", "PS", "PE", "EQ", "EN",
        "TE", "Ds", "De", "CW", "Sh", "Ss",
    ]

    // MARK: Text

    private var isNameSection: Bool { Self.nameHeadings.contains(sections[sections.count - 1].heading.uppercased()) }

    private mutating func startSection(_ heading: String) {
        finishName()
        sections.append(Section(heading: heading.trimmingBlanks(), text: TextBuffer(cap: cap)))
        headingPending = heading.isEmpty
        noFill = false
        joinNext = false
    }

    /// Once the NAME section is done: its names and description, for `man` pages.
    private mutating func finishName() {
        guard !isMdoc, names.isEmpty, sections.count > 1 else { return }
        let s = sections[sections.count - 1]
        let heading = s.heading.uppercased()
        let text = s.text.result.text
        guard Self.nameHeadings.contains(heading) || (sections.count == 2 && text.contains(" - ")) else { return }
        nameText = text.replacingNewlines()
        for dash in [" - ", " – ", " — ", " -- "] {
            guard let r = nameText.firstRange(of: dash) else { continue }
            let before = nameText[..<r.lowerBound]
            // `gzip, gunzip, zcat`; a name may hold spaces (`gcloud alpha ai endpoints list`).
            names = before.split(separator: ",").map { $0.trimmingBlanks() }.filter { !$0.isEmpty }
            let after = nameText[r.upperBound...].trimmingBlanks()
            if description == nil, !after.isEmpty { description = after }
            return
        }
    }

    private mutating func append(_ text: String) {
        sections[sections.count - 1].text.append(text)
    }

    /// A run of words that is separated from what comes before (a macro's text).
    private mutating func words(_ text: String) {
        guard !text.isEmpty else { return }
        if !joinNext { space() }
        append(text)
        joinNext = false
        if noFill { breakLine() } else { space() }
    }

    /// Text that sticks to what comes before (`.UE` punctuation).
    private mutating func appendJoined(_ text: String) {
        append(text)
        space()
    }

    private mutating func space() { sections[sections.count - 1].text.space() }
    private mutating func breakLine() { sections[sections.count - 1].text.breakLine() }

    // MARK: Section names

    /// NAME in the languages of Debian's translated pages.
    static let nameHeadings: Set<String> = [
        "NAME", "NOM", "BEZEICHNUNG", "NAMEN", "NOMBRE", "NOME", "NAAM", "NAZWA", "ИМЯ", "НАЗВАНИЕ", "名前", "名称",
        "NAMN", "NAVN", "NIMI", "NÉV", "JMÉNO", "İSİM", "AD", "NUME", "ΟΝΟΜΑ", "IME", "NAMA", "NOMO", "ІМ'Я", "НАЗВА",
        "이름", "TÊN", "NAZIV", "NOMS",
    ]
    /// SYNOPSIS in those languages.
    static let synopsisHeadings: Set<String> = [
        "SYNOPSIS", "ÜBERSICHT", "SYNOPSE", "SINOPSIS", "SINOSSI", "RESUMO", "SAMMANFATTNING", "OVERSIGT", "SKŁADNIA",
        "СИНТАКСИС", "ОБЗОР", "書式", "概要", "SYNTAX", "KÄYTTÖ", "ÁTTEKINTÉS", "SINOPSE", "OVERZICHT", "POUŽITÍ",
        "SYNOPSIS/SYNTAX", "SINTAXE", "SINTASSI", "YAZILIM", "ΣΥΝΟΨΗ", "개요", "SÄÄNTÖ", "SINOPSI",
    ]
    /// DESCRIPTION in those languages.
    static let descriptionHeadings: Set<String> = [
        "DESCRIPTION", "BESCHREIBUNG", "DESCRIPCIÓN", "DESCRIZIONE", "DESCRIÇÃO", "BESKRIVNING", "BESKRIVELSE",
        "BESCHRIJVING", "OPIS", "ОПИСАНИЕ", "説明", "描述", "KUVAUS", "LEÍRÁS", "POPIS", "AÇIKLAMA", "DESCRIERE",
        "ΠΕΡΙΓΡΑΦΗ", "설명", "ОПИС", "MÔ TẢ", "DESCRIPCIÓ", "DESKRIPSI",
    ]

    /// The rendered sections, SYNOPSIS and DESCRIPTION first, each with its heading, at most
    /// `cap` bytes; and whether the cap cut it.
    func renderedText() -> (text: String, truncated: Bool) {
        var first: [Section] = []
        var second: [Section] = []
        var rest: [Section] = []
        for s in sections {
            let heading = s.heading.uppercased()
            if Self.synopsisHeadings.contains(heading) { first.append(s) }
            else if Self.descriptionHeadings.contains(heading) { second.append(s) }
            else { rest.append(s) }
        }
        var out = TextBuffer(cap: cap)
        for s in first + second + rest {
            let (body, _) = s.text.result
            if s.heading.isEmpty && body.isEmpty { continue }
            if !s.heading.isEmpty {
                out.breakLine()
                out.append(s.heading)
                out.breakLine()
            }
            for line in body.split(separator: "\n") {
                out.append(line)
                out.breakLine()
            }
        }
        let truncated = out.isFull || sections.contains { $0.text.isFull }
        return (out.result.text, truncated)
    }
}

extension StringProtocol {
    /// Without leading and trailing blanks (spaces, tabs, newlines).
    func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard let start = firstIndex(where: { !blank($0) }) else { return "" }
        let end = lastIndex(where: { !blank($0) })!
        return String(self[start...end])
    }

    fileprivate func replacingNewlines() -> String {
        String(map { $0 == "\n" ? " " : $0 })
    }
}
