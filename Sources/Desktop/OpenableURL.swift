import Foundation
import Glibc

/// Whether a donated item's `contentURL` may be handed to the opener (xdg-open).
///
/// Any app may donate, and what it donates is data: a URL is only opened when opening it can do
/// no more than show the user something. It must be absolute, with a scheme from a short list
/// (`file`, `http`, `https`, `mailto`, and the scheme the app declared as its own when it
/// donated); it must not start with `-` (xdg-open reads `--manual` as an option) and holds no
/// control character or space (a newline forges a second argument in the opener's log, and
/// browsers strip them silently). A `file:` URL must name a file the user can read, through
/// its path, and never a `.desktop` file, which a desktop may run as a program: not by its
/// name, by where a link leads, or by what it holds.
package enum OpenableURL {
    /// Schemes every donated item may use.
    package static let schemes: Set<String> = ["file", "http", "https", "mailto"]
    /// Bytes of a URL worth opening.
    package static let maximumBytes = 8192

    /// Why `url` is refused, or nil when it may be opened. `appScheme` is the scheme the
    /// donating app declared, if any.
    package static func refusal(_ url: String, appScheme: String? = nil) -> String? {
        guard !url.isEmpty else { return "it is empty" }
        guard url.utf8.count <= maximumBytes else { return "it is longer than \(maximumBytes) bytes" }
        if url.hasPrefix("-") { return "it starts with -, which the opener would read as an option" }
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f || (0x80...0x9f).contains($0.value) }) {
            return "it holds a space or a control character"
        }
        guard let scheme = scheme(of: url) else { return "it is not an absolute URL (SCHEME:…)" }
        let allowed = schemes.union(appScheme.map { [$0.lowercased()] } ?? [])
        guard allowed.contains(scheme) else {
            return "its scheme \(scheme): is not one that is opened (\(allowed.sorted().joined(separator: ", ")))"
        }
        if scheme == "file" {
            guard let path = filePath(url) else { return "it is not a local file URL (file:///PATH)" }
            return refusal(file: path)
        }
        return nil
    }

    /// Why a local file is not to be opened, or nil: it must be readable by this user, and it
    /// is not a `.desktop` launcher.
    package static func refusal(file path: [UInt8]) -> String? {
        let shown = String(decoding: path, as: UTF8.self)
        let readable = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { access($0.baseAddress!, R_OK) == 0 }
        }
        guard readable else { return "\(shown) is not readable by you (\(String(cString: strerror(errno)).lowercased()))" }
        if isLauncher(path) { return "\(shown) is a .desktop launcher, which is never opened from a search" }
        return nil
    }

    /// A `.desktop` file: by its name, the name of the file a link leads to, or its first line
    /// of content (`[Desktop Entry]`, which GIO sniffs).
    package static func isLauncher(_ path: [UInt8]) -> Bool {
        func named(_ p: [UInt8]) -> Bool { String(decoding: p, as: UTF8.self).lowercased().hasSuffix(".desktop") }
        if named(path) { return true }
        let real: [UInt8]? = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                guard let r = realpath(c.baseAddress!, nil) else { return nil }
                defer { free(r) }
                return Array(UnsafeBufferPointer(start: UnsafeRawPointer(r).assumingMemoryBound(to: UInt8.self), count: strlen(r)))
            }
        }
        if let real, named(real) { return true }
        // Only a regular file is read: opening a device or a FIFO can act or block.
        var before = stat()
        let regular = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &before) == 0 }
        } && before.st_mode & S_IFMT == S_IFREG
        guard regular else { return false }
        let fd = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        }
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: 4096)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return false }
        for line in head[0..<n].split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            return text == "[Desktop Entry]" || text.hasPrefix("[Desktop Entry]")
        }
        return false
    }

    /// The scheme, lowercased: a letter, then letters, digits, `+`, `-` and `.`, before `:`.
    package static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let s = url[..<colon]
        guard let first = s.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        guard s.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }) else { return nil }
        return s.lowercased()
    }

    /// The path of `file:///PATH` or `file://localhost/PATH`, percent-decoded as bytes.
    package static func filePath(_ url: String) -> [UInt8]? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("file:///") { rest = url.dropFirst("file://".count) }
        else if lower.hasPrefix("file://localhost/") { rest = url.dropFirst("file://localhost".count) }
        else { return nil }
        // The query and fragment are no part of the file.
        let pathPart = rest.prefix { $0 != "?" && $0 != "#" }
        var out: [UInt8] = []
        var bytes = Array(pathPart.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%") {
                guard bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes = bytes.dropFirst(2)
                guard v != 0 else { return nil }
                out.append(v)
            } else {
                out.append(b)
            }
        }
        return out.first == UInt8(ascii: "/") ? out : nil
    }
}
