import Attributes
import LocalIndex
import Configuration
import Controlling
import Foundation
import Indexing
import Querying
import Glibc

/// Answers a search box's query from an index: what fsindexd runs for `fsindex search-provider`
/// (its index warm, one open per query as for fsfind), and what the provider runs itself when
/// no fsindexd serves the index.
///
/// The terms are read as fsfind's short form and ranked as fsfind ranks them (text score,
/// recency, use). Each query opens the index afresh (about 0.3 ms): a connection kept between
/// keystrokes would hold a read snapshot and answer from the past.
package struct SearchBoxAnswers: Sendable {
    package let location: IndexLocation
    package let settings: Settings
    private let home: [UInt8]?
    /// What is done with results whose files are gone; nil: `DaemonOrIndexRepair` (the search
    /// provider on its own). fsindexd gives its own writer.
    private let repair: (any StaleResultRepair)?

    package init(location: IndexLocation, settings: Settings, repair: (any StaleResultRepair)? = nil) {
        self.location = location
        self.settings = settings
        self.repair = repair
        home = getenv("HOME").map { Array(String(cString: $0).utf8) }
    }

    static let fetched: [AttributeKey] = [.name, .displayName, .title, .mimeType, .contentType, .contentURL, .textContentSummary]

    package func answer(_ query: SearchBoxQuery) throws(DesktopError) -> [DesktopHit] {
        let terms = query.terms.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        guard !terms.isEmpty, query.within?.isEmpty != true else { return [] }
        var request = QueryRequest(text: terms.joined(separator: " "), limit: min(query.limit, SearchBoxQuery.maximumLimit),
                                   fetchAttributes: Self.fetched, onePerFile: true,
                                   ranking: RankingWeights(settings.query), timeLimit: settings.query.timeLimit)
        if let within = query.within { request.restriction = .identifiers(within) }
        request.questions = settings.query.questions
        request.semantic = settings.query.semantic
        do {
            return try items(request)
        } catch .nothingToSearch {
            return []
        } catch .syntax, .unknownAttribute, .badValue {
            // Half-typed query syntax (`kind:`, an open quote): the words as words.
            request.literal = true
            do { return try items(request) } catch .nothingToSearch { return [] } catch { throw .search(error) }
        } catch {
            throw .search(error)
        }
    }

    /// Items by identifier, straight from the index (expired and vanished ones left out).
    package func read(_ identifiers: [[UInt8]]) throws(DesktopError) -> [DesktopHit] {
        let store: IndexStore
        do { store = try IndexStore(location: location, readOnly: true) } catch { throw .index(error) }
        var out: [DesktopHit] = []
        for identifier in identifiers {
            let item: SearchableItem?
            do { item = try store.item(ItemIdentifier(bytes: identifier)) } catch { throw .index(error) }
            guard let item else { continue }
            let (file, key) = ItemIdentifier.split(identifier)
            out.append(hit(FoundItem(path: file, childKey: key, attributes: item.attributes)))
        }
        return out
    }

    private func items(_ request: QueryRequest) throws(QueryError) -> [DesktopHit] {
        let (pipeline, _) = try QueryPipeline.open(location: location, repair: repair)
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
        return DesktopHit(id: ResultID.encode(id), identifier: id, name: name, folder: folder,
                          summary: a[.textContentSummary]?.stringValue, contentType: Self.mimeType(a),
                          contentURL: a[.contentURL]?.stringValue)
    }
}
