import Controlling
import QueryWire
import SystemPackage
import Testing

@Suite("FindWire: the query socket's frames")
struct FindWireTests {
    @Test("a request makes the round trip byte for byte, names that are not UTF-8 included")
    func roundTrip() throws {
        let request = FindWire.Request(arguments: [Array("caf".utf8) + [0xE9], [], Array("--json".utf8)],
                                       workingDirectory: [0x2F, 0xFF, 0x00, 0x41],
                                       environment: [Array("NO_COLOR=1".utf8), Array("HOME=/home/ada".utf8)],
                                       groups: [0, 27, 4_000_000_000])
        let frame = request.encoded()
        let length = try #require(FindWire.Request.payloadLength(header: Array(frame[..<8])))
        #expect(length == frame.count - 8)
        #expect(FindWire.Request(payload: Array(frame[8...])) == request)
        #expect(request.variable("HOME") == Array("/home/ada".utf8))
        #expect(request.variable("HOM") == nil)
        #expect(request.variable("TZ") == nil)
    }

    @Test("every cut of a frame is refused, never misread")
    func truncated() {
        let frame = FindWire.Request(arguments: [Array("a b".utf8)], workingDirectory: Array("/".utf8),
                                     environment: [Array("TZ=UTC".utf8)], groups: [1]).encoded()
        let payload = Array(frame[8...])
        for cut in 0..<payload.count {
            #expect(FindWire.Request(payload: Array(payload[..<cut])) == nil, "cut at \(cut)")
        }
        // A count far beyond what the bytes can hold.
        #expect(FindWire.Request(payload: [0xff, 0xff, 0xff, 0xff]) == nil)
        #expect(FindWire.Request.payloadLength(header: Array("FSQ2".utf8) + [0, 0, 0, 0]) == nil)
    }

    @Test("reply lines parse back")
    func replies() {
        for reply in [FindWire.Reply.serving, .exit(0), .exit(2), .fallback("TZ differs from fsindexd's")] {
            var line = reply.line
            #expect(line.removeLast() == UInt8(ascii: "\n"))
            #expect(FindWire.Reply(line: line) == reply)
        }
        #expect(FindWire.Reply(line: Array("exit x".utf8)) == nil)
        #expect(FindWire.Reply.fallback("a\nb").line == Array("fallback ab\n".utf8))
    }

    @Test("the index folder is found as IndexLocation finds it, and normalized as FilePath does")
    func indexDirectory() {
        func guess(_ args: [String], _ env: [String: String], cwd: String = "/work") -> String {
            String(decoding: FindWire.indexDirectory(arguments: args.map { Array($0.utf8) },
                                                     variable: { env[String(decoding: $0, as: UTF8.self)].map { Array($0.utf8) } },
                                                     cwd: Array(cwd.utf8)), as: UTF8.self)
        }
        #expect(guess(["--index-dir", "idx", "x"], [:]) == "/work/idx")
        #expect(guess(["--index-dir=/a/./b/../c/", "x"], [:]) == "/a/c")
        #expect(guess(["--index-dir", "/a", "--index-dir", "/b"], [:]) == "/b")
        #expect(guess(["--", "--index-dir", "/a"], ["FSINDEX_INDEX_DIR": "/e"]) == "/e")
        #expect(guess(["x"], ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/fsindex/default")
        #expect(guess(["x"], ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/fsindex/default")
        for path in ["/", "/a/b", "/a//b/", "/a/./b", "/a/../../b", "/../x", "/a/b/..", "/a/.../b"] {
            #expect(String(decoding: FindWire.normalized(Array(path.utf8)), as: UTF8.self) == FilePath(path).lexicallyNormalized().string, "\(path)")
        }
        #expect(FindWire.socketName(forIndexDirectory: Array("/home/ada/.local/share/fsindex/default".utf8))
                == ControlLocation.socketName(forIndexDirectory: FilePath("/home/ada/.local/share/fsindex/default")))
    }
}
