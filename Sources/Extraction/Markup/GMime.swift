import ExtractionModel
import CGMime
import Glibc

/// Process-wide GMime set-up: `g_mime_init()` once (a `static let` runs its initialiser exactly
/// once, under Swift's lazy-global lock), and GLib's log output for GMime silenced.
enum GMime {
    static let ready: Void = {
        cgmime_silence_logging()
        g_mime_init()
    }()

    /// Copies a C string GMime owns.
    static func string(_ p: UnsafePointer<CChar>?) -> String? {
        guard let p else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: p, count: strlen(p)), as: UTF8.self)
    }

    /// Copies and frees a C string we own (`g_free`).
    static func take(_ p: UnsafeMutablePointer<CChar>?) -> String? {
        guard let p else { return nil }
        defer { g_free(p) }
        return string(p)
    }
}
