import SystemPackage
import SystemCalls

/// The `file://` URI of a local file as the thumbnail spec names it, and the cache file name
/// made from it: every reader of the cache (GLib, Qt, FSIndex) must spell the URI the same way
/// or the MD5 differs and the thumbnail is never found.
///
/// A key design decision: the spelling is GLib's `g_filename_to_uri`, byte for byte, since
/// GNOME's Files and GLib's `thumbnail::path` attribute are the readers that matter most. The path's bytes
/// are escaped, not its characters: a name that is not UTF-8 keeps its bytes (`%E9`), and a
/// UTF-8 name is escaped byte by byte (`é` is `%C3%A9`). Unescaped: letters, digits and
/// ``!$&'()*+,-./:=@_~``; everything else is `%XX` with capital hex digits.
///
/// For example, `/home/ada/My photo.png` is `file:///home/ada/My%20photo.png`.
package enum FileURI {
    /// The URI of an absolute path.
    package static func of(_ path: FilePath) -> String {
        of(bytes: path.bytes)
    }

    /// The URI of an absolute path's bytes.
    package static func of(bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        out.reserveCapacity(out.count + bytes.count * 2)
        for b in bytes {
            if isUnescaped(b) {
                out.append(b)
            } else {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// GLib's `UNSAFE_PATH` set.
    static func isUnescaped(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true                  // digits, letters
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F: true   // !$&'()*+,-./
        case 0x3A, 0x3D, 0x40, 0x5F, 0x7E: true                           // : = @ _ ~
        default: false
        }
    }

    /// The cache file name of a URI: its MD5 in lowercase hex, then `.png`.
    package static func thumbnailName(of uri: String) -> String {
        MD5.hex(Array(uri.utf8)) + ".png"
    }
}
