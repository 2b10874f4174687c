import Attributes
import LocalIndex
import Configuration
import Controlling
import Foundation
import Indexing
import Querying
import SystemCalls
import SystemPackage
import Thumbnails
import Glibc

/// The searches behind the desktop's search boxes, shared by GNOME Shell's provider and KRunner.
///
/// The terms are ANDed, as the Shell expects, and read as fsfind's short form reads them: the
/// last word is also a prefix (the user is still typing it), and `kind:pdf` or `from:ada` work
/// as in fsfind. Results are ranked as fsfind ranks them (text score, recency, use) and capped
/// by `[desktop] max_results`.
///
/// Each search is answered by the fsindexd that keeps the index, over its control socket (one
/// connection kept between keystrokes, its owner checked as every client checks it), and by
/// the index directly (``SearchBoxAnswers``) when none runs: the same answer either way.
///
/// Typing one more letter narrows: `GetSubsearchResultSet` gets the previous ids and the new
/// terms. When the previous answer was whole (fewer results than the cap) and the new terms
/// can only match fewer items (each old word equal to the new one in its place, and the old
/// last word, a prefix, a prefix of the new one there), the new answer lies inside the old, so
/// only those ids are searched, not the whole index.
package final class DesktopSearch: @unchecked Sendable {
    package let location: IndexLocation
    package let settings: Settings
    let icons: MIMEIcons
    let direct: SearchBoxAnswers
    let thumbnails = ThumbnailCache.user()
    let donatedThumbnails = DonatedThumbnails.user()
    /// The connection to fsindexd, while one answers.
    private var daemon: ControlClient?
    /// Who answered the last search: fsindexd, or this process from the index.
    package private(set) var lastAnsweredByDaemon = false

    /// The last answer: its terms, its ids, and whether it held every match.
    private var last: (terms: [String], ids: [String], whole: Bool)?
    /// The hits of recent answers, by id, for `metas`; emptied when it grows past a bound.
    private var hits: [String: DesktopHit] = [:]
    /// How the last search was answered, for tests and the latency figures: true when it only
    /// searched the previous ids.
    package private(set) var lastSearchNarrowed = false

    package init(location: IndexLocation, settings: Settings, icons: MIMEIcons = MIMEIcons()) {
        self.location = location
        self.settings = settings
        self.icons = icons
        direct = SearchBoxAnswers(location: location, settings: settings)
    }

    deinit { daemon?.close() }

    /// Letters typed before a search: one or two letters as a prefix match most of an index
    /// (a two-letter prefix took a second on the 111,000-file bench corpus) and rank nothing
    /// useful. Baloo's runner waits for three as well; KRunner is told so (`MinLetterCount`).
    package static let minimumLetters = 3

    /// The first answer for what the user typed.
    package func search(_ terms: [String]) throws(DesktopError) -> [String] {
        try answer(terms, previous: nil)
    }

    /// The answer when the user typed more: inside `previous` where that is sure to be whole.
    package func subsearch(previous: [String], terms: [String]) throws(DesktopError) -> [String] {
        try answer(terms, previous: previous)
    }

    private func answer(_ rawTerms: [String], previous: [String]?) throws(DesktopError) -> [String] {
        let terms = rawTerms.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        lastSearchNarrowed = false
        guard terms.joined().count >= Self.minimumLetters else { last = nil; return [] }
        var restriction: [[UInt8]]?
        if let previous, let last, last.whole, Set(previous).isSubset(of: Set(last.ids)), Self.narrows(from: last.terms, to: terms) {
            restriction = previous.compactMap(ResultID.decode)
            lastSearchNarrowed = true
        }
        let limit = settings.desktop.maxResults
        let found = try ask(SearchBoxQuery(terms: terms, limit: limit, within: restriction))
        if hits.count > 4096 { hits = [:] }
        for hit in found { hits[hit.id] = hit }
        let ids = found.map(\.id)
        last = (terms, ids, lastSearchNarrowed ? last!.whole : ids.count < limit)
        return ids
    }

    /// Whether every item matching `new` also matches `old` (fsfind's short form: the last
    /// word a prefix, the others whole words).
    static func narrows(from old: [String], to new: [String]) -> Bool {
        guard !old.isEmpty, new.count >= old.count else { return false }
        for (i, word) in old.enumerated() {
            let isLast = i == old.count - 1
            let lower = word.lowercased(), newer = new[i].lowercased()
            // Only plain words narrow this simply: field terms (`kind:`), quotes and operators
            // have rules of their own.
            guard lower.allSatisfy({ $0.isLetter || $0.isNumber }) else { return false }
            if isLast ? !newer.hasPrefix(lower) : newer != lower { return false }
        }
        return true
    }

    /// `narrows(from:to:)` for tests.
    package static func narrowsForTesting(from old: [String], to new: [String]) -> Bool { narrows(from: old, to: new) }

    /// The hits for `ids`: from recent answers, else read from the index (a provider restarted
    /// between the search and the metas, or KRunner's `Run` after a `Match` long ago).
    ///
    /// Any program on the bus may ask, so a call is bounded: more than `maximumMetaIDs` ids is
    /// refused at once (GNOME Shell asks for the ten or so it shows; 200,000 ids held the
    /// provider, and every search box waiting on it, for 16 s), and each distinct id is looked
    /// up, and answered, once.
    package func metas(_ ids: [String]) throws(DesktopError) -> [DesktopHit] {
        guard ids.count <= Self.maximumMetaIDs else {
            throw .query("refused: \(ids.count) result ids in one call; at most \(Self.maximumMetaIDs)")
        }
        var seen = Set<String>()
        let distinct = ids.filter { seen.insert($0).inserted }
        let missing = distinct.filter { hits[$0] == nil }.compactMap(ResultID.decode)
        if !missing.isEmpty {
            for hit in try direct.read(missing) { hits[hit.id] = hit }
        }
        return distinct.compactMap { hits[$0] }
    }

    /// Ids per `GetResultMetas`: many times what a search box shows.
    package static let maximumMetaIDs = 256

    /// The answer from fsindexd when it runs (connecting again once if it restarted), else
    /// from the index here.
    private func ask(_ query: SearchBoxQuery) throws(DesktopError) -> [DesktopHit] {
        for attempt in 0..<2 {
            if daemon == nil { daemon = connect() }
            guard let client = daemon else { break }
            do {
                switch try client.request(.searchBox(query), timeout: .seconds(settings.query.timeLimit + 5)) {
                case .searchBoxHits(let hits):
                    lastAnsweredByDaemon = true
                    return hits
                case .error(let message):
                    // An fsindexd of an older version names the request unknown: ask the index.
                    if message.contains("unknown request") || message.contains("no search box") { break }
                    throw DesktopError.query(message)
                default:
                    break
                }
            } catch let e as DesktopError {
                throw e
            } catch {
                // The connection broke (fsindexd restarted or stopped): once more, afresh.
                client.close()
                daemon = nil
                if attempt == 0 { continue }
            }
            break
        }
        lastAnsweredByDaemon = false
        return try direct.answer(query)
    }

    private func connect() -> ControlClient? {
        try? ControlClient.connect(ControlLocation.forIndex(directory: location.directory))
    }

    /// Completions of the last word, most items first (`fsfind --complete`): read from the
    /// index's vocabulary, a few milliseconds; none for fewer than three letters.
    package func completions(of text: String, limit: Int) throws(DesktopError) -> [Completion] {
        guard text.filter({ !$0.isWhitespace }).count >= Self.minimumLetters else { return [] }
        let store: IndexStore
        do { store = try IndexStore(location: location, readOnly: true) } catch { throw .index(error) }
        do { return try Completer.completions(for: text, limit: limit, in: store) } catch { throw .search(error) }
    }

    /// Forgets the hits of earlier answers (KRunner's `Teardown`: its session ended).
    package func forgetHits() {
        hits = [:]
        last = nil
    }

    /// The thumbnail file to show for a hit, when one exists and is current: a file's from the
    /// freedesktop cache (made by Files, Dolphin or `fsindex thumbnail`, checked against the
    /// file's modification time), a donated item's `thumbnailData` written out once. None is
    /// made here: a search box waits for no worker, and shows the type's icon instead.
    package func thumbnail(for hit: DesktopHit) -> [UInt8]? {
        let id = ItemIdentifier(bytes: hit.identifier)
        if id.isDonated {
            guard let data = try? IndexStore(location: location, readOnly: true).donatedThumbnail(id) else { return nil }
            return (try? donatedThumbnails.write(data, for: hit.identifier))?.bytes
        }
        let file = ItemIdentifier.split(hit.identifier).file
        return thumbnails.existing(forFile: FilePath(bytes: file))?.bytes
    }

    /// The themed icon names for a hit (most specific first).
    package func iconNames(for hit: DesktopHit) -> [String] {
        icons.names(for: hit.contentType)
    }

}
