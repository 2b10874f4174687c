import Configuration
import FoundationEssentials
import Indexing
import MemberwiseInit
import SystemCalls
import SystemPackage
import Glibc

/// Runs an app's reindex command (`[[provider]] reindex`), as Core Spotlight calls an app's
/// `CSIndexExtensionRequestHandler`: the identifiers on stdin, one per line (none: all), its
/// exit the acknowledgement. The command runs as the user, never through a shell, in a session
/// of its own (a time-out stops it and every process it started, see `ProcessTree`), with
/// `FSINDEX_INDEX_DIR` set to this index so that its `fsindex donate` comes back here. Of its
/// output only the last `outputTailBytes` are kept, for the message when it fails.
@MemberwiseInit
package struct ProviderRunner: Sendable {
    package let provider: Settings.Provider
    package let indexDirectory: FilePath

    /// The most of a command's output kept, for the message when it fails: its last lines.
    package static let outputTailBytes = 64 * 1024

    /// Runs the command to its end or its time limit; nil when it acknowledged (exit 0), else
    /// what went wrong, for `fsindex status`.
    ///
    /// Its stdout and stderr come through a pipe, of which only the last `outputTailBytes` are
    /// kept: a command that wrote 2 GB made `fsindex reindex --domain` peak at 3.9 GB and filled
    /// `/tmp` with 2 GB when its output went to a file read back whole (issue 22, F10). The
    /// identifiers go in through a small file (one per line; an identifier with a line break
    /// cannot be passed that way, and is left out: donations refuse them). At the time limit
    /// every process of the command's tree is stopped, also one that left its session
    /// (`ProcessTree`).
    package func run(ids: [String]?) -> String? {
        guard let program = Self.find(provider.reindex[0]) else {
            return "cannot run \(provider.reindex[0]): not found (on PATH)"
        }
        let dir = FileManager.default.temporaryDirectory.path + "/fsindex-provider-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if case .failure(let e) = SystemCall.mkdir(Array(dir.utf8), 0o700) {
            return "cannot make a temporary folder for \(provider.domain)'s command: \(String(cString: strerror(e.rawValue)))"
        }
        defer {
            _ = SystemCall.unlink(Array((dir + "/in").utf8)); _ = SystemCall.rmdir(Array(dir.utf8))
        }
        let input = (ids ?? []).filter { !$0.utf8.contains(0x0A) && !$0.utf8.contains(0x0D) }.map { $0 + "\n" }.joined()
        guard FileManager.default.createFile(atPath: dir + "/in", contents: Data(input.utf8)) else { return "cannot write the identifiers for \(provider.domain)'s command" }
        var environment = ProcessInfo.processInfo.environment
        environment["FSINDEX_INDEX_DIR"] = indexDirectory.string
        environment["FSINDEX_REINDEX_DOMAIN"] = provider.domain
        environment["FSINDEX_REINDEX_ALL"] = ids == nil ? "1" : "0"
        let readEnd: Int32, writeEnd: Int32
        switch SystemCall.pipe() {
        case .success(let pipe): (readEnd, writeEnd) = pipe
        case .failure(let e): return "cannot make a pipe for \(provider.domain)'s command: \(String(cString: strerror(e.rawValue)))"
        }
        defer { SystemCall.close(readEnd) }
        let spawn = Spawn(executable: program, arguments: provider.reindex, environment: environment,
                          actions: [.open(fd: 0, path: dir + "/in", flags: O_RDONLY, mode: 0),
                                    .dup(writeEnd, 1), .dup(writeEnd, 2)],
                          defaultSignals: [SIGPIPE], newSession: true)
        let started = spawn.run()
        SystemCall.close(writeEnd)
        let pid: pid_t
        switch started {
        case .success(let p): pid = p
        case .failure(let e): return "cannot run \(program): \(String(cString: strerror(e.rawValue)))"
        }
        SystemCall.setNonBlocking(readEnd, true)
        var tail = OutputTail(limit: Self.outputTailBytes)
        let deadline = Date().addingTimeInterval(provider.timeoutSeconds)
        var status: Int32 = 0
        var open = true
        waiting: while true {
            switch SystemCall.waitpid(pid, status: &status, options: WNOHANG) {
            case .success(pid): break waiting
            case .success: break
            case .failure(let e): return "lost \(program) (\(String(cString: strerror(e.rawValue))))"
            }
            if Date() >= deadline {
                ProcessTree.kill(leader: pid)
                _ = SystemCall.waitpid(pid, status: &status)
                return "\(provider.reindex.joined(separator: " ")) took longer than its time limit of \(Int(provider.timeoutSeconds)) s and was stopped"
            }
            if open {
                if case .success(let revents) = SystemCall.poll(readEnd, events: Int16(POLLIN), timeout: 20), revents != 0 {
                    open = tail.read(readEnd)
                }
            } else {
                // Its output closed: nothing more to read, so wait for its end (or the deadline).
                _ = SystemCall.awaitExit(pid, milliseconds: Int32(clamping: Int(max(1, deadline.timeIntervalSinceNow * 1000))))
            }
        }
        // What is in the pipe now; a child it left behind may hold the pipe open, so no waiting
        // for its end.
        if open { _ = tail.read(readEnd) }
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        if exited && code == 0 { return nil }
        let last = tail.text.split(separator: "\n").suffix(2).joined(separator: " / ")
        let how = exited ? "exited with status \(code)" : "was killed by signal \(status & 0x7f)"
        return "\(provider.reindex.joined(separator: " ")) \(how)" + (last.isEmpty ? "" : ": \(last.prefix(300))")
    }

    /// A program named without a slash is looked for on PATH, as a shell would, without one.
    static func find(_ name: String) -> String? {
        if name.contains("/") { return SystemCall.isExecutable(name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = dir + "/" + name
            if SystemCall.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}

/// When the index asks apps for their items again, and what came of it: a domain lost in a
/// rebuild (a damaged database, a schema change) or never donated, `fsindex reindex --domain`,
/// and donated items that expired. Requests are kept in the index until acknowledged, so a
/// failure or a time-out is retried later (with backoff), also after a restart.
@MemberwiseInit
package struct ProviderRequests: Sendable {
    package let store: IndexStore
    package let providers: [Settings.Provider]
    package let indexDirectory: FilePath

    /// Asks for every provider domain the index has lost (or never had), and for expired items
    /// of provider domains. Returns the domains asked for.
    @discardableResult
    package func noteWhatIsMissing(now: Date = Date()) throws(IndexError) -> [String] {
        var asked: [String] = []
        for p in providers where try !store.hasDonations(domain: p.domain) {
            try store.requestReindex(domain: p.domain, ids: nil, now: now)
            asked.append(p.domain)
        }
        for (domain, ids) in try store.expiredDonations(domains: providers.map(\.domain), now: now) {
            try store.requestReindex(domain: domain, ids: ids, now: now)
            asked.append(domain)
        }
        return asked
    }

    /// Runs the commands of every request that is due (blocking; a daemon runs this off its
    /// writer, since the commands donate through it). Returns each domain's outcome (nil: acknowledged).
    @discardableResult
    package func runDue(now: Date = Date(), log: (String) -> Void = { _ in }) throws(IndexError) -> [(domain: String, error: String?)] {
        var results: [(domain: String, error: String?)] = []
        for request in try store.providerRequests() where request.nextAttempt <= now {
            guard let provider = providers.first(where: { $0.domain == request.domain }) else { continue }
            log("asking \(provider.domain)'s provider for " + (request.ids.map { "\($0.count) items" } ?? "all its items"))
            let error = ProviderRunner(provider: provider, indexDirectory: indexDirectory).run(ids: request.ids)
            try store.finishProviderRequest(request, error: error)
            if let error { log("\(provider.domain)'s provider failed: \(error); it is asked again later") }
            results.append((request.domain, error))
        }
        return results
    }

    /// When the next failed request is due, if any.
    package func nextRetry() throws(IndexError) -> Date? {
        try store.providerRequests().filter { r in providers.contains { $0.domain == r.domain } }.map(\.nextAttempt).min()
    }
}
