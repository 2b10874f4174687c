import Attributes
import ExtractionModel
import CGMime
import CLibXML2
import FoundationEssentials

/// What one parsed mail message says, read from a `GMimeMessage`: senders, recipients (To and
/// Cc), subject, date, the names of its attachments and the text of its body.
///
/// The body is the text of its `text/plain` parts, with transfer encodings undone and charsets
/// converted to UTF-8, and of its `text/html` parts (tags stripped by libxml2, through the HTML
/// extractor's walker). Of a `multipart/alternative`, the plain part is read, and the HTML
/// alternative too when it says more: when its text has a word the plain part lacks (senders
/// often put a bare summary in the plain part; issue 28 found the HTML body's words missing).
/// Attachments (a part with an `attachment` disposition or a file name) give their names, not
/// their text. Attached and forwarded messages (`message/rfc822` parts) add their subject and
/// body, plain and HTML alike.
///
/// Hostile input is bounded: at most `maxDepth` levels of nesting and `maxParts` parts are
/// visited, at most `maxAddresses` addresses are kept per list, and a part's decoded bytes are
/// read only up to a little more than the text still wanted.
struct MailMessage {
    struct Address: Hashable {
        var name: String?
        var email: String?

        /// `Name <addr>`, or whichever of the two exists.
        var display: String {
            switch (name, email) {
            case let (n?, e?): "\(n) <\(e)>"
            case let (n?, nil): n
            case let (nil, e?): e
            case (nil, nil): ""
            }
        }
    }

    static let maxDepth = 64
    static let maxParts = 2_000
    static let maxAddresses = 1_000
    /// Bytes of one part read at most, whatever the text cap.
    static let maxPartBytes = 64 << 20

    var subject: String?
    var date: Date?
    var from: [Address] = []
    var recipients: [Address] = []
    var attachmentNames: [String] = []
    /// The headers that mark bulk or list mail, as found (see `bulkHeaders(of:)`).
    var bulkHeaders: [String] = []
    var text: String = ""
    var textTruncated = false
    /// Whether the nesting or part cap stopped the walk.
    var partsCapped = false
    /// Whether the message had any header at all (garbage parses as a message without headers).
    var hasHeaders = false
    /// The text of the last plain part read as one of a `multipart/alternative`'s choices, which
    /// its HTML sibling is compared with.
    private var alternativePlain = ""

    /// Why a part of the MIME tree is read.
    enum Role {
        /// Body text, read whole.
        case body
        /// The plain choice of a `multipart/alternative`: read, and remembered.
        case plainAlternative
        /// The HTML choice (or the multipart that holds it) beside a plain one: read only when
        /// its text says more than the plain choice.
        case htmlAlternative
    }

    /// Reads `message`; the body text is capped at `textCap` UTF-8 bytes.
    init(_ message: UnsafeMutablePointer<GMimeMessage>, textCap: Int) {
        _ = GMime.ready
        let object = cgmime_message_object(message)
        if let headers = g_mime_object_get_header_list(object) { hasHeaders = g_mime_header_list_get_count(headers) > 0 }
        subject = Self.clean(GMime.string(g_mime_message_get_subject(message)))
        if let d = g_mime_message_get_date(message) {
            date = Date(timeIntervalSince1970: Double(g_date_time_to_unix(d)))
        }
        from = Self.addresses(g_mime_message_get_from(message))
        var to = Self.addresses(g_mime_message_get_to(message))
        for a in Self.addresses(g_mime_message_get_cc(message)) where to.count < Self.maxAddresses && !to.contains(a) {
            to.append(a)
        }
        recipients = to
        if let object { bulkHeaders = Self.bulkHeaders(of: object) }

        var body = TextBuffer(cap: textCap)
        walk(g_mime_message_get_mime_part(message), into: &body)
        let (t, full) = body.result
        text = t
        if full { textTruncated = true }
    }

    /// Sets the message's attributes (not `contentType`, `kind` or `name`).
    func apply(to attributes: inout AttributeSet) {
        if !from.isEmpty {
            attributes[.authors] = .strings(from.map(\.display))
            let names = from.compactMap(\.name), emails = from.compactMap(\.email)
            if !names.isEmpty { attributes[.authorNames] = .strings(names) }
            if !emails.isEmpty { attributes[.authorEmailAddresses] = .strings(emails) }
        }
        if !recipients.isEmpty {
            attributes[.recipients] = .strings(recipients.map(\.display))
            let names = recipients.compactMap(\.name), emails = recipients.compactMap(\.email)
            if !names.isEmpty { attributes[.recipientNames] = .strings(names) }
            if !emails.isEmpty { attributes[.recipientEmailAddresses] = .strings(emails) }
        }
        if let subject {
            attributes[.subject] = .string(subject)
            attributes[.title] = .string(subject)
        }
        if let date { attributes[.contentCreationDate] = .date(date) }
        if !attachmentNames.isEmpty { attributes[.attachmentNames] = .strings(attachmentNames) }
        if !text.isEmpty { attributes[.textContent] = .string(text) }
        if textTruncated { attributes[.textTruncated] = .bool(true) }
        if !bulkHeaders.isEmpty { attributes[.mailBulkHeaders] = .strings(bulkHeaders) }
        let days = MentionedDates.find(in: (subject.map { $0 + "\n" } ?? "") + text, sent: date)
        if !days.isEmpty { attributes[.mentionedDates] = .strings(days) }
    }

    // MARK: Bulk mail

    /// The headers that say a message went to many (RFC 2369's `List-Unsubscribe`, `List-Id`
    /// and `List-Post`; RFC 2919; `Precedence: bulk|list|junk`, which mailing lists and mass
    /// senders set; RFC 3834's `Auto-Submitted` other than `no`): the priority pass never marks
    /// such a message as priority. Each is given as its name, with the value where the value
    /// is what counts (`Precedence: bulk`).
    static func bulkHeaders(of object: UnsafeMutablePointer<GMimeObject>) -> [String] {
        var out: [String] = []
        for name in ["List-Unsubscribe", "List-Id", "List-Post"] where g_mime_object_get_header(object, name) != nil {
            out.append(name)
        }
        if let p = clean(GMime.string(g_mime_object_get_header(object, "Precedence")))?.lowercased(),
           ["bulk", "list", "junk"].contains(p) {
            out.append("Precedence: \(p)")
        }
        if let a = clean(GMime.string(g_mime_object_get_header(object, "Auto-Submitted")))?.lowercased(), a != "no" {
            out.append("Auto-Submitted: \(a)")
        }
        return out
    }

    // MARK: Addresses

    /// The mailboxes of a list, groups flattened (one level; a group inside a group is not valid
    /// RFC 5322 but is flattened too, up to the cap).
    static func addresses(_ list: UnsafeMutablePointer<InternetAddressList>?) -> [Address] {
        var out: [Address] = []
        var pending: [(UnsafeMutablePointer<InternetAddressList>, Int)] = []
        if let list { pending.append((list, 0)) }
        var visited = 0
        while let (l, depth) = pending.popLast() {
            let count = internet_address_list_length(l)
            var i: Int32 = 0
            while i < count, out.count < maxAddresses, visited < maxAddresses * 4 {
                defer { i += 1; visited += 1 }
                guard let ia = internet_address_list_get_address(l, i) else { continue }
                if let mailbox = cgmime_as_mailbox(ia) {
                    let a = Address(name: clean(GMime.string(internet_address_get_name(ia))),
                                    email: clean(GMime.string(internet_address_mailbox_get_addr(mailbox))))
                    if a.name != nil || a.email != nil, !out.contains(a) { out.append(a) }
                } else if let group = cgmime_as_group(ia), depth < 4, let members = internet_address_group_get_members(group) {
                    pending.append((members, depth + 1))
                }
            }
        }
        return out
    }

    /// Trimmed, white space collapsed, nil when empty.
    static func clean(_ s: String?) -> String? {
        guard let s else { return nil }
        var t = TextBuffer(cap: 4096)
        t.append(s)
        let r = t.result.text
        return r.isEmpty ? nil : r
    }

    // MARK: Body

    /// Visits the MIME tree depth first with an explicit stack, in document order.
    private mutating func walk(_ root: UnsafeMutablePointer<GMimeObject>?, into body: inout TextBuffer) {
        guard let root else { return }
        var stack: [(object: UnsafeMutablePointer<GMimeObject>, depth: Int, role: Role)] = [(root, 0, .body)]
        var visited = 0
        while let (object, depth, role) = stack.popLast() {
            visited += 1
            if visited > Self.maxParts || depth > Self.maxDepth {
                partsCapped = true
                return
            }
            if let multipart = cgmime_as_multipart(object) {
                let count = Int(g_mime_multipart_get_count(multipart))
                var children: [UnsafeMutablePointer<GMimeObject>] = []
                for i in 0..<min(count, Self.maxParts) {
                    if let child = g_mime_multipart_get_part(multipart, Int32(i)) { children.append(child) }
                }
                if count > Self.maxParts { partsCapped = true }
                // A multipart inside an HTML choice (`related` around the HTML) keeps that role.
                var roles = [Role](repeating: role == .htmlAlternative ? .htmlAlternative : .body, count: children.count)
                if Self.isType(object, "multipart", "alternative") {
                    alternativePlain = ""
                    let chosen = Self.preferred(children)
                    children = chosen.map(\.object)
                    roles = chosen.map { role == .htmlAlternative ? .htmlAlternative : $0.role }
                }
                for (child, r) in zip(children, roles).reversed() { stack.append((child, depth + 1, r)) }
            } else if let messagePart = cgmime_as_message_part(object) {
                if let name = Self.clean(GMime.string(g_mime_object_get_content_disposition_parameter(object, "filename"))) {
                    attachmentNames.append(name)
                }
                guard let inner = g_mime_message_part_get_message(messagePart) else { continue }
                if let s = Self.clean(GMime.string(g_mime_message_get_subject(inner))) {
                    body.breakLine()
                    body.append(s)
                    body.breakLine()
                }
                if let part = g_mime_message_get_mime_part(inner) { stack.append((part, depth + 1, .body)) }
            } else if let part = cgmime_as_part(object) {
                leaf(part, object, role: role, into: &body)
            }
            if body.isFull { textTruncated = true }
        }
    }

    /// A leaf part: an attachment's name, or a body part's text.
    private mutating func leaf(_ part: UnsafeMutablePointer<GMimePart>, _ object: UnsafeMutablePointer<GMimeObject>,
                               role: Role, into body: inout TextBuffer) {
        let filename = Self.clean(GMime.string(g_mime_part_get_filename(part)))
        if let filename {
            if attachmentNames.count < Self.maxParts { attachmentNames.append(filename) }
            return
        }
        if g_mime_part_is_attachment(part) != 0 { return }
        let isPlain = Self.isType(object, "text", "plain"), isHTML = Self.isType(object, "text", "html")
        guard isPlain || isHTML else { return }
        guard body.cap > 0, !body.isFull else {
            textTruncated = true
            return
        }
        let wanted = body.cap * (isHTML ? 4 : 2) + 64 * 1024
        guard let (text, cut) = Self.decodedContent(part, object, limit: min(wanted, Self.maxPartBytes)) else { return }
        if cut { textTruncated = true }
        if isPlain {
            if role == .htmlAlternative { return }   // a plain part beside the HTML in its `related`
            if role == .plainAlternative { alternativePlain = text }
            body.breakLine()
            body.append(text)
        } else {
            let html = Self.htmlText(Array(text.utf8), cap: body.cap)
            if role == .htmlAlternative, !Self.saysMore(html, than: alternativePlain) { return }
            body.breakLine()
            for (i, line) in html.split(separator: "\n").enumerated() {
                if i > 0 { body.breakLine() }
                body.append(line)
            }
        }
        body.breakLine()
    }

    /// Whether `text` has a word (letters and digits, case folded) that `plain` lacks.
    static func saysMore(_ text: String, than plain: String) -> Bool {
        func words(_ s: String) -> Set<String> {
            Set(s.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
        }
        let known = words(plain)
        return !words(text).isSubset(of: known)
    }

    /// Of the children of a `multipart/alternative`, the ones to read: the first `text/plain`,
    /// then (compared with it) the first `text/html`, else the first multipart (a `related`
    /// wrapping the HTML); without a plain one, the HTML or multipart choice alone; else the
    /// first child.
    static func preferred(_ children: [UnsafeMutablePointer<GMimeObject>]) -> [(object: UnsafeMutablePointer<GMimeObject>, role: Role)] {
        let html = children.first(where: { isType($0, "text", "html") }) ?? children.first(where: { cgmime_as_multipart($0) != nil })
        if let p = children.first(where: { isType($0, "text", "plain") }) {
            return [(p, .plainAlternative)] + (html.map { [($0, .htmlAlternative)] } ?? [])
        }
        if let html { return [(html, .body)] }
        return children.prefix(1).map { ($0, .body) }
    }

    static func isType(_ object: UnsafeMutablePointer<GMimeObject>, _ type: String, _ subtype: String) -> Bool {
        guard let ct = g_mime_object_get_content_type(object) else { return false }
        return g_mime_content_type_is_type(ct, type, subtype) != 0
    }

    /// The part's content with its transfer encoding undone and its charset converted to UTF-8,
    /// at most `limit` bytes; `cut` tells whether more was left. A charset iconv does not know,
    /// or none, is decoded as UTF-8 when valid, else as Windows-1252 / Latin-1.
    static func decodedContent(_ part: UnsafeMutablePointer<GMimePart>, _ object: UnsafeMutablePointer<GMimeObject>,
                               limit: Int) -> (text: String, cut: Bool)? {
        guard let content = g_mime_part_get_content(part), let source = g_mime_data_wrapper_get_stream(content) else {
            return nil
        }
        _ = g_mime_stream_reset(source)
        guard let filtered = g_mime_stream_filter_new(source) else { return nil }
        defer { g_object_unref(filtered) }
        let encoding = g_mime_data_wrapper_get_encoding(content)
        if encoding == GMIME_CONTENT_ENCODING_BASE64 || encoding == GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE
            || encoding == GMIME_CONTENT_ENCODING_UUENCODE, let filter = g_mime_filter_basic_new(encoding, 0) {
            _ = g_mime_stream_filter_add(cgmime_as_filter_stream(filtered), filter)
            g_object_unref(filter)
        }
        var converted = false
        if let charset = GMime.string(g_mime_object_get_content_type_parameter(object, "charset"))?.lowercased(),
           !["utf-8", "utf8", "us-ascii", "ascii"].contains(charset),
           let filter = g_mime_filter_charset_new(charset, "utf-8") {
            _ = g_mime_stream_filter_add(cgmime_as_filter_stream(filtered), filter)
            g_object_unref(filter)
            converted = true
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var cut = false
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { g_mime_stream_read(filtered, $0.baseAddress, $0.count) }
            }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count >= limit {
                cut = g_mime_stream_eos(filtered) == 0 || bytes.count > limit
                bytes.removeLast(max(0, bytes.count - limit))
                break
            }
        }
        if converted { return (String(decoding: bytes, as: UTF8.self), cut) }
        let text = TextDecoding.decode(bytes[...], isComplete: !cut)?.text ?? String(decoding: bytes, as: UTF8.self)
        return (text, cut)
    }

    /// The visible text of an HTML body (already UTF-8), through the HTML extractor's walker.
    static func htmlText(_ bytes: [UInt8], cap: Int) -> String {
        guard !bytes.isEmpty else { return "" }
        LibXML.silenceThisThread()
        let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
        let flags = Int32(bitPattern: UInt32(truncatingIfNeeded: options))
        let parsed: htmlDocPtr? = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { htmlReadMemory($0.baseAddress, Int32(clamping: $0.count), nil, "UTF-8", flags) }
        }
        guard let doc = parsed else { return "" }
        defer { xmlFreeDoc(doc) }
        var page = HTMLExtractor.Page(cap: cap)
        page.walk(doc)
        return page.text.result.text
    }
}
