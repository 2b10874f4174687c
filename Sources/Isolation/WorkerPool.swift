import FoundationEssentials
import Synchronization
import SystemCalls
import SystemPackage
import Glibc

/// Workers kept between batches, one per extraction thread at a time. A worker starts on its
/// first file and ends when the pool is released (its input closes) or after a failure.
package final class WorkerPool: @unchecked Sendable {
    package let executable: String
    package let limits: WorkerLimits
    package let environment: [String: String]
    /// Idle workers, the ones lent out (for `stopAll`), and whether the pool was stopped.
    private let state = Mutex<(free: [ExtractionWorker], lent: [ObjectIdentifier: ExtractionWorker], stopped: Bool)>(([], [:], false))

    package init(executable: String, limits: WorkerLimits = WorkerLimits(), environment: [String: String] = [:]) {
        self.executable = executable
        self.limits = limits
        self.environment = environment
    }

    /// A worker for one thread, until it is given back. After `stopAll()` it is an abandoned
    /// one, whose every file fails at once with `.abandoned`.
    package func take() -> ExtractionWorker {
        state.withLock { s in
            let worker = s.free.popLast() ?? ExtractionWorker(executable: executable, limits: limits, environment: environment)
            if s.stopped { worker.abandon() }
            s.lent[ObjectIdentifier(worker)] = worker
            return worker
        }
    }

    package func give(_ worker: ExtractionWorker) {
        let keep = state.withLock { s in
            s.lent[ObjectIdentifier(worker)] = nil
            if !s.stopped { s.free.append(worker) }
            return !s.stopped
        }
        if !keep { worker.stop() }
    }

    /// How many idle workers have a process running.
    package var runningIdleWorkers: Int {
        state.withLock { $0.free.count { $0.pid != nil } }
    }

    /// Stops every idle worker (the daemon calls this when it goes idle, so that no parser
    /// process lingers while nothing changes).
    package func stopIdle() {
        let idle = state.withLock { s -> [ExtractionWorker] in defer { s.free.removeAll() }; return s.free }
        idle.forEach { $0.stop() }
    }

    /// For an indexer that stops (fsindexd's SIGTERM): the workers lent out are killed, so the
    /// files they read fail at once (`.abandoned`) instead of holding the exit for up to their
    /// time limit; idle workers end; and no worker starts again from this pool.
    package func stopAll() {
        let lent = state.withLock { s -> [ExtractionWorker] in
            s.stopped = true
            return Array(s.lent.values)
        }
        lent.forEach { $0.abandon() }
        stopIdle()
    }
}

/// Where `fsindex-worker` is: `$FSINDEX_WORKER` if set, else beside the running executable
/// (`/proc/self/exe`), which is where SwiftPM builds it, else in `../libexec/fsindex/` from it,
/// which is where the package installs it (`/usr/bin/fsindex`, `/usr/libexec/fsindex/`): it
/// is no command of its own, so it stays out of PATH.
package enum WorkerExecutable {
    package static func locate() throws(WorkerFailure) -> String {
        if let p = getenv("FSINDEX_WORKER").map({ String(cString: $0) }), !p.isEmpty {
            guard SystemCall.isExecutable(p) else { throw .spawn("FSINDEX_WORKER=\(p) is not an executable file") }
            return p
        }
        let exe: String
        switch SystemCall.readLink(at: AT_FDCWD, "/proc/self/exe") {
        case .success(let target) where !target.isEmpty: exe = String(decoding: target, as: UTF8.self)
        case .success: throw .spawn("cannot read /proc/self/exe: it is empty")
        case .failure(let e): throw .spawn("cannot read /proc/self/exe: \(String(cString: strerror(e.rawValue)))")
        }
        let dir = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let beside = dir + "/fsindex-worker"
        let installed = dir + "/../libexec/fsindex/fsindex-worker"
        for candidate in [beside, installed] where SystemCall.isExecutable(candidate) {
            return candidate
        }
        throw .spawn("\(beside) is missing, and so is \(installed); install fsindex-worker there or set FSINDEX_WORKER to its path")
    }
}
