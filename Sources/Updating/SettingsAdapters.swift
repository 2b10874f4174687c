import Configuration
import Crawling
import Isolation

// The settings sections turned into the stages' own types.

extension Settings {
    /// `[crawl]` as the walker's options.
    package var walkOptions: WalkOptions {
        WalkOptions(exclusions: ExclusionRules(includeHidden: crawl.includeHidden, patterns: crawl.exclude, markerFile: crawl.markerFile),
                    oneFileSystem: crawl.oneFileSystem)
    }

    /// `[extraction]` as each worker's limits.
    package var workerLimits: WorkerLimits {
        var limits = WorkerLimits()
        limits.addressSpaceBytes = UInt64(extraction.memoryLimitMiB) << 20
        limits.cpuSecondsPerFile = UInt64(extraction.cpuSecondsPerFile)
        limits.wallSecondsPerFile = extraction.timeoutSeconds
        limits.user = extraction.workerUser
        return limits
    }
}
