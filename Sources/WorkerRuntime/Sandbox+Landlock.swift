import CSysShims
import Isolation
import Glibc

extension Sandbox {
    /// What the parsers may still open by name once the worker is confined: the read-only data
    /// of the C libraries and of glibc. Found by running the extraction, isolation and corpus
    /// tests through the confined worker. Everything under `/usr` (shared libraries dlopened
    /// late, gconv modules, poppler-data, fonts, zoneinfo, shared-mime-info, libexttextcat's
    /// models, libmagic's database, gdk-pixbuf's loader modules and their list for thumbnails); the dynamic linker's cache; fontconfig's configuration and
    /// cache (poppler asks it for fonts); the files glibc's user and group lookups read (the
    /// owner's name); the time zone; libmagic's and libxml2's local configuration.
    ///
    /// OCR (issue 28) needs nothing more: Tesseract and the libraries it loads (dlopened when
    /// the first picture is read) are under `/usr/lib`, and its language data under
    /// `/usr/share/tesseract-ocr`. (A `TESSDATA_PREFIX` outside `/usr` is not readable here; the
    /// recognizer then fails to load with a message naming the folder.)
    ///
    /// The file being extracted is not here: it comes as a descriptor from the parent.
    static let readablePaths = [
        "/usr", "/etc/ld.so.cache", "/etc/fonts", "/var/cache/fontconfig",
        "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
        "/etc/magic", "/etc/xml", "/etc/mime.types",
    ]

    /// Confines the worker's opens to `readablePaths`, read-only, with Landlock, for the rest
    /// of its life (a ruleset cannot be widened). Returns the Landlock ABI used, or nil when
    /// the kernel has no Landlock: the worker then runs without this layer, and `fsindex status`
    /// says so (`ReadConfinement`). Any other failure is an error: a kernel that offers Landlock
    /// and refuses our rules means the sandbox is not what we think.
    @discardableResult
    static func confineReads() throws(SandboxError) -> Int32? {
        guard case .available = ReadConfinement.current else { return nil }
        var pointers = readablePaths.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let abi = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                shim_landlock_confine($0, Int32(buffer.count))
            }
        }
        guard abi > 0 else { throw .call("Landlock (landlock_restrict_self)", errno) }
        return abi
    }
}
