import CSysShims
#if canImport(QueryWire)
import QueryWire
#endif
// Embedded Swift (build-fsfind) has no Glibc module: CSysShims declares what it needs there.
#if canImport(Glibc)
import Glibc
#endif

// `fsfind`: a small front door. It hands its command line, its working folder and its standard
// output and error to the warm fsindexd of the index over the query socket (`FindWire`), which
// answers exactly as `fsfind-direct` would, straight into the same terminal or pipe. When no
// daemon runs for that index, or it declines (another index, a different time zone or config,
// `--live`, `--help`, a bad option), this program becomes `fsfind-direct` (exec, same
// arguments), which reads the index itself.
//
// Why: a query's time was mostly the start of a 98 MB static binary with Foundation (10 of
// 13 ms for a name). This one links no Foundation, so it starts in about a millisecond, and the
// daemon's index is already open and warm.
//
// The package's fsfind is this file and FindWire.swift compiled with Embedded Swift
// (Config/packaging/build-fsfind): no Swift runtime at all, 0.13 MB. So it reads errno and
// main()'s arguments through CSysShims, and uses nothing Embedded Swift lacks (Foundation,
// existentials, reflection).
//
// `FSFIND_TRACE=1` prints on stderr which way the query went (for tests and benchmarks).

func variable(_ name: String) -> [UInt8]? {
    guard let p = getenv(name) else { return nil }
    return bytes(p)
}

let trace = variable("FSFIND_TRACE") == [UInt8(ascii: "1")]

func note(_ text: String) {
    guard trace else { return }
    let line = Array("fsfind: \(text)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func bytes(_ p: UnsafePointer<CChar>) -> [UInt8] {
    Array(UnsafeBufferPointer(start: p, count: strlen(p))).map { UInt8(bitPattern: $0) }
}

/// Replaces this process with `fsfind-direct` beside it; returns only if that fails.
func runDirect() -> Never {
    var link = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &link, link.count - 1)
    var program: [UInt8] = n > 0 ? link[..<n].map { UInt8(bitPattern: $0) } : []
    if let slash = program.lastIndex(of: UInt8(ascii: "/")) { program.removeSubrange((slash + 1)...) } else { program = [] }
    program += Array("fsfind-direct".utf8)
    let path = program.map { CChar(bitPattern: $0) } + [0]
    _ = execv(path, shim_argv())
    let reason = String(cString: strerror(shim_errno()))
    let message = Array("fsfind: cannot run \(String(decoding: program, as: UTF8.self)): \(reason) (it is installed beside fsfind)\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func environmentEntries() -> [[UInt8]] {
    FindWire.environmentKeys.compactMap { key in variable(key).map { Array(key.utf8) + [UInt8(ascii: "=")] + $0 } }
}

func groups() -> [UInt32] {
    var list = [gid_t](repeating: 0, count: 1024)
    let n = getgroups(Int32(list.count), &list)
    return [getgid(), getegid()] + (n > 0 ? Array(list[..<Int(n)]) : [])
}

/// Reads one reply line; nil when the connection ends first.
func readReply(_ fd: Int32, _ pending: inout [UInt8]) -> FindWire.Reply? {
    var chunk = [UInt8](repeating: 0, count: 256)
    while true {
        if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(pending[..<nl])
            pending.removeSubrange(...nl)
            return FindWire.Reply(line: line)
        }
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && shim_errno() == EINTR { continue }
        if n <= 0 { return nil }
        pending += chunk[..<n]
    }
}

let arguments = (1..<Int(shim_argc())).map { bytes(shim_argv()[$0]!) }
var cwdBuffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
guard getcwd(&cwdBuffer, cwdBuffer.count) != nil else {
    note("no working folder: reading the index directly")
    runDirect()
}
let cwd = bytes(cwdBuffer)
let environment = environmentEntries()
let request = FindWire.Request(arguments: arguments, workingDirectory: cwd, environment: environment, groups: groups())
let index = FindWire.indexDirectory(arguments: arguments, variable: { request.variable(String(decoding: $0, as: UTF8.self)) }, cwd: cwd)
let socketFolder = FindWire.runtimeDirectory(runtime: variable("XDG_RUNTIME_DIR"), owner: geteuid())
let socketPath = socketFolder + [UInt8(ascii: "/")] + Array(FindWire.socketFileName(forIndexDirectory: index).utf8)

/// Says on stderr, always (not only with FSFIND_TRACE), why the daemon is not asked: a folder or a
/// socket of someone else's is an attack or a mistake the user must hear of.
func warn(_ text: String) {
    let line = Array("fsfind: warning: \(text); reading the index directly\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

// Nothing is sent before both checks: the folder must be ours alone (another user can create
// /tmp/fsindex-<uid> first), and the process listening must run as us.
if let reason = FindWire.unsafeFolderReason(socketFolder, owner: geteuid()) {
    warn("not asking fsindexd through \(String(decoding: socketFolder, as: UTF8.self)): \(reason)")
    runDirect()
}

var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
let capacity = MemoryLayout.size(ofValue: address.sun_path)
guard socketPath.count < capacity else { note("socket path too long"); runDirect() }
withUnsafeMutableBytes(of: &address.sun_path) { raw in
    for (i, b) in socketPath.enumerated() { raw[i] = b }
    raw[socketPath.count] = 0
}
let sock = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
guard sock >= 0 else { note("no socket"); runDirect() }
let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
}
guard connected == 0 else {
    note("no fsindexd for \(String(decoding: index, as: UTF8.self)): reading the index directly")
    close(sock)
    runDirect()
}

var peerPID: Int32 = 0, peerUID: UInt32 = 0, peerGID: UInt32 = 0
guard shim_peer_credentials(sock, &peerPID, &peerUID, &peerGID) == 0 else {
    warn("cannot tell who serves \(String(decoding: socketPath, as: UTF8.self)) (SO_PEERCRED: \(String(cString: strerror(shim_errno()))))")
    close(sock)
    runDirect()
}
guard peerUID == geteuid() else {
    warn("\(String(decoding: socketPath, as: UTF8.self)) is served by uid \(peerUID), not by you (uid \(geteuid()))")
    close(sock)
    runDirect()
}

let frame = request.encoded()
var descriptors: [Int32] = [1, 2]
var sent = frame.withUnsafeBytes { shim_send_with_fds(sock, $0.baseAddress, UInt($0.count), &descriptors, 2) }
while sent >= 0 && sent < frame.count {
    let more = frame[sent...].withUnsafeBytes { send(sock, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    if more < 0 { if shim_errno() == EINTR { continue }; sent = -1; break }
    sent += more
}
guard sent == frame.count else { note("fsindexd did not take the query"); close(sock); runDirect() }

var pending: [UInt8] = []
switch readReply(sock, &pending) {
case .fallback(let reason)?:
    note("fsindexd declined (\(reason)): reading the index directly")
    close(sock)
    runDirect()
case .exit(let code)?:
    note("answered by fsindexd")
    exit(code)
case .serving?:
    note("answered by fsindexd")
    if case .exit(let code)? = readReply(sock, &pending) { exit(code) }
    let message = Array("fsfind: fsindexd stopped before the answer was complete; run the query again\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
case nil:
    note("fsindexd closed the connection: reading the index directly")
    close(sock)
    runDirect()
}
