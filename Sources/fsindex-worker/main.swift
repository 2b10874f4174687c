// One sandboxed extraction process. `fsindex` and `fsindexd` start these (see
// `Isolation.ExtractionWorker`) so that no parser ever runs in the indexer or the watcher.
import WorkerRuntime
import Glibc

exit(WorkerMain.run(arguments: CommandLine.arguments))
