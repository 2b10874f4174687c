import Configuration

/// "Show all results" (GNOME Shell's `LaunchSearch`, KRunner's completion entries): runs
/// `[desktop] launch_search` with the caller's terms as fsfind's query words.
///
/// Any program on the session bus may call, so the terms are data, never options: each one that
/// starts with `-` is refused (fsfind would read `--config=/tmp/x.toml` or `--open=1`, and a
/// terminal emulator in front of fsfind may read options of its own), and `--` comes before the
/// terms, so a program after the terminal that parses options stops there too. A term with a
/// control character (a newline that forges a second command line in a terminal's log) is
/// refused as well. A person who typed `-draft` in the search box gets the error on the bus,
/// not a different program run.
package enum LaunchSearch {
    /// Terms a box sends: more would be a flood, not a search.
    package static let maximumTerms = 64
    package static let maximumTermBytes = 1024

    /// The command line: `launch_search`, `--`, the terms.
    package static func arguments(_ terms: [String], settings: Settings) throws(DesktopError) -> (command: [String], extra: [[UInt8]]) {
        let words = terms.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        guard !words.isEmpty else { throw .query("no search terms to show results for") }
        guard words.count <= maximumTerms else { throw .query("too many search terms (\(words.count); at most \(maximumTerms))") }
        for word in words {
            if word.hasPrefix("-") {
                throw .query("refused search term \"\(String(word.prefix(40)))\": a term that starts with - would be read as an option")
            }
            guard word.utf8.count <= maximumTermBytes else { throw .query("a search term longer than \(maximumTermBytes) bytes") }
            if word.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
                throw .query("refused a search term with a control character")
            }
        }
        return (settings.desktop.launchSearch, [Array("--".utf8)] + words.map { Array($0.utf8) })
    }

    /// Starts it; the caller reaps the pid.
    package static func start(_ terms: [String], settings: Settings) throws(DesktopError) -> (pid: Int32, program: String) {
        let (command, extra) = try arguments(terms, settings: settings)
        return (try ItemOpener.spawn(command, extra: extra), command[0])
    }
}
