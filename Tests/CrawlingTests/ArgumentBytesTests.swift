import Crawling
import SystemCalls
import SystemPackage
import Testing

@Suite("ArgumentBytes: command-line arguments keep every byte")
struct ArgumentBytesTests {
    @Test("the round trip is exact for invalid UTF-8, valid text and the escape range itself",
          arguments: [
              Array("plain/ascii.txt".utf8),
              Array("café/日本語".utf8),
              Array("caf".utf8) + [0xE9],                       // Latin-1
              [0xFF, 0xFE, 0x80, 0xC0, 0xAF],                    // bytes never valid
              [0xED, 0xA0, 0x80],                                // an encoded surrogate
              [0xF4, 0x8F, 0xBC, 0x80],                          // U+10FF00: the escape range itself
              Array("x".utf8) + [0xF4, 0x8F, 0xBF, 0xBF] + [0xE2, 0x82],   // U+10FFFF, then a cut sequence
          ])
    func roundTrip(bytes: [UInt8]) {
        let encoded = ArgumentBytes.encode(bytes)
        #expect(ArgumentBytes.bytes(of: encoded) == bytes)
        #expect(ArgumentBytes.path(encoded) == FilePath(bytes: bytes))
    }

    @Test("valid UTF-8 outside the escape range is passed as itself")
    func validUnchanged() {
        #expect(ArgumentBytes.encode(Array("naïve résumé".utf8)) == "naïve résumé")
        #expect(ArgumentBytes.bytes(of: "naïve résumé") == Array("naïve résumé".utf8))
    }

    @Test("display escapes the bytes that are not UTF-8 as \\xNN")
    func display() {
        #expect(ArgumentBytes.display(ArgumentBytes.encode(Array("caf".utf8) + [0xE9, 0x0A])) == "caf\\xE9\n")
    }
}
