import Configuration
import TestSupport
import Testing
import Updating

/// The settings' `[extraction]` section as Updating hands it to the workers
/// (`Settings.workerLimits`, in Updating's SettingsAdapters.swift): the reading and range checks
/// are Configuration's, the limits Updating's.
@Suite("Settings: the workers' limits")
struct SettingsAdapterTests {
    @Test("the extraction workers' limits come from [extraction], with their ranges checked")
    func extractionLimits() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.create("c.toml", contents: "[extraction]\nmemory_limit = 512\ncpu_limit = 5\ntimeout = 2.5\n")
        let s = try Settings.load(explicit: file.string)
        #expect(s.workerLimits.addressSpaceBytes == 512 << 20)
        #expect(s.workerLimits.cpuSecondsPerFile == 5)
        #expect(s.workerLimits.wallSecondsPerFile == 2.5)
        let bad = try tree.create("bad.toml", contents: "[extraction]\nmemory_limit = 10\n")
        do { _ = try Settings.load(explicit: bad.string); Issue.record("should fail") } catch {
            #expect(error.description == "\(bad.string):2: extraction.memory_limit: expected a number of MiB from 256 to 65536")
        }
    }

    @Test("OCR workers run at the lowest priority with throttle = low (the default), as started with throttle = normal")
    func recognitionPriority() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let low = try Settings.load(explicit: tree.create("low.toml", contents: "").string)
        let normal = try Settings.load(explicit: tree.create("normal.toml", contents: "[daemon]\nthrottle = \"normal\"\n").string)
        #expect(RecognitionPass.workerLimits(low).lowestPriority)
        #expect(!RecognitionPass.workerLimits(normal).lowestPriority)
        #expect(RecognitionPass.workerLimits(normal).cpuSecondsPerFile >= 180 && !low.workerLimits.lowestPriority)
    }

    @Test("issue 11: worker_user names the user a root-started worker becomes; a missing or root user is refused with its line")
    func workerUser() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        #expect(try Settings.load(explicit: tree.create("d.toml", contents: "").string).workerLimits.user == "nobody")
        let file = try tree.create("c.toml", contents: "[extraction]\nworker_user = \"daemon\"\n")
        #expect(try Settings.load(explicit: file.string).workerLimits.user == "daemon")
        for (i, (value, expected)) in [("\"no-such-user-fsindex\"", "the name of an existing unprivileged user (such as \"nobody\")"),
                                  ("\"root\"", "an unprivileged user, not one with uid 0"),
                                  ("42", "the name of an existing unprivileged user (such as \"nobody\")")].enumerated() {
            let bad = try tree.create("bad\(i).toml", contents: "[extraction]\ntimeout = 5\nworker_user = \(value)\n")
            do { _ = try Settings.load(explicit: bad.string); Issue.record("\(value) should fail") } catch {
                #expect(error.description == "\(bad.string):3: extraction.worker_user: expected \(expected)")
            }
        }
    }
}
