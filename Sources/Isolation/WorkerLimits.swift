import CSysShims

/// The limits every extraction worker runs under. A file that makes a parser loop, allocate
/// without bound or write a flood of output hits one of these, and only its worker dies.
///
/// A key design decision: the worker applies the rlimits to itself, first thing, because no
/// spawn API sets them on a child before `exec`; and the CPU limit is re-armed before every file
/// (soft limit = CPU used so far + `cpuSecondsPerFile`), so it bounds one file. The hard limit is
/// finite too, `cpuSecondsPerWorker`, and fixed for the worker's life (without capabilities it
/// cannot be raised again): a worker whose budget cannot cover one more file says so
/// (`FrameKind.retiring`) and is replaced. The wall-clock timeout is the parent's: it catches a
/// worker blocked in a read.
package struct WorkerLimits: Sendable, Hashable, Codable {
    /// Address space (RLIMIT_AS). A Swift process maps about 130 MiB before it does anything,
    /// so this is the parser's budget plus that.
    package var addressSpaceBytes: UInt64 = 1 << 30
    /// CPU seconds one file may take (RLIMIT_CPU, re-armed per file; SIGXCPU when exceeded).
    package var cpuSecondsPerFile: UInt64 = 20
    /// CPU seconds one worker may use in its whole life (the hard RLIMIT_CPU, SIGKILL when
    /// reached); it is retired before a file could reach it.
    package var cpuSecondsPerWorker: UInt64 = 600
    /// The user a worker started by root becomes (its groups too), so that an exploited parser
    /// holds no privilege at all; ignored when the parent is not root.
    package var user: String = "nobody"
    /// Wall-clock seconds one file may take before the parent kills the worker.
    package var wallSecondsPerFile: Double = 30
    /// Open descriptors (RLIMIT_NOFILE).
    package var openFiles: UInt64 = 64
    /// Bytes of one result on the pipe; a worker that sends more is killed.
    package var outputBytes: Int = 16 << 20
    /// Files a worker extracts before it is replaced, so a slow leak in a C library cannot grow.
    package var filesPerWorker: Int = 5_000
    /// Whether the worker puts itself at the lowest priority before it reads anything: nice 19,
    /// SCHED_IDLE (it runs only when a core has nothing else to do) and the idle I/O class. The
    /// OCR workers do (issue 28: OCR runs after all other extraction, at the lowest priority).
    package var lowestPriority = false

    package init() {}
}
