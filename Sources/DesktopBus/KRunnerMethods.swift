import CSDBus
import Configuration
import Controlling
import Desktop
import Thumbnails
import Foundation
import Querying
import Glibc

/// `org.kde.krunner1`: what KRunner (and Plasma's launcher search) asks a D-Bus runner.
struct KRunnerMethods {
    let search: DesktopSearch
    let opener: ItemOpener
    let log: @Sendable (String) -> Void

    /// KRunner's `QueryMatch::Type` values.
    enum MatchType: Int32 { case completion = 10, possible = 30, exact = 100 }

    /// A completion's match id: this prefix and the completed query.
    static let completionPrefix = "complete:"
    /// Completions offered beside the results (KRunner lists them as possible completions).
    static let completionCount = 3

    /// The one action besides opening: the folder that holds the file.
    static let openFolder = (id: "open-folder", text: "Open Containing Folder", icon: "document-open-folder")

    func answer(_ member: String, _ call: BusCall) throws(DesktopError) {
        switch member {
        case "Match":
            let query = try call.string()
            let terms = query.split(whereSeparator: \.isWhitespace).map(String.init)
            let hits = try search.metas(try search.search(terms))
            // The last word completed from the index's words (`kind:pd` → `kind:pdf`), unless
            // it is a whole word already.
            let completions = try search.completions(of: query, limit: Self.completionCount + 1)
                .filter { $0.text.lowercased() != query.trimmingCharacters(in: .whitespaces).lowercased() }
                .prefix(Self.completionCount)
            try call.reply { m in matches(hits, completions: Array(completions), query: query, into: m) }
        case "Actions":
            try call.reply { m in
                var r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "(sss)")
                guard r >= 0 else { return r }
                r = csdbus_append_krunner_action(m, Self.openFolder.id, Self.openFolder.text, Self.openFolder.icon)
                guard r >= 0 else { return r }
                return sd_bus_message_close_container(m)
            }
        case "Run":
            let id = try call.string()
            let action = try call.string()
            try run(id, action: action)
            try call.replyEmpty()
        case "Config":
            // The letters before a search, as the provider waits for them (DesktopSearch).
            try call.reply { m in
                var r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "{sv}")
                guard r >= 0 else { return r }
                r = csdbus_append_int_entry(m, "MinLetterCount", Int32(DesktopSearch.minimumLetters))
                guard r >= 0 else { return r }
                return sd_bus_message_close_container(m)
            }
        case "Teardown":
            // The query session ended: nothing is held between sessions but the cache of hits.
            search.forgetHits()
            try call.replyEmpty()
        default:
            throw .bus("no such method: \(member)")
        }
    }

    /// `a(sssida{sv})`: the hits in rank order, relevance falling from 1, an exact name match
    /// marked as such; `subtext` is the folder and snippet, `urls` the file's URI (for dragging).
    private func matches(_ hits: [DesktopHit], completions: [Completion], query: String, into m: OpaquePointer) -> Int32 {
        var r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "(sssida{sv})")
        guard r >= 0 else { return r }
        for (rank, hit) in hits.enumerated() {
            let exact = hit.name.lowercased() == query.trimmingCharacters(in: .whitespaces).lowercased()
            let type = exact ? MatchType.exact : .possible
            let relevance = 1.0 - Double(rank) / Double(hits.count + 1)
            let url = ItemIdentifierURL.url(for: hit)
            r = csdbus_append_krunner_match(m, hit.id, hit.name, search.iconNames(for: hit).first ?? "text-x-generic",
                                            type.rawValue, relevance, hit.description, url)
            guard r >= 0 else { return r }
        }
        // Completions last, below every result: running one shows its whole answer
        // ([desktop] launch_search), as the Shell's "more results" does.
        for completion in completions {
            let subtext = completion.count.map { "\($0) item\($0 == 1 ? "" : "s") — show all" } ?? "show all"
            r = csdbus_append_krunner_match(m, Self.completionPrefix + completion.text, completion.text, "edit-find",
                                            MatchType.completion.rawValue, 0.1, subtext, nil)
            guard r >= 0 else { return r }
        }
        return sd_bus_message_close_container(m)
    }

    /// Opens the item (action "") or its folder ("open-folder"), and records the use.
    func run(_ id: String, action: String) throws(DesktopError) {
        if id.hasPrefix(Self.completionPrefix) {
            let (pid, program) = try LaunchSearch.start([String(id.dropFirst(Self.completionPrefix.count))], settings: search.settings)
            SearchProviderMethods(search: search, opener: opener, log: log).reap(pid, program: program, then: nil)
            return
        }
        // Only an item the index holds, as ActivateResult.
        guard let identifier = ResultID.decode(id), try !search.metas([id]).isEmpty else { throw .unknownResult(id) }
        var target = try opener.target(for: identifier)
        switch (action, target) {
        case ("", _): break
        case (Self.openFolder.id, .file(let path)):
            let slash = path.lastIndex(of: UInt8(ascii: "/")) ?? 0
            target = .file(slash == 0 ? [UInt8(ascii: "/")] : Array(path[..<slash]))
        case (Self.openFolder.id, .url):
            throw .cannotOpen("\(id) is an app's item, not a file: it has no folder to open")
        default:
            throw .bus("no such action: \(action) (Actions lists them)")
        }
        let pid = try opener.start(target)
        let location = opener.location
        let log = self.log
        let recordUse = action.isEmpty
        SearchProviderMethods(search: search, opener: opener, log: log).reap(pid, program: opener.command[0]) {
            guard recordUse else { return }
            do { _ = try UseRecorder.record([identifier], location: location) } catch { log("\(error)") }
        }
    }
}

/// The URL a hit opens as: a file's `file://` URI, a donated item's `contentURL`.
enum ItemIdentifierURL {
    static func url(for hit: DesktopHit) -> String? {
        // A donated URL is offered (for dragging) only when it would be opened.
        if let url = hit.contentURL { return OpenableURL.refusal(url) == nil ? url : nil }
        guard hit.identifier.first == UInt8(ascii: "/") else { return nil }
        return FileURI.of(bytes: hit.identifier)
    }
}
