import Glibc

/// Why a worker did not return a result for a file. The file keeps its file-system attributes
/// and gets this, with the extractor that was running, as its `extractionError`; it is not
/// tried again until the file or that extractor's version changes.
package enum WorkerFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parent's wall-clock limit for one file ran out; the worker was killed.
    case timedOut(seconds: Double)
    /// The per-file CPU limit (RLIMIT_CPU) ran out: the kernel sent SIGXCPU.
    case cpuLimit(seconds: UInt64)
    /// The address-space limit (RLIMIT_AS) made an allocation fail and the worker died of it.
    case memoryLimit(bytes: UInt64, detail: String)
    /// The worker sent more than the output limit.
    case outputLimit(bytes: Int)
    /// The seccomp filter stopped a forbidden system call (SIGSYS).
    case forbiddenCall
    /// Any other signal (SIGSEGV, SIGBUS, SIGABRT, ...).
    case signal(Int32, detail: String)
    /// The worker exited on its own without a result.
    case exited(Int32, detail: String)
    /// The worker sent something that is not a frame of the protocol.
    case protocolError(String)
    /// The worker could not be started at all.
    case spawn(String)
    /// The indexer stopped while the worker read the file (`WorkerPool.stopAll`): nothing is
    /// wrong with the file, and the next start reads it again.
    case abandoned

    package var description: String {
        switch self {
        case let .timedOut(s): "took longer than \(Self.seconds(s)) s (the per-file time limit); the worker was stopped"
        case let .cpuLimit(s): "used more than \(s) s of CPU (the per-file CPU limit); the worker was stopped"
        case let .memoryLimit(b, d): "ran out of memory (the \(b >> 20) MiB limit per worker)" + (d.isEmpty ? "" : ": \(d)")
        case let .outputLimit(b): "produced more than \(b >> 20) MiB of output (the limit per file); the worker was stopped"
        case .forbiddenCall: "tried a system call the sandbox forbids (SIGSYS); the worker was stopped"
        case let .signal(s, d): "crashed (\(Self.signalName(s)))" + (d.isEmpty ? "" : ": \(d)")
        case let .exited(c, d): (c == 0 ? "the worker ended without an answer" : "the worker exited with status \(c)")
            + (d.isEmpty ? "" : ": \(d)")
        case let .protocolError(m): "the worker sent a malformed answer (\(m))"
        case let .spawn(m): "cannot start fsindex-worker: \(m)"
        case .abandoned: "not read: the indexer stopped while the worker read it (the next start reads it again)"
        }
    }

    /// What `fsindex failures` groups by.
    package var category: String {
        switch self {
        case .timedOut: "timeout"
        case .cpuLimit: "cpu-limit"
        case .memoryLimit: "memory-limit"
        case .outputLimit: "output-limit"
        case .forbiddenCall: "forbidden-call"
        case .signal: "crash"
        case .exited, .protocolError: "crash"
        case .spawn: "spawn"
        case .abandoned: "stopped"
        }
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(s)
    }

    static func signalName(_ s: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV, segmentation fault", SIGBUS: "SIGBUS, bus error", SIGABRT: "SIGABRT, aborted",
            SIGILL: "SIGILL, illegal instruction", SIGFPE: "SIGFPE, arithmetic error", SIGTRAP: "SIGTRAP, a runtime trap",
            SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGXFSZ: "SIGXFSZ, tried to write a file",
        ]
        return names[s] ?? "signal \(s)"
    }

    /// Classifies how a worker ended, from its wait status and the end of its standard error.
    static func classify(status: Int32, stderr: String, limits: WorkerLimits) -> WorkerFailure {
        let detail = stderr.split(separator: "\n").last.map { String($0.prefix(300)) } ?? ""
        let outOfMemory = ["failed to allocate", "Could not allocate memory", "Cannot allocate memory", "out of memory",
                           "bad_alloc", "Out of memory"]
            .contains { stderr.contains($0) }
        if status & 0x7F == 0 {   // exited
            let code = (status >> 8) & 0xFF
            return outOfMemory ? .memoryLimit(bytes: limits.addressSpaceBytes, detail: detail) : .exited(code, detail: detail)
        }
        let sig = status & 0x7F
        switch sig {
        case SIGXCPU: return .cpuLimit(seconds: limits.cpuSecondsPerFile)
        case SIGSYS: return .forbiddenCall
        default:
            // A C parser that gets NULL from malloc under RLIMIT_AS usually aborts or crashes.
            if outOfMemory { return .memoryLimit(bytes: limits.addressSpaceBytes, detail: detail) }
            return .signal(sig, detail: detail)
        }
    }
}
