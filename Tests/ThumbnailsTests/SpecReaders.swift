import Foundation
import SystemPackage

/// Readers of the thumbnail spec that are not ours, to check that what FSIndex writes is what
/// others accept: a short Python reader of PNG chunks (struct and zlib, CRCs checked), and
/// GLib's own `thumbnail::` attributes through `gio info`.
enum SpecReaders {
    static let python = "/usr/bin/python3"
    static let gio = "/usr/bin/gio"

    /// The PNG's size and text chunks as Python reads them, or nil when it refuses the file.
    static let reader = #"""
    import json, struct, sys, zlib
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, texts, size = 8, {}, None
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4]); kind = data[i + 4:i + 8]; body = data[i + 8:i + 8 + n]
        (crc,) = struct.unpack(">I", data[i + 8 + n:i + 12 + n])
        assert zlib.crc32(kind + body) & 0xffffffff == crc, "bad CRC in " + kind.decode()
        if kind == b"IHDR": size = struct.unpack(">II", body[:8])
        if kind == b"tEXt":
            k, v = body.split(b"\0", 1); texts[k.decode("latin-1")] = v.decode("latin-1")
        i += 12 + n
        if kind == b"IEND": break
    print(json.dumps({"width": size[0], "height": size[1], "text": texts}))
    """#

    struct PNGInfo: Decodable {
        var width: Int
        var height: Int
        var text: [String: String]
    }

    static func readPNG(_ path: FilePath) throws -> PNGInfo {
        let (status, out, err) = try runTool(python, ["-c", reader, path.string])
        guard status == 0 else { throw ReaderRefused(message: "python3 refused \(path): \(err)") }
        return try JSONDecoder().decode(PNGInfo.self, from: Data(out.utf8))
    }

    /// `gio info -a ATTRIBUTES FILE` with the cache at `cacheHome`: its attribute lines.
    static func gioInfo(_ file: [UInt8], attributes: String, cacheHome: String) throws -> String {
        let (status, out, err) = try runTool(gio, ["info", "-a", attributes, String(decoding: file, as: UTF8.self)],
                                             env: ["XDG_CACHE_HOME": cacheHome], rawLast: file)
        guard status == 0 else { throw ReaderRefused(message: "gio info failed: \(err)") }
        return out
    }

    struct ReaderRefused: Error, CustomStringConvertible { var message: String; var description: String { message } }

    /// Runs a tool and waits; `rawLast` replaces the last argument by these exact bytes (a
    /// name that is not UTF-8 must reach the tool unchanged).
    static func runTool(_ tool: String, _ args: [String], env: [String: String] = [:], rawLast: [UInt8]? = nil) throws -> (Int32, String, String) {
        var argv: [UnsafeMutablePointer<CChar>?] = ([tool] + args).map { strdup($0) }
        if let rawLast {
            free(argv[argv.count - 1])
            argv[argv.count - 1] = rawLast.withUnsafeBufferPointer { b in
                let p = UnsafeMutablePointer<CChar>.allocate(capacity: b.count + 1)
                for (i, byte) in b.enumerated() { p[i] = CChar(bitPattern: byte) }
                p[b.count] = 0
                return p
            }
        }
        argv.append(nil)
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        let dir = NSTemporaryDirectory() + "/thumbs-tool-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, dir + "/out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, dir + "/err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, tool, &actions, nil, argv, envp)
        guard rc == 0 else { throw ReaderRefused(message: "cannot run \(tool): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Lossy: gio prints a name that is not UTF-8 as it is.
        let out = FileManager.default.contents(atPath: dir + "/out").map { String(decoding: $0, as: UTF8.self) } ?? ""
        let err = FileManager.default.contents(atPath: dir + "/err").map { String(decoding: $0, as: UTF8.self) } ?? ""
        return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), out, err)
    }
}
