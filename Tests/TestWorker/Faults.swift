import Crawling
import SystemPackage
import WorkerRuntime
import Glibc

/// Deliberate misbehaviour for the isolation tests, for files that start with
/// `FSINDEX-TEST-FAULT:<kind>` (crash, loop, alloc, hang, mute, flood, exec).
enum Faults {
    static let marker = Array("FSINDEX-TEST-FAULT:".utf8)

    /// The fault the file's first bytes ask for, read from the descriptor the parent passed
    /// (the sandboxed worker cannot open the file by name).
    static func kind(of descriptor: Int32) -> String? {
        var head = [UInt8](repeating: 0, count: 64)
        let n = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 64, 0) }
        guard n > marker.count, Array(head[0..<marker.count]) == marker else { return nil }
        return String(decoding: head[marker.count..<n].prefix { $0 != 0x0A && $0 != 0x20 }, as: UTF8.self)
    }

    static func misbehave(_ kind: String) {
        switch kind {
        case "crash":
            raise(SIGSEGV)
        case "loop":
            var x: UInt64 = 1
            while x != 0 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
        case "alloc":
            var hoard: [[UInt8]] = []
            while true { hoard.append([UInt8](repeating: UInt8(hoard.count & 0xFF), count: 16 << 20)) }
        case "hang":
            while true { sleep(1000) }
        case "mute":
            close(1)   // no answer ever comes, and the end of the output is not the end of the worker
            while true { sleep(1000) }
        case "flood":
            let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
            while true { WorkerMain.send(.text, chunk) }
        case "exec":
            _ = Faults.exec()
        default:
            break
        }
    }

    static func exec() -> Int32 {
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        var envp: [UnsafeMutablePointer<CChar>?] = [nil]
        return execve("/bin/true", &argv, &envp)
    }
}
