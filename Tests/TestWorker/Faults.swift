import Crawling
import SystemPackage
import WorkerRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Deliberate misbehaviour for the isolation tests, for files that start with
/// `FSINDEX-TEST-FAULT:<kind>` (crash, loop, alloc, hang, mute, flood, exec).
enum Faults {
    static let marker = Array("FSINDEX-TEST-FAULT:".utf8)

    static func kind(of facts: FileFacts) -> String? {
        guard facts.type == .regular else { return nil }
        let fd = facts.path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 64) }
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

    /// The sandbox self-test: tries one forbidden thing and says how it was refused. The calls
    /// that kill never return, so the parent sees the worker die instead.
    static func probe(_ what: String) -> String {
        func outcome(_ rc: Int32) -> String { rc >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))" }
        switch what {
        case "write-file":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) })
        case "read-file":
            return outcome("/etc/hostname".withCString { open($0, O_RDONLY | O_CLOEXEC) })
        case "mkdir":
            return outcome("/tmp/fsindex-sandbox-probe-dir".withCString { mkdir($0, 0o700) })
        case "unlink":
            return outcome("/tmp/fsindex-sandbox-probe".withCString { unlink($0) })
        case "socket":
            return outcome(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        case "exec":
            return outcome(exec())
        case "fork":
            return outcome(fork())
        case "thread":
            var t = pthread_t()
            let rc = pthread_create(&t, nil, { _ in nil }, nil)
            if rc == 0 { pthread_join(t, nil); return "allowed" }
            return "refused: \(String(cString: strerror(rc)))"
        default:
            return "unknown probe"
        }
    }
}
