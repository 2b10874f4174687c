import FoundationEssentials
import Synchronization
import SystemCalls
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Workers kept between batches, one per extraction thread at a time. A worker starts on its
/// first file and ends when the pool is released (its input closes) or after a failure.
package final class WorkerPool: @unchecked Sendable {
    package let executable: String
    package let limits: WorkerLimits
    package let environment: [String: String]
    private let free = Mutex<[ExtractionWorker]>([])

    package init(executable: String, limits: WorkerLimits = WorkerLimits(), environment: [String: String] = [:]) {
        self.executable = executable
        self.limits = limits
        self.environment = environment
    }

    package func take() -> ExtractionWorker {
        if let w = free.withLock({ $0.popLast() }) { return w }
        return ExtractionWorker(executable: executable, limits: limits, environment: environment)
    }

    package func give(_ worker: ExtractionWorker) {
        free.withLock { $0.append(worker) }
    }

    /// How many idle workers have a process running.
    package var runningIdleWorkers: Int {
        free.withLock { $0.count { $0.pid != nil } }
    }

    /// Stops every idle worker (the daemon calls this when it goes idle, so that no parser
    /// process lingers while nothing changes).
    package func stopIdle() {
        let idle = free.withLock { all -> [ExtractionWorker] in defer { all.removeAll() }; return all }
        idle.forEach { $0.stop() }
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
