import CFuzzDriver
import Glibc

/// `fsindex-fuzz TARGET [libFuzzer options] [CORPUS_DIR | FILE]...`: one executable for every
/// fuzz target, so that the sanitized build links once.
///
/// Built by `Tests/Harnesses/fuzz.sh` with `-sanitize=fuzzer,address`, it fuzzes; built by a
/// plain `swift build` it links `CFuzzDriver`'s weak fallback and only replays the files it is
/// given (the seed corpus, past crashes). A key design decision: the target name is taken off
/// the command line before libFuzzer sees it, and kept in `FSINDEX_FUZZ_TARGET`, because libFuzzer
/// re-runs its own command line (`-fork`, `-minimize_crash`) without knowing about it.
///
/// For example:
/// ```sh
/// mkdir -p /tmp/rtf-corpus
/// SWIFT_BACKTRACE=enable=no .build/fuzz/debug/fsindex-fuzz rtf -max_total_time=60 /tmp/rtf-corpus Tests/Fuzz/corpus/rtf
/// ```
/// libFuzzer writes every new input into the first folder it is given: name a scratch folder
/// first, never `Tests/Fuzz/corpus`, whose seeds are written by `make-corpus.py` and whose
/// `crash-*` inputs are added by hand with their fix.
/// Run it with `SWIFT_BACKTRACE=enable=no`: the Swift runtime's crash handler otherwise catches
/// the trap first and trips AddressSanitizer with a report of its own.
@main
enum FuzzMain {
    /// The target every input goes to; set once, before libFuzzer starts.
    nonisolated(unsafe) static var target: FuzzTarget = .query

    static func main() {
        let arguments = CommandLine.arguments
        var skip = 0
        if arguments.count >= 2, let named = FuzzTarget(rawValue: arguments[1]) {
            target = named
            skip = 1
            setenv("FSINDEX_FUZZ_TARGET", named.rawValue, 1)
        } else if let name = getenv("FSINDEX_FUZZ_TARGET").map({ String(cString: $0) }), let named = FuzzTarget(rawValue: name) {
            target = named
        } else {
            let given = arguments.count >= 2 ? "unknown target \"\(arguments[1])\"" : "no target given"
            var usage = "fsindex-fuzz: \(given)\nusage: fsindex-fuzz TARGET [libFuzzer options] [CORPUS_DIR | FILE]...\ntargets:\n"
            for t in FuzzTarget.allCases { usage += "  \(t.rawValue)\(String(repeating: " ", count: max(1, 16 - t.rawValue.count)))\(t.summary)\n" }
            _ = usage.withCString { write(2, $0, strlen($0)) }
            exit(64)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
        for i in (1 + skip)..<Int(CommandLine.argc) { argv.append(CommandLine.unsafeArgv[i]) }
        argv.append(nil)
        var argc = Int32(argv.count - 1)
        let status = argv.withUnsafeMutableBufferPointer { buffer in
            var base = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &base) { data, size in fuzzOneInput(data, size) }
        }
        exit(status)
    }
}

/// libFuzzer's entry point: one input for the chosen target. It is also what the fuzzer
/// runtime's own `main` (linked in, though ours runs) refers to, so it must exist by this name.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzMain.target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
