import CSDBus
import Configuration
import Controlling
import Desktop
import Thumbnails
import Foundation
import SystemCalls
import Glibc

/// `org.gnome.Shell.SearchProvider2`: what GNOME Shell's overview asks as the user types.
struct SearchProviderMethods {
    let search: DesktopSearch
    let opener: ItemOpener
    let log: @Sendable (String) -> Void

    func answer(_ member: String, _ call: BusCall) throws(DesktopError) {
        switch member {
        case "GetInitialResultSet":
            let ids = try search.search(try call.strings())
            try call.reply { m in withCStrings(ids) { sd_bus_message_append_strv(m, $0) } }
        case "GetSubsearchResultSet":
            let previous = try call.strings()
            let ids = try search.subsearch(previous: previous, terms: try call.strings())
            try call.reply { m in withCStrings(ids) { sd_bus_message_append_strv(m, $0) } }
        case "GetResultMetas":
            let hits = try search.metas(try call.strings())
            try call.reply { m in metas(hits, into: m) }
        case "ActivateResult":
            let id = try call.string()
            _ = try call.strings()
            _ = try call.uint32()
            try activate(id)
            try call.replyEmpty()
        case "LaunchSearch":
            let terms = try call.strings()
            _ = try call.uint32()
            let (pid, program) = try LaunchSearch.start(terms, settings: search.settings)
            reap(pid, program: program, then: nil)
            try call.replyEmpty()
        default:
            throw .bus("no such method: \(member)")
        }
    }

    /// `aa{sv}`: one dictionary per hit, with `id`, `name`, `description` and `icon`.
    private func metas(_ hits: [DesktopHit], into m: OpaquePointer) -> Int32 {
        var r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "a{sv}")
        guard r >= 0 else { return r }
        for hit in hits {
            r = sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "{sv}")
            guard r >= 0 else { return r }
            for (key, value) in [("id", hit.id), ("name", hit.name), ("description", hit.description)] {
                r = csdbus_append_string_entry(m, key, value.replacingOccurrences(of: "\u{0}", with: ""))
                guard r >= 0 else { return r }
            }
            let (kind, names) = icon(for: hit)
            r = withCStrings(names) { csdbus_append_icon_entry(m, kind, $0) }
            guard r >= 0 else { return r }
            r = sd_bus_message_close_container(m)
            guard r >= 0 else { return r }
        }
        return sd_bus_message_close_container(m)
    }

    /// A serialized GIcon: the thumbnail file when one exists, else the type's themed icons.
    func icon(for hit: DesktopHit) -> (kind: String, names: [String]) {
        if let thumbnail = search.thumbnail(for: hit) { return ("file", [FileURI.of(bytes: thumbnail)]) }
        return ("themed", search.iconNames(for: hit))
    }

    /// Opens the item and records the use once the opening program succeeded. Only an item the
    /// index holds is opened: any program on the session bus may call, and it gets no more
    /// than a search would show it.
    func activate(_ id: String) throws(DesktopError) {
        guard let identifier = ResultID.decode(id), try !search.metas([id]).isEmpty else { throw .unknownResult(id) }
        let target = try opener.target(for: identifier)
        let pid = try opener.start(target)
        let location = opener.location
        reap(pid, program: opener.command[0]) {
            do { _ = try UseRecorder.record([identifier], location: location) } catch { log("\(error)") }
        }
    }

    /// Waits for a started program on a thread of its own (the bus must not wait), logging a
    /// failure and running `then` after a success.
    func reap(_ pid: pid_t, program: String, then: (@Sendable () -> Void)?) {
        let log = self.log
        let started = SystemCall.startThread(detached: true) {
            do {
                try ItemOpener.wait(pid, program: program)
                then?()
            } catch {
                log("\(error)")
            }
        }
        if case .failure(let e) = started {
            // No thread to wait on: the program runs on, unreaped until the provider exits.
            log("\(program) started, but its end cannot be awaited: no thread (\(e))")
        }
    }
}
