import ArgumentParser
import CommandSupport
import Configuration
import Controlling
import Indexing
import MemberwiseInit
import QueryWire
import Querying
import SystemCalls
import SystemPackage
import Glibc

/// fsindexd's answer to the small `fsfind`: the same `FSFind` command, run in the daemon with the
/// client's descriptors, working folder and `NO_COLOR`, so the output is byte for byte what
/// `fsfind-direct` would print.
///
/// It declines (the client then runs `fsfind-direct`, which reads the index itself) whenever the
/// answer could differ from that: a command line that does not parse or asks for help (the
/// parser prints those itself, sized to the client's terminal); `--live`; a relative `--config`;
/// another index; a value of `FindWire.mustMatch` (time zone, locale, config folder) unlike the
/// daemon's; or other groups than the daemon's, because "may this user read the file" must be
/// asked with the client's groups, and the daemon can only ask with its own.
@MemberwiseInit
package struct FindService: FindHandler {
    /// The index this daemon keeps.
    package let location: IndexLocation
    /// The daemon's own writer, for results whose files are gone.
    package let repair: any StaleResultRepair

    package func answer(_ request: FindWire.Request, output: Int32, errors: Int32, peer: PeerCredentials,
                       start: () -> Bool, abandoned: @escaping @Sendable () -> Bool) -> FindWire.Reply {
        if let reason = Self.environmentDifference(request) ?? Self.groupDifference(request) { return .fallback(reason) }
        let arguments = QueryArguments.arrange(request.arguments.map(ArgumentBytes.encode))
        let command: FSFind
        do {
            guard let parsed = try FSFind.parseAsRoot(arguments) as? FSFind else { return .fallback("not a query") }
            command = parsed
        } catch {
            return .fallback("the command line is for fsfind-direct to answer (help or an error)")
        }
        if command.live { return .fallback("--live") }
        // The opening program must start in the user's session (its display, its environment),
        // not in the daemon's.
        if command.open != nil { return .fallback("--open") }
        // The shared index answers each user as that user's role: the client connects itself.
        if command.sharedURL(settings: try? command.index.settings()) != nil { return .fallback("the shared index") }
        if let config = command.index.config, !ArgumentBytes.path(config).isAbsolute { return .fallback("a relative --config") }
        var environment: [String: String] = [:]
        for key in ["HOME", "XDG_DATA_HOME", "FSINDEX_INDEX_DIR"] {
            if let value = request.variable(key) { environment[key] = String(decoding: value, as: UTF8.self) }
        }
        guard command.indexLocation(workingDirectory: request.workingDirectory, environment: environment) == location else {
            return .fallback("another index")
        }
        guard start() else { return .exit(2) }
        let noColor = request.variable("NO_COLOR").map { !$0.isEmpty } ?? false
        let io = FindIO(out: Output(clientDescriptor: output, noColor: noColor, abandoned: abandoned),
                        errors: Output(clientDescriptor: errors, noColor: noColor, abandoned: abandoned),
                        workingDirectory: request.workingDirectory, environment: environment, repair: repair)
        // Each query opens the index afresh, as fsfind-direct does (about 0.3 ms): a connection
        // kept between queries whose read snapshot stayed open would answer from the past. With
        // kept connections the daemon lifecycle test failed one run in three (a folder rename
        // never seen by fsfind).
        let status = command.answer(io: io)
        // A closed pipe ends fsfind-direct quietly with status 0 (`fsfind x | head -1`).
        return .exit(io.out.isClosed ? 0 : status)
    }

    /// The first variable of `FindWire.mustMatch` whose value differs from the daemon's.
    static func environmentDifference(_ request: FindWire.Request) -> String? {
        for key in FindWire.mustMatch.sorted() {
            let mine = getenv(key).map { p in Array(UnsafeBufferPointer(start: p, count: strlen(p))).map { UInt8(bitPattern: $0) } }
            if request.variable(key) != mine { return "\(key) differs from fsindexd's" }
        }
        return nil
    }

    /// Whether the client's groups differ from the daemon's (as sets, with real and effective
    /// group ids).
    static func groupDifference(_ request: FindWire.Request) -> String? {
        var list = [gid_t](repeating: 0, count: 1024)
        let n = getgroups(Int32(list.count), &list)
        let mine = Set([getgid(), getegid()] + (n > 0 ? Array(list[..<Int(n)]) : []))
        return Set(request.groups) == mine ? nil : "other groups than fsindexd's"
    }
}
