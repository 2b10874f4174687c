// `fsindex-test-worker`: the extraction worker with deliberate faults, for the isolation tests
// only. It is `fsindex-worker` plus `WorkerTestHooks`; the shipped worker has no fault code.
// Files that start with `FSINDEX-TEST-FAULT:<kind>` make it misbehave as if the parser of the
// file's type had that bug; every other file is extracted as usual. Probes (`Probes`) play an
// exploited parser inside the sandbox.
import Crawling
import WorkerRuntime
import Glibc

let hooks = WorkerTestHooks(
    beforeExtracting: { facts, descriptor in
        if let descriptor, let kind = Faults.kind(of: descriptor) {
            WorkerMain.send(.stage, Array("plain-text".utf8))   // fault files are text
            Faults.misbehave(kind)
        }
    },
    probe: Probes.answer)
exit(WorkerMain.run(arguments: CommandLine.arguments, testHooks: hooks))
