/// The named characters and predefined strings manual pages use, as groff's `groff_char(7)`
/// and the `man`/`mdoc` macro packages define them (the common ones: quotes, dashes,
/// arrows, math, currency, Latin accents). An unknown name prints nothing.
enum TroffGlyphs {
    static let named: [String: String] = [
        "em": "—", "en": "–", "hy": "-", "mi": "-", "-": "-", "pl": "+", "mu": "×", "di": "÷", "+-": "±", "eq": "=",
        "bu": "•", "co": "©", "rg": "®", "tm": "™", "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "aq": "'",
        "dq": "\"", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "Bq": "„", "bq": "‚", "ga": "`", "aa": "´",
        "ti": "~", "a~": "~", "ha": "^", "a^": "^", "rs": "\\", "sl": "/", "ba": "|", "br": "│", "bv": "|",
        "ul": "_", "ru": "_", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "Lq": "“", "Rq": "”",
        "<=": "≤", ">=": "≥", "!=": "≠", "==": "≡", "~=": "≅", "~~": "≈", "->": "→", "<-": "←", "<>": "↔",
        "rA": "⇒", "lA": "⇐", "hA": "⇔", "da": "↓", "ua": "↑", "de": "°", "ps": "¶", "sc": "§", "dg": "†",
        "dd": "‡", "ct": "¢", "Po": "£", "Ye": "¥", "Eu": "€", "eu": "€", "ss": "ß", "mc": "µ", "ci": "○",
        "sq": "□", "*a": "α", "*b": "β", "*g": "γ", "*d": "δ", "*e": "ε", "*l": "λ", "*m": "μ", "*p": "π",
        "*s": "σ", "*S": "Σ", "*W": "Ω", "*D": "Δ", "if": "∞", "sr": "√", "no": "¬", "AN": "∧", "OR": "∨",
        "pc": "·", "at": "@", "sh": "#", "Do": "$", "ff": "ff", "fi": "fi", "fl": "fl", "Fi": "ffi", "Fl": "ffl",
        "12": "½", "14": "¼", "34": "¾", "S1": "¹", "S2": "²", "S3": "³", "r!": "¡", "r?": "¿", "OK": "✓",
        "/l": "ł", "/L": "Ł", "/h": "ħ", "AE": "Æ", "ae": "æ", "OE": "Œ", "oe": "œ", "/o": "ø", "/O": "Ø", "-D": "Ð", "Sd": "ð", "TP": "Þ",
        "Tp": "þ", "IJ": "Ĳ", "ij": "ĳ", ".i": "ı", "'": "´", "`": "`", "^": "^", "~": "~", "ap": "~",
        "an": "─", "lh": "☜", "rh": "☞", "tno": "¬", "nm": "∉", "mo": "∈", "es": "∅", "fa": "∀", "te": "∃",
        "st": "∋", "pt": "∝", "is": "∫", "gr": "∇", "pd": "∂", "c*": "⊗", "c+": "⊕", "ca": "∩", "cu": "∪",
        "sb": "⊂", "sp": "⊃", "ib": "⊆", "ip": "⊇", "or": "|", "lf": "⌊", "rf": "⌋", "lc": "⌈", "rc": "⌉",
    ]

    /// Accent characters of two-letter names (`'e`, `:u`, `~n`) and the combining mark each adds.
    static let accents: [Unicode.Scalar: Unicode.Scalar] = [
        "'": "\u{301}", "`": "\u{300}", "^": "\u{302}", ":": "\u{308}", "~": "\u{303}", ",": "\u{327}",
        "o": "\u{30A}", "v": "\u{30C}", "\"": "\u{30B}", "-": "\u{304}", ".": "\u{307}", "u": "\u{306}",
    ]

    /// A letter with an accent, precomposed where Latin-1 and Latin Extended-A have it (the
    /// letters of European manual pages), else the letter and the combining mark.
    static func compose(_ letter: Unicode.Scalar, _ mark: Unicode.Scalar) -> String? {
        guard letter.properties.isAlphabetic else { return nil }
        if let p = precomposed[String(letter) + String(mark)] { return p }
        return String(letter) + String(mark)
    }

    private static let precomposed: [String: String] = {
        var out: [String: String] = [:]
        let table: [(String, Unicode.Scalar, String)] = [
            ("aeiouAEIOUyYcCnNsSzZ", "\u{301}", "áéíóúÁÉÍÓÚýÝćĆńŃśŚźŹ"),
            ("aeiouAEIOU", "\u{300}", "àèìòùÀÈÌÒÙ"),
            ("aeiouAEIOU", "\u{302}", "âêîôûÂÊÎÔÛ"),
            ("aeiouAEIOUy", "\u{308}", "äëïöüÄËÏÖÜÿ"),
            ("anoANO", "\u{303}", "ãñõÃÑÕ"),
            ("cCsS", "\u{327}", "çÇşŞ"),
            ("aA", "\u{30A}", "åÅ"),
            ("cCsSzZrReEnN", "\u{30C}", "čČšŠžŽřŘěĚňŇ"),
        ]
        for (letters, mark, composed) in table {
            for (l, p) in zip(letters, composed) { out[String(l) + String(mark)] = String(p) }
        }
        return out
    }()

    /// Strings the `man` and `mdoc` packages (and groff's an-ext) predefine, and the ones pod2man
    /// pages set in their preamble before any condition chooses.
    static let predefinedStrings: [String: String] = [
        "lq": "“", "rq": "”", "R": "®", "Tm": "™", "S": "", "aq": "'", "Aq": "'", "HF": "", "Ba": "|",
        "Le": "≤", "Ge": "≥", "Lt": "<", "Gt": ">", "Pm": "±", "If": "∞", "Na": "NaN", "Pi": "π", "q": "\"",
        "Am": "&", "Rq": "”", "Lq": "“", "ua": "↑", "Ne": "≠", "Px": "POSIX", "Ai": "ANSI",
        "C+": "C++", "C`": "“", "C'": "”", "L\"": "“", "R\"": "”", "PI": "π", "`": "`", "'": "´",
        "Ef": "", "Ok": "", "^": "^", "~": "~", ":": "\u{308}", "8": "ß", "o": "°", "/": "/", ",": "\u{327}",
        "th": "þ", "Th": "Þ", "d-": "ð", "D-": "Ð", "ae": "æ", "Ae": "Æ",
    ]
}
