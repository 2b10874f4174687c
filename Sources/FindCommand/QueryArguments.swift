/// Puts `fsfind`'s command line in the shape swift-argument-parser handles in linear time: the
/// options first, then a lone `--` and the query words joined into one argument (fsfind joins
/// them with spaces anyway).
///
/// Why: swift-argument-parser removes each unrecognized argument from its list one at a time,
/// and splits an argument that starts with `-` into one short option per character. Both are
/// quadratic: a query of 10,000 words took 50 s to be refused, and one 13 KB argument starting
/// with `-` (`-w1 -w2 …`) 2.4 s, before fsfind's own parser (bounded by `QueryLimits`) ever saw
/// them. After the rewrite the parser sees a handful of options and one query argument.
///
/// For example, `["budget", "-draft", "--limit", "3"]` becomes
/// `["--limit", "3", "--", "budget -draft"]`; an unknown `--option` stays before the `--`, so
/// `FSFind.validate` still reports it.
package enum QueryArguments {
    /// Options that take a value (`--limit 3` or `--limit=3`).
    static let valued: Set<String> = [
        "index-dir", "index-url", "config", "name", "onlyin", "domain", "group-by", "stats", "sort", "attr", "limit", "offset", "time-limit", "open",
    ]
    /// Short flags (`-word` is otherwise query text: an exclusion).
    static let shortFlags: Set<String> = ["-0", "-h"]

    package static func arrange(_ arguments: [String]) -> [String] {
        var options: [String] = []
        var words: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            i += 1
            if a == "--" {
                words += arguments[i...]
                break
            }
            if a.hasPrefix("--") {
                options.append(a)
                let name = String(a.dropFirst(2))
                if valued.contains(name), i < arguments.count {
                    options.append(arguments[i])
                    i += 1
                }
                continue
            }
            if shortFlags.contains(a) { options.append(a); continue }
            words.append(a)
        }
        return words.isEmpty ? options : options + ["--", words.joined(separator: " ")]
    }
}
