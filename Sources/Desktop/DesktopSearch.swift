import Attributes
import CommandSupport
import Configuration
import Foundation
import Indexing
import Querying
#if canImport(Glibc)
import Glibc
#endif

/// The searches behind the desktop's search boxes, shared by GNOME Shell's provider and KRunner.
///
/// The terms are ANDed, as the Shell expects, and read as fsfind's short form reads them: the
/// last word is also a prefix (the user is still typing it), and `kind:pdf` or `from:ada` work
/// as in fsfind. Results are ranked as fsfind ranks them (text score, recency, use) and capped
/// by `[desktop] max_results`.
///
/// Each search opens the index afresh, as fsindexd does for fsfind (about 0.3 ms): a connection
/// kept between keystrokes would hold a read snapshot and answer from the past.
///
/// Typing one more letter narrows: `GetSubsearchResultSet` gets the previous ids and the new
/// terms. When the previous answer was whole (fewer results than the cap) and the new terms
/// can only match fewer items (each old word equal to the new one in its place, and the old
/// last word, a prefix, a prefix of the new one there), the new answer lies inside the old, so
/// only those ids are searched, not the whole index.
public final class DesktopSearch: @unchecked Sendable {
    public let location: IndexLocation
    public let settings: Settings
    let icons: MIMEIcons
    private let home: [UInt8]?

    /// The last answer: its terms, its ids, and whether it held every match.
    private var last: (terms: [String], ids: [String], whole: Bool)?
    /// The hits of recent answers, by id, for `metas`; emptied when it grows past a bound.
    private var hits: [String: DesktopHit] = [:]
    /// How the last search was answered, for tests and the latency figures: true when it only
    /// searched the previous ids.
    public private(set) var lastSearchNarrowed = false

    public init(location: IndexLocation, settings: Settings, icons: MIMEIcons = MIMEIcons()) {
        self.location = location
        self.settings = settings
        self.icons = icons
        home = getenv("HOME").map { Array(String(cString: $0).utf8) }
    }

    /// The first answer for what the user typed.
    public func search(_ terms: [String]) throws(DesktopError) -> [String] {
        try answer(terms, previous: nil)
    }

    /// The answer when the user typed more: inside `previous` where that is sure to be whole.
    public func subsearch(previous: [String], terms: [String]) throws(DesktopError) -> [String] {
        try answer(terms, previous: previous)
    }

    private func answer(_ rawTerms: [String], previous: [String]?) throws(DesktopError) -> [String] {
        let terms = rawTerms.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        lastSearchNarrowed = false
        guard !terms.isEmpty else { last = nil; return [] }
        var restriction: [[UInt8]]?
        if let previous, let last, last.whole, Set(previous).isSubset(of: Set(last.ids)), Self.narrows(from: last.terms, to: terms) {
            restriction = previous.compactMap(ResultID.decode)
            lastSearchNarrowed = true
        }
        let limit = settings.desktop.maxResults
        let found: [DesktopHit]
        if let restriction, restriction.isEmpty {
            found = []
        } else {
            found = try run(terms, limit: limit, within: restriction)
        }
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
    public static func narrowsForTesting(from old: [String], to new: [String]) -> Bool { narrows(from: old, to: new) }

    /// The hits for `ids`: from recent answers, else read from the index (a provider restarted
    /// between the search and the metas, or KRunner's `Run` after a `Match` long ago).
    public func metas(_ ids: [String]) throws(DesktopError) -> [DesktopHit] {
        let missing = ids.filter { hits[$0] == nil }.compactMap(ResultID.decode)
        if !missing.isEmpty {
            for hit in try read(missing) { hits[hit.id] = hit }
        }
        return ids.compactMap { hits[$0] }
    }

    /// Forgets the hits of earlier answers (KRunner's `Teardown`: its session ended).
    public func forgetHits() {
        hits = [:]
        last = nil
    }

    /// The thumbnail file to show for a hit, when one exists and is current.
    public func thumbnail(for hit: DesktopHit) -> [UInt8]? {
        nil
    }

    /// The themed icon names for a hit (most specific first).
    public func iconNames(for hit: DesktopHit) -> [String] {
        icons.names(for: hit.contentType)
    }

    // MARK: - The index

    static let fetched: [AttributeKey] = [.name, .displayName, .title, .mimeType, .contentType, .contentURL, .textContentSummary]

    private func run(_ terms: [String], limit: Int, within: [[UInt8]]?) throws(DesktopError) -> [DesktopHit] {
        var request = QueryRequest(text: terms.joined(separator: " "), limit: limit, fetchAttributes: Self.fetched,
                                   snippet: true, onePerFile: true, ranking: RankingWeights(settings.query),
                                   timeLimit: settings.query.timeLimit)
        if let within { request.restriction = .identifiers(within) }
        do {
            return try items(request)
        } catch .nothingToSearch {
            return []
        } catch .syntax, .unknownAttribute, .badValue {
            // Half-typed query syntax (`kind:`, an open quote): the words as words.
            request.literal = true
            do { return try items(request) } catch .nothingToSearch { return [] } catch { throw .query(error.description) }
        } catch {
            throw .query(error.description)
        }
    }

    /// Items by identifier, straight from the index (expired and vanished ones left out).
    private func read(_ identifiers: [[UInt8]]) throws(DesktopError) -> [DesktopHit] {
        let store: IndexStore
        do { store = try IndexStore(location: location, readOnly: true) } catch { throw .query(error.description) }
        var out: [DesktopHit] = []
        for identifier in identifiers {
            let item: SearchableItem?
            do { item = try store.item(ItemIdentifier(bytes: identifier)) } catch { throw .query(error.description) }
            guard let item else { continue }
            let (file, key) = ItemIdentifier.split(identifier)
            out.append(hit(FoundItem(path: file, childKey: key, attributes: item.attributes)))
        }
        return out
    }

    private func items(_ request: QueryRequest) throws(QueryError) -> [DesktopHit] {
        let (pipeline, _) = try QueryPipeline.open(location: location)
        var out: [DesktopHit] = []
        try pipeline.run(request) { reply in
            guard case .items(let items) = reply.content else { return }
            out += items.map(hit)
        }
        return out
    }

    /// The item's MIME type: `mimeType`, else the first of its content type's (a donated item
    /// names a UTI such as `public.plain-text`).
    static func mimeType(_ a: AttributeSet) -> String? {
        if let mime = a[.mimeType]?.stringValue { return mime }
        guard let type = a[.contentType]?.stringValue else { return nil }
        if type.contains("/") { return type }
        for t in ContentType(rawValue: type).tree { if let m = t.wellKnown?.mimeTypes.first { return m } }
        return nil
    }

    private func hit(_ item: FoundItem) -> DesktopHit {
        let id = item.identifier
        let a = item.attributes
        let donated = ItemIdentifier(bytes: id).isDonated
        let fileName = a[.name]?.stringValue ?? String(decoding: ItemIdentifier(bytes: item.path).nameBytes, as: UTF8.self)
        let name = a[.displayName]?.stringValue ?? a[.title]?.stringValue ?? fileName
        var folder: String?
        if !donated, let slash = item.path.lastIndex(of: UInt8(ascii: "/")) {
            folder = DesktopHit.display(slash == 0 ? [UInt8(ascii: "/")] : Array(item.path[..<slash]), home: home)
        }
        let snippet = item.snippet.map {
            $0.replacingOccurrences(of: QueryEngine.snippetStart, with: "").replacingOccurrences(of: QueryEngine.snippetEnd, with: "")
              .split(whereSeparator: \.isNewline).joined(separator: " ")
        }.flatMap { $0.isEmpty ? nil : $0 }
        return DesktopHit(id: ResultID.encode(id), identifier: id, name: name, folder: folder, snippet: snippet,
                          summary: a[.textContentSummary]?.stringValue, contentType: Self.mimeType(a),
                          contentURL: a[.contentURL]?.stringValue)
    }
}
