// One sandboxed extraction process. `fsindex` and `fsindexd` start these (see
// `Isolation.ExtractionWorker`) so that no parser ever runs in the indexer or the watcher.
import WorkerRuntime
#if canImport(Glibc)
import Glibc
#endif

exit(WorkerMain.run(arguments: CommandLine.arguments))
