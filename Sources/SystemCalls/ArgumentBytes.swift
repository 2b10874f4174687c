import SystemPackage
import Glibc

/// Command-line arguments that keep every byte, so a path argument that is not UTF-8 names the
/// same file the user typed.
///
/// Swift decodes `argv` into `String`s and replaces invalid UTF-8 with U+FFFD, which loses the
/// bytes for good: `fsindex show $'caf\xe9'` would ask about a file that does not exist. The
/// argument parser only takes `String`s, so each byte that cannot be decoded travels as a
/// code point of a private-use range (U+10FF00 + byte, the idea of Python's "surrogateescape",
/// whose surrogates Swift strings cannot hold), and `bytes(of:)` turns it back into the byte.
/// A real code point of that range in an argument is escaped byte by byte too, so the round trip
/// is exact for every argument: `bytes(of: encode(b)) == b`.
package enum ArgumentBytes {
    /// The first code point of the escape range; byte `b` travels as `escapeBase + b`.
    static let escapeBase: UInt32 = 0x10FF00

    /// The process's arguments after the program name, encoded for the argument parser.
    package static func arguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { i in
            guard let p = CommandLine.unsafeArgv[i] else { return "" }
            return encode(Array(UnsafeBufferPointer(start: p, count: strlen(p)).map { UInt8(bitPattern: $0) }))
        }
    }

    /// A string holding `bytes`: valid UTF-8 as itself, every other byte escaped.
    package static func encode(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        func escape(_ range: Range<Int>) {
            for b in bytes[range] { scalars.append(Unicode.Scalar(escapeBase + UInt32(b))!) }
        }
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.value >= escapeBase {
                    escape(offset..<offset + encoded.count)
                } else {
                    scalars.append(scalar)
                }
                offset += encoded.count
            case .error(let length):
                escape(offset..<offset + length)
                offset += length
            case .emptyInput:
                break loop
            }
        }
        return String(scalars)
    }

    /// The bytes an encoded argument stands for.
    package static func bytes(of argument: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(argument.utf8.count)
        for scalar in argument.unicodeScalars {
            if scalar.value >= escapeBase {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// The path an encoded argument names.
    package static func path(_ argument: String) -> FilePath { FilePath(bytes: bytes(of: argument)) }

    /// An argument as it may be shown in a message: valid UTF-8 as itself, each other byte as
    /// `\xNN`.
    package static func display(_ argument: String) -> String {
        var out = ""
        for scalar in argument.unicodeScalars {
            if scalar.value >= escapeBase {
                let b = scalar.value - escapeBase
                out += "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
