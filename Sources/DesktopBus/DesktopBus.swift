import CSDBus
import Desktop
import Configuration
import Foundation
import Indexing
import Glibc

/// The search boxes' service on the session bus: GNOME Shell's `org.gnome.Shell.SearchProvider2`
/// as `org.fsindex.SearchProvider` at `/org/fsindex/SearchProvider`, and KRunner's
/// `org.kde.krunner1` as `org.fsindex.KRunner` at `/runner`, in one process (`fsindex
/// search-provider`, which D-Bus starts on the first search).
///
/// Built on sd-bus (libsystemd) and run on the caller's thread: one call at a time, which is
/// what a search box sends (each keystroke waits for the last answer). It leaves after
/// `idleExit` without a call, as activated services do, and D-Bus starts it again when needed.
package final class DesktopBus {
    package static let providerName = "org.fsindex.SearchProvider"
    package static let providerPath = "/org/fsindex/SearchProvider"
    package static let krunnerName = "org.fsindex.KRunner"
    package static let krunnerPath = "/runner"

    let search: DesktopSearch
    let gnome: SearchProviderMethods
    let krunner: KRunnerMethods
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer?] = [nil, nil]
    /// Where problems go: stderr, which is the journal under systemd or D-Bus activation.
    let log: @Sendable (String) -> Void

    /// Whether each search is logged with its time and who answered (`FSINDEX_TRACE=1`), for
    /// tests and the per-keystroke latency figures.
    let trace: Bool

    package init(search: DesktopSearch, opener: ItemOpener, trace: Bool = false, log: @escaping @Sendable (String) -> Void) {
        self.search = search
        self.log = log
        self.trace = trace
        gnome = SearchProviderMethods(search: search, opener: opener, log: log)
        krunner = KRunnerMethods(search: search, opener: opener, log: log)
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Connects to the session bus, exports both objects and takes both names; an error that
    /// says why when the bus is missing or a name is taken.
    package func connect() throws(DesktopError) {
        var b: OpaquePointer?
        var r = sd_bus_open_user(&b)
        guard r >= 0, let b else {
            throw .bus("cannot connect to the session bus (\(Self.errorText(r))); the search provider runs inside a desktop session (DBUS_SESSION_BUS_ADDRESS)")
        }
        bus = b
        let me = Unmanaged.passUnretained(self).toOpaque()
        r = csdbus_add_search_provider(b, &slots[0], Self.providerPath, Self.handler, me)
        guard r >= 0 else { throw .bus("cannot export \(Self.providerPath): \(Self.errorText(r))") }
        r = csdbus_add_krunner(b, &slots[1], Self.krunnerPath, Self.handler, me)
        guard r >= 0 else { throw .bus("cannot export \(Self.krunnerPath): \(Self.errorText(r))") }
        for name in [Self.providerName, Self.krunnerName] {
            r = sd_bus_request_name(b, name, 0)
            guard r >= 0 else {
                throw .bus(r == -EEXIST ? "\(name) is already owned on this session bus: another search provider runs"
                                        : "cannot own \(name): \(Self.errorText(r))")
            }
        }
    }

    /// Answers calls until `idleExit` passes without one (nil: forever) or the bus goes away.
    package func run(idleExit: Duration?) throws(DesktopError) {
        guard let bus else { throw .bus("not connected") }
        var lastCall = ContinuousClock.now
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 {
                if r == -ECONNRESET || r == -ENOTCONN { return }
                throw .bus("the session bus failed: \(Self.errorText(r))")
            }
            if r > 0 { lastCall = .now; continue }
            var timeout = UInt64.max
            if let idleExit {
                let left = idleExit - (ContinuousClock.now - lastCall)
                if left <= .zero { return }
                let (s, a) = left.components
                timeout = UInt64(s) * 1_000_000 + UInt64(a / 1_000_000_000_000) + 1
            }
            let w = sd_bus_wait(bus, timeout)
            if w < 0 && w != -EINTR { throw .bus("waiting on the session bus failed: \(Self.errorText(w))") }
        }
    }

    static func errorText(_ r: Int32) -> String { String(cString: strerror(-r)) }

    /// Every method of both objects: the interface and member pick the answer.
    private static let handler: sd_bus_message_handler_t = { message, userdata, busError in
        guard let message, let userdata else { return -EINVAL }
        let me = Unmanaged<DesktopBus>.fromOpaque(userdata).takeUnretainedValue()
        let interface = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        let call = BusCall(message: message)
        let started = ContinuousClock.now
        do throws(DesktopError) {
            if interface == "org.kde.krunner1" {
                try me.krunner.answer(member, call)
            } else {
                try me.gnome.answer(member, call)
            }
            if me.trace && ["GetInitialResultSet", "GetSubsearchResultSet", "Match"].contains(member) {
                let took = (ContinuousClock.now - started).components
                let ms = Double(took.seconds) * 1000 + Double(took.attoseconds) / 1e15
                me.log("trace: \(member) in \(String(format: "%.2f", ms)) ms, answered "
                       + (me.search.lastAnsweredByDaemon ? "by fsindexd" : "from the index")
                       + (me.search.lastSearchNarrowed ? ", narrowed" : ""))
            }
            return 1
        } catch {
            me.log("\(interface).\(member): \(error.description)")
            return sd_bus_error_set(busError, "org.fsindex.Error.Failed", error.description)
        }
    }
}

/// One method call: its arguments in order, and the reply.
struct BusCall {
    let message: OpaquePointer

    func strings() throws(DesktopError) -> [String] {
        var strv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let r = sd_bus_message_read_strv(message, &strv)
        guard r >= 0 else { throw .bus("bad arguments: \(DesktopBus.errorText(r))") }
        defer { csdbus_strv_free(strv) }
        var out: [String] = []
        var i = 0
        while let p = strv?[i] { out.append(String(cString: p)); i += 1 }
        return out
    }

    func string() throws(DesktopError) -> String {
        var p: UnsafePointer<CChar>?
        let r = withUnsafeMutablePointer(to: &p) { sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), $0) }
        guard r > 0, let p else { throw .bus("bad arguments: \(r < 0 ? DesktopBus.errorText(r) : "a string is missing")") }
        return String(cString: p)
    }

    func uint32() throws(DesktopError) -> UInt32 {
        var v: UInt32 = 0
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &v)
        guard r > 0 else { throw .bus("bad arguments: \(r < 0 ? DesktopBus.errorText(r) : "a number is missing")") }
        return v
    }

    /// Builds the reply with `fill` and sends it.
    func reply(_ fill: (OpaquePointer) -> Int32) throws(DesktopError) {
        var reply: OpaquePointer?
        var r = sd_bus_message_new_method_return(message, &reply)
        guard r >= 0, let reply else { throw .bus("cannot reply: \(DesktopBus.errorText(r))") }
        defer { sd_bus_message_unref(reply) }
        r = fill(reply)
        guard r >= 0 else { throw .bus("cannot build the reply: \(DesktopBus.errorText(r))") }
        r = sd_bus_send(nil, reply, nil)
        guard r >= 0 else { throw .bus("cannot send the reply: \(DesktopBus.errorText(r))") }
    }

    func replyEmpty() throws(DesktopError) {
        let r = csdbus_reply_empty(message)
        guard r >= 0 else { throw .bus("cannot reply: \(DesktopBus.errorText(r))") }
    }
}

/// Runs `body` with `strings` as a NULL-terminated `char **` (a D-Bus string has no NUL, so
/// any is dropped).
func withCStrings<T>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0.replacingOccurrences(of: "\u{0}", with: "")) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

