import Attributes
import ExtractionModel
import CGMime
import FoundationEssentials
import Glibc

/// Mail: single RFC 822 messages (`.eml`, `message/rfc822`) and mbox files, through GMime 3.
///
/// A message gives `authors` (each sender as `Name <addr>`), `authorNames`,
/// `authorEmailAddresses`, `recipients` / `recipientNames` / `recipientEmailAddresses` (To and
/// Cc, groups flattened), `subject` and `title` (RFC 2047 words decoded), `contentCreationDate`
/// (the `Date` header), `attachmentNames`, and the body as `textContent` (see `MailMessage`).
///
/// An mbox gives one child item per message (`message/1`, `message/2`, ... in file order), each
/// with the attributes above plus `name` (the subject, or "(no subject)"), `contentType`
/// `public.email-message` and `kind` "Mail message". The mbox itself gets `messageCount` and, as
/// its `textContent`, each message's subject, senders and body text in file order, up to the
/// text cap: a word of the third message finds the mbox as well as that message (issue 28;
/// before, the mbox held subjects and senders only, so a search for a body's word never named
/// the mailbox file).
/// At most `maxMessages` messages are read, and the bodies of all children together hold at
/// most `mailboxTextBudget` bytes (the later ones keep their headers and say `textTruncated`).
///
/// For example, a message `From: Ada <ada@example.org>` / `Subject: Hi` gives `authors`
/// `["Ada <ada@example.org>"]`, `authorNames` `["Ada"]` and `title` `"Hi"`.
///
/// A key design decision: a file that is all in memory already is parsed from memory; a larger
/// one is read through a GMime file stream on a duplicate of the open descriptor, so an mbox of
/// hundreds of megabytes is parsed without being loaded (GMime keeps offsets into the stream).
package struct MailExtractor: Extractor {
    package var name: String { "mail" }

    package init() {}

    /// Largest single message read.
    static let messageLimit = 64 << 20
    /// Largest mbox read.
    static let mailboxLimit = 512 << 20
    static let maxMessages = 10_000
    /// Body text of all an mbox's children together, in UTF-8 bytes (a worker's result is
    /// limited to 16 MiB).
    static let mailboxTextBudget = 6 << 20

    static let message: ContentType = "public.email-message"
    static let mailbox: ContentType = "public.mbox"
    static let messageType = TypeDetector().describe(mimeType: "message/rfc822")

    package func accepts(_ input: ExtractionInput) -> Bool {
        input.conforms(to: Self.message) || input.conforms(to: Self.mailbox)
    }

    package func extract(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        var output = ExtractionOutput(attributes: attributes)
        defer { attributes = output.attributes }
        try extract(input, into: &output)
    }

    package func extract(_ input: ExtractionInput, into output: inout ExtractionOutput) throws(ExtractionError) {
        _ = GMime.ready
        if input.conforms(to: Self.mailbox) {
            try readMailbox(input, into: &output)
        } else {
            try readMessage(input, into: &output.attributes)
        }
    }

    // MARK: One message

    func readMessage(_ input: ExtractionInput, into attributes: inout AttributeSet) throws(ExtractionError) {
        let source = try openStream(input, limit: Self.messageLimit)
        defer { g_object_unref(source.stream) }
        let excluded = try structureCuts(input, size: source.size, mailbox: false)
        let end = excluded.first?.start ?? source.size
        guard let stream = g_mime_stream_substream(source.stream, 0, gint64(end)) else {
            throw .library("GMime could not create a stream")
        }
        defer { g_object_unref(stream) }
        guard let parser = g_mime_parser_new_with_stream(stream) else { throw .library("GMime could not create a parser") }
        defer { g_object_unref(parser) }
        // Message mode also skips an mbox "From " line a saved message may still start with,
        // and (unlike mbox mode) does not end the message at a body line starting with "From ".
        guard let message = g_mime_parser_construct_message(parser, nil) else {
            throw .malformed(extractor: name, reason: "no mail message found in the file")
        }
        defer { g_object_unref(message) }
        let mail = MailMessage(message, textCap: input.textCap)
        guard mail.hasHeaders else {
            throw .malformed(extractor: name, reason: "no mail headers found; the file is not an RFC 822 message")
        }
        mail.apply(to: &attributes)
        if input.isComplete, !Self.hasHeaderEnd(input.bytes) {
            throw .malformed(extractor: name, reason: "truncated: the file ends inside the message headers")
        }
        if !excluded.isEmpty {
            throw .malformed(extractor: name, reason: "more than \(Self.maxStructureLines) header lines and MIME boundaries; the rest of the message was skipped")
        }
        if mail.partsCapped {
            throw .malformed(extractor: name, reason: "more than \(MailMessage.maxParts) MIME parts or \(MailMessage.maxDepth) levels of nesting; the rest was skipped")
        }
    }

    /// Whether an empty line ends the header block somewhere (a message always has one, unless
    /// it was cut inside its headers).
    static func hasHeaderEnd(_ bytes: [UInt8]) -> Bool {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0
        for b in bytes {
            if b == 0x0A, previous == 0x0A || (previous == 0x0D && beforePrevious == 0x0A) { return true }
            beforePrevious = previous
            previous = b
        }
        return false
    }

    // MARK: Mailbox

    func readMailbox(_ input: ExtractionInput, into output: inout ExtractionOutput) throws(ExtractionError) {
        let source = try openStream(input, limit: Self.mailboxLimit)
        defer { g_object_unref(source.stream) }
        // The parts of the file to parse: all of it, less the tails of messages too rich in parts.
        let excluded = try structureCuts(input, size: source.size, mailbox: true)
        var segments: [(start: Int64, end: Int64)] = []
        var position: Int64? = 0
        for cut in excluded {
            if let p = position { segments.append((p, cut.start)) }
            position = cut.end
        }
        if let p = position { segments.append((p, source.size)) }

        // The mbox's own text is bounded like its children's together, so that both fit in a
        // worker's result (16 MiB) whatever the text cap.
        var summary = TextBuffer(cap: min(input.textCap, Self.mailboxTextBudget))
        var budget = Self.mailboxTextBudget
        var count = 0
        var capped = false
        var cutMessages: Set<Int> = []   // numbers of the messages not read to their end
        segments: for (index, segment) in segments.enumerated() where segment.end > segment.start {
            // Every segment but the last ends where a message was cut.
            defer { if index < excluded.count, count > 0 { cutMessages.insert(count) } }
            guard let stream = g_mime_stream_substream(source.stream, gint64(segment.start), gint64(segment.end)) else {
                throw .library("GMime could not create a stream")
            }
            defer { g_object_unref(stream) }
            guard let parser = g_mime_parser_new_with_stream(stream) else { throw .library("GMime could not create a parser") }
            defer { g_object_unref(parser) }
            g_mime_parser_set_format(parser, GMIME_FORMAT_MBOX)
            while g_mime_parser_eos(parser) == 0 {
                if count >= Self.maxMessages {
                    capped = true
                    break segments
                }
                guard let message = g_mime_parser_construct_message(parser, nil) else { break }
                var mail = MailMessage(message, textCap: max(0, min(input.textCap, budget)))
                g_object_unref(message)
                if mail.date == nil, let marker = GMime.take(g_mime_parser_get_mbox_marker(parser)) {
                    mail.date = Self.fromLineDate(marker)
                }
                count += 1
                budget -= mail.text.utf8.count
                if mail.partsCapped { cutMessages.insert(count) }

                var child = AttributeSet()
                mail.apply(to: &child)
                let d = Self.messageType
                child.contentType = d.contentType
                child.contentTypeTree = d.contentTypeTree
                child[.mimeType] = .string(d.mimeType)
                child.kind = d.kind
                child[.name] = .string(mail.subject ?? "(no subject)")
                output.children.append(ChildItem(key: "message/\(count)", attributes: child))

                summary.breakLine()
                if let s = mail.subject { summary.append(s) }
                if !mail.from.isEmpty {
                    summary.space()
                    summary.append(mail.from.map(\.display).joined(separator: ", "))
                }
                if !mail.text.isEmpty, !summary.isFull {
                    summary.breakLine()
                    summary.append(mail.text)
                }
            }
        }
        guard count > 0 else {
            throw .malformed(extractor: name, reason: "no message found; an mbox file starts with a \"From \" line")
        }
        output.attributes[.messageCount] = .integer(Int64(count))
        let (text, full) = summary.result
        if !text.isEmpty { output.attributes[.textContent] = .string(text) }
        if full || capped { output.attributes[.textTruncated] = .bool(true) }
        if capped {
            throw .malformed(extractor: name, reason: "more than \(Self.maxMessages) messages; the rest were skipped")
        }
        if !cutMessages.isEmpty {
            throw .malformed(extractor: name, reason: "\(cutMessages.count) message(s) with too many MIME parts, levels of nesting or header lines; the rest of each was skipped")
        }
    }

    /// The date of an mbox `From sender Mon Jun  1 10:00:00 2009` line (asctime, optionally
    /// with a numeric zone before or after the year; UTC without one), for a message with no
    /// `Date` header.
    static func fromLineDate(_ line: String) -> Date? {
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let t = tokens.indices.reversed().prefix(4).first(where: { tokens[$0].contains(":") }), t >= 3 else { return nil }
        let clock = tokens[t].split(separator: ":").map { Int($0) }
        guard clock.count >= 2, clock.allSatisfy({ $0 != nil }) else { return nil }
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard let day = Int(tokens[t - 1]), let m = months.firstIndex(of: tokens[t - 2].prefix(3).lowercased()) else { return nil }
        var year: Int?
        var zone = 0
        for token in tokens[(t + 1)...] {
            if token.count == 4, let y = Int(token) { year = y }
            if token.count == 5, token.first == "+" || token.first == "-", let z = Int(token.dropFirst()) {
                zone = (token.first == "-" ? -1 : 1) * ((z / 100) * 3600 + (z % 100) * 60)
            }
        }
        guard let year, (1..<10_000).contains(year), (1...31).contains(day) else { return nil }
        let (h, mi, sec) = (clock[0]!, clock[1]!, clock.count > 2 ? clock[2]! : 0)
        guard (0..<24).contains(h), (0..<60).contains(mi), (0...60).contains(sec) else { return nil }
        let days = daysFromCivil(year: year, month: m + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + h * 3600 + mi * 60 + sec - zone))
    }

    // MARK: Input

    /// A GMime stream over the whole file followed by an empty line, and the file's size: from
    /// memory when `input.bytes` holds all of it, else a file stream on a duplicate of the open
    /// descriptor (GMime closes the duplicate). The empty line lets GMime read a message cut
    /// inside its headers (it gives up on a last header line that does not end).
    func openStream(_ input: ExtractionInput, limit: Int) throws(ExtractionError) -> (stream: UnsafeMutablePointer<GMimeStream>, size: Int64) {
        let padding: [UInt8] = [0x0A, 0x0A]
        guard !input.isComplete, let file = input.file else {
            let bytes = try input.wholeFile(limit: limit, extractor: name) + padding
            let stream = bytes.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { g_mime_stream_mem_new_with_buffer($0.baseAddress, $0.count) }
            }
            guard let stream else { throw .library("GMime could not create a memory stream") }
            return (stream, Int64(bytes.count))
        }
        guard file.size <= Int64(limit) else {
            throw .malformed(extractor: name, reason: "the file is \(file.size) bytes, more than the \(limit) this extractor reads")
        }
        let fd = dup(file.descriptor)
        guard fd >= 0 else { throw .unreadable(errno: errno, message: String(cString: strerror(errno)).lowercased()) }
        guard lseek(fd, 0, SEEK_SET) == 0, let fileStream = g_mime_stream_fs_new_with_bounds(fd, 0, gint64(file.size)) else {
            close(fd)
            throw .library("GMime could not read the file through its descriptor")
        }
        defer { g_object_unref(fileStream) }
        let tail = padding.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { g_mime_stream_mem_new_with_buffer($0.baseAddress, $0.count) }
        }
        guard let tail, let stream = g_mime_stream_cat_new() else { throw .library("GMime could not create a stream") }
        defer { g_object_unref(tail) }
        _ = g_mime_stream_cat_add_source(cgmime_as_cat_stream(stream), fileStream)   // takes its own references
        _ = g_mime_stream_cat_add_source(cgmime_as_cat_stream(stream), tail)
        return (stream, file.size + Int64(padding.count))
    }

    /// Header lines and MIME boundaries one message may have (see `MailStructureScanner`):
    /// about 200 MB of GMime objects at most.
    static let maxStructureLines = 150_000

    /// The ranges `MailStructureScanner` excludes. Files too small to reach the limit are not
    /// scanned (every counted line takes at least 3 bytes).
    func structureCuts(_ input: ExtractionInput, size: Int64, mailbox: Bool) throws(ExtractionError) -> [(start: Int64, end: Int64?)] {
        guard size > Int64(Self.maxStructureLines * 3) else { return [] }
        var scanner = MailStructureScanner(mailbox: mailbox, limit: Self.maxStructureLines)
        if input.isComplete || input.file == nil {
            input.bytes.withUnsafeBufferPointer { scanner.feed($0, at: 0) }
        } else if let file = input.file {
            var offset: Int64 = 0
            while offset < size, !scanner.done {
                let chunk = try file.read(at: offset, count: Int(min(Int64(1 << 20), size - offset)))
                if chunk.isEmpty { break }
                chunk.withUnsafeBufferPointer { scanner.feed($0, at: offset) }
                offset += Int64(chunk.count)
            }
        }
        return scanner.excluded
    }
}
