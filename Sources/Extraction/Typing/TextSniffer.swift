import ExtractionModel
/// Tells which kind of text a file with no telling name holds, from its first kilobyte: markup,
/// mail, RTF, calendars ... or plain text.
///
/// It stands in for libmagic's text rules, which cost about 0.35–0.6 ms per call whatever the
/// size (measured on `/usr/share/doc`; see `MagicDatabase`), three times the rest of the
/// extraction of a small file. Only the text types that change how a file is extracted or shown
/// are recognised; scripts are still found by libmagic's binary rules (`#!`).
///
/// For example:
/// ```swift
/// TextSniffer.mimeType(Array("<?xml version=\"1.0\"?><svg>".utf8))   // "image/svg+xml"
/// TextSniffer.mimeType(Array("Received: from a\nSubject: hi\n".utf8)) // "message/rfc822"
/// TextSniffer.mimeType(Array("Copyright 2024\n".utf8))                // "text/plain"
/// ```
package enum TextSniffer {
    static let mailHeaders: Set<String> = [
        "received", "return-path", "from", "to", "cc", "subject", "message-id", "mime-version", "delivered-to",
        "date", "reply-to", "sender", "in-reply-to", "references", "x-mailer", "content-type", "user-agent",
    ]

    package static func mimeType(_ bytes: [UInt8]) -> String {
        var head = Array(bytes.prefix(1024))
        if let bom = TextDecoding.byteOrderMark(head[...]) {
            guard bom.encoding == "utf-8" else { return "text/plain" }   // UTF-16 markup is left to its name
            head.removeFirst(bom.length)
        }
        let lower = String(decoding: head.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        let text = lower.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        if text.hasPrefix("<?xml") {
            if text.contains("<svg") { return "image/svg+xml" }
            if text.contains("<html") { return "application/xhtml+xml" }
            return "application/xml"
        }
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html")
            || (text.hasPrefix("<") && (text.contains("<html") || text.contains("<head>") || text.contains("<body"))) {
            return "text/html"
        }
        if text.hasPrefix("{\\rtf") { return "text/rtf" }
        if text.hasPrefix("%!ps") { return "application/postscript" }
        if text.hasPrefix("begin:vcalendar") { return "text/calendar" }
        if text.hasPrefix("begin:vcard") { return "text/vcard" }
        if text.hasPrefix("webvtt") { return "text/vtt" }
        let lines = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        if let first = lines.first, first.hasPrefix("from "), lines.count > 1, isHeader(lines[1]) { return "application/mbox" }
        if lines.count >= 2, isHeader(lines[0]), lines.dropFirst().prefix(3).contains(where: isHeader) { return "message/rfc822" }
        return "text/plain"
    }

    /// `Name: value` with a known mail header name (or any `X-` header).
    static func isHeader(_ line: Substring) -> Bool {
        guard let colon = line.firstIndex(of: ":") else { return false }
        let name = String(line[..<colon])
        return mailHeaders.contains(name) || (name.hasPrefix("x-") && !name.contains(" "))
    }
}
