import Foundation
import SystemPackage
import TestSupport
import Testing

/// Runs a built tool with arguments given as raw bytes. `Process` takes only `String`s (it would
/// turn a Latin-1 byte into U+FFFD before the tool ever saw it), so the arguments go through
/// `sh`, each rebuilt by `printf` from octal escapes of its bytes.
@discardableResult
func run(_ tool: String, byteArguments args: [[UInt8]], env: [String: String] = [:]) throws -> CommandResult {
    func octal(_ bytes: [UInt8]) -> String {
        bytes.map { "\\" + String($0, radix: 8).leftPadded(to: 3) }.joined()
    }
    let executable = Binaries.directory.appendingPathComponent(tool).path
    let script = "exec \"$0\"" + args.map { " \"$(printf '\(octal($0))')\"" }.joined()
    return try run(executable: "/bin/sh", ["-c", script, executable], env: env, timeout: 120)
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// Finding 5 of issue 11: a path argument that is not UTF-8 was decoded to U+FFFD by Swift's
/// `CommandLine.arguments`, so `show`, `extract`, `reindex`, an `index` root, `--onlyin`,
/// `--index-dir` and `--config` named a file that does not exist. Each is given raw bytes here.
@Suite("Path arguments are bytes", .blocking)
struct PathArgumentBytesTests {
    /// `<tmp>/root/caf\xE9/` (a Latin-1 folder name) with `notes\xFF.txt` inside.
    struct Fixture {
        let f: CLIFixture
        let folder: [UInt8]
        let file: [UInt8]
        let index: [UInt8]
        init() throws {
            f = try CLIFixture()
            let name: [UInt8] = Array("caf".utf8) + [0xE9]
            folder = Array(f.root.utf8) + [UInt8(ascii: "/")] + name
            let fileName: [UInt8] = Array("notes".utf8) + [0xFF] + Array(".txt".utf8)
            #expect(FilePath(bytes: folder).withPlatformString { mkdir($0, 0o755) } == 0)
            file = folder + [UInt8(ascii: "/")] + fileName
            let fd = FilePath(bytes: file).withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
            let text = Array("the zebrafinch sings at dawn\n".utf8)
            _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            index = Array(f.tree.root.string.utf8) + Array("/index-".utf8) + [0xFE]
        }
    }

    @Test("index ROOT, show, extract, reindex, fsfind --onlyin and --index-dir keep the bytes")
    func everyPathArgument() throws {
        let x = try Fixture()
        let indexed = try run("fsindex", byteArguments: [Array("index".utf8), Array("--index-dir".utf8), x.index, x.folder])
        #expect(indexed.status == 0, "\(indexed.stderr)")
        // The index went into the folder named by those bytes, not into a U+FFFD look-alike.
        #expect(FilePath(bytes: x.index + Array("/index.sqlite".utf8)).withPlatformString { access($0, F_OK) } == 0)

        let show = try run("fsindex", byteArguments: [Array("show".utf8), Array("--index-dir".utf8), x.index, Array("--json".utf8), x.file])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.out.contains("zebrafinch"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(show.lines.first?.utf8 ?? "".utf8)) as? [String: Any])
        #expect((json["pathBase64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) == x.file)

        let extract = try run("fsindex", byteArguments: [Array("extract".utf8), Array("--json".utf8), x.file])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(extract.out.contains("zebrafinch"))

        let reindex = try run("fsindex", byteArguments: [Array("reindex".utf8), Array("--index-dir".utf8), x.index, x.file])
        #expect(reindex.status == 0, "\(reindex.stderr)")
        #expect(!reindex.stderr.contains("not inside an indexed root"))

        let found = try run("fsfind", byteArguments: [Array("--index-dir".utf8), x.index, Array("-0".utf8),
                                                      Array("--onlyin".utf8), x.folder, Array("zebrafinch".utf8)])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.split(separator: 0).map(Array.init) == [x.file])
    }

    @Test("--config names a settings file by its bytes; a missing one is shown escaped")
    func configBytes() throws {
        let x = try Fixture()
        let config = Array(x.f.tree.root.string.utf8) + Array("/conf".utf8) + [0xE9] + Array(".toml".utf8)
        let fd = FilePath(bytes: config).withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        let text = Array("[query]\nrecency_weight = 0.25\n".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        try run("fsindex", byteArguments: [Array("index".utf8), Array("--index-dir".utf8), x.index, x.folder])
        let ok = try run("fsfind", byteArguments: [Array("--index-dir".utf8), x.index, Array("--config".utf8), config, Array("zebrafinch".utf8)])
        #expect(ok.status == 0, "\(ok.stderr)")
        let missing = try run("fsfind", byteArguments: [Array("--index-dir".utf8), x.index, Array("--config".utf8),
                                                        config + Array(".gone".utf8), Array("zebrafinch".utf8)])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("conf\\xE9.toml.gone"), "\(missing.stderr)")
    }

    @Test("a root that does not exist is named with its bytes escaped")
    func missingRootMessage() throws {
        let x = try Fixture()
        let r = try run("fsindex", byteArguments: [Array("index".utf8), Array("--index-dir".utf8), x.index, x.folder + [0xFD]])
        #expect(r.status == 2)
        #expect(r.stderr.contains("caf\\xE9\\xFD"), "\(r.stderr)")
    }
}
