import Attributes
import Crawling
import Extraction
import ExtractionModel
import SystemPackage
import Glibc

/// The entry points of `fsindex-fuzz` into our own parsers of hostile bytes: the RTF tokenizer,
/// the image and audio header readers, libavformat behind `VideoExtractor`, the mail structure scanner and the zip container.
///
/// They live here, in the fuzzer, not in Extraction: the readers are `package`, not public, so
/// nothing outside this package reaches them, and the worker ships no fuzzing code. Each hook
/// takes the bytes of a whole file, as an extractor would get a complete small file, and runs
/// the reader the way its extractor does. A hook either returns or traps; a trap is the finding.
/// Where a reader has a property that must hold for every input (the mail scanner gives the same
/// cuts however its input is chunked), the hook checks it and traps with a message that says
/// which property broke.
enum ExtractionFuzzing {
    /// An input as an extractor sees a complete file of `contentType`, with no open descriptor.
    static func input(_ bytes: [UInt8], contentType: ContentType, textCap: Int = 1 << 20) -> ExtractionInput {
        let facts = FileFacts(path: FilePath("/fuzz/input"), type: .regular, size: Int64(bytes.count), permissions: 0o644,
                              uid: 0, gid: 0, device: 0, inode: 1, linkCount: 1, accessNanos: 0, modificationNanos: 0,
                              changeNanos: 0, birthNanos: nil, allocatedSize: Int64(bytes.count))
        var input = ExtractionInput(facts: facts, bytes: bytes, isComplete: true, contentType: contentType,
                                    contentTypeTree: [contentType, "public.data", "public.item"], mimeType: "application/octet-stream",
                                    magicCharset: nil)
        input.textCap = textCap
        return input
    }

    /// The RTF extractor on `bytes`, with the full text cap and again with a tiny one (so that
    /// the cap falls inside multi-byte characters and groups). Errors are outcomes, not findings.
    static func rtf(_ bytes: [UInt8]) {
        for cap in [1 << 20, 7] {
            var attributes = AttributeSet()
            try? RTFExtractor().extract(input(bytes, contentType: "public.rtf", textCap: cap), into: &attributes)
            if let text = attributes.textContent, text.utf8.count > cap {
                fatalError("rtf: \(text.utf8.count) bytes of text with a cap of \(cap)")
            }
        }
    }

    /// `ImageHeader` on the whole file, then on its first half as if the rest were unreadable.
    static func imageHeader(_ bytes: [UInt8]) {
        for head in [bytes, Array(bytes.prefix(bytes.count / 2))] {
            let h = ImageHeader(MediaSource(head: head, size: bytes.count, file: nil))
            if let w = h.width, w < 0 { fatalError("image: negative width \(w)") }
            if let v = h.height, v < 0 { fatalError("image: negative height \(v)") }
        }
    }

    /// `VideoExtractor` (libavformat, loaded on the first input) on the bytes as a file it
    /// reads through a descriptor: a temporary file, gone when closed. libavformat picks the
    /// demuxer from the bytes, so one declared type covers every container it reads. Errors are
    /// outcomes; a duration or size that is negative or not finite is a finding.
    static func media(_ bytes: [UInt8]) {
        guard let f = tmpfile() else { fatalError("media: tmpfile: errno \(errno)") }
        defer { fclose(f) }
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, f) }) == bytes.count, fflush(f) == 0 else {
            fatalError("media: cannot write the temporary file: errno \(errno)")
        }
        var i = input(bytes, contentType: "public.mpeg-4")
        i.contentTypeTree = ["public.mpeg-4", "public.movie", "public.audiovisual-content", "public.data", "public.item"]
        i.mimeType = "video/mp4"
        i.file = ExtractionFile(descriptor: fileno(f), size: Int64(bytes.count))
        var attributes = AttributeSet()
        try? VideoExtractor().extract(i, into: &attributes)
        if case .double(let d)? = attributes[.duration], !(d > 0) || !d.isFinite { fatalError("media: duration \(d)") }
        for key in [AttributeKey.pixelWidth, .pixelHeight, .totalBitRate, .audioSampleRate, .audioChannelCount] {
            if case .integer(let n)? = attributes[key], n <= 0 { fatalError("media: \(key.rawValue) \(n)") }
        }
    }

    /// `AudioHeader` (and the container sniffer) on the whole file and on its first half.
    static func audioHeader(_ bytes: [UInt8]) {
        _ = AudioHeader.sniff(bytes)
        for head in [bytes, Array(bytes.prefix(bytes.count / 2))] {
            let h = AudioHeader(MediaSource(head: head, size: bytes.count, file: nil))
            if let d = h.duration, !(d >= 0) || d.isInfinite { fatalError("audio: duration \(d)") }
            if let n = h.mpegAudioBytes, n < 0 { fatalError("audio: \(n) bytes of MPEG audio") }
        }
    }

    /// `MailStructureScanner` with a small limit taken from the first byte (so that cuts happen
    /// on small inputs), fed the rest at once and then in chunks whose sizes come from the
    /// input: both must give the same cuts, in order, each starting at a line start.
    static func mailStructure(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let mailbox = first & 0x80 != 0, limit = Int(first & 0x0F)
        let body = Array(bytes.dropFirst())
        var whole = MailStructureScanner(mailbox: mailbox, limit: limit)
        body.withUnsafeBufferPointer { whole.feed($0, at: 0) }
        var chunked = MailStructureScanner(mailbox: mailbox, limit: limit)
        var offset = 0
        while offset < body.count, !chunked.done {
            let n = min(body.count - offset, 1 + Int(body[offset] % 13))
            body[offset..<(offset + n)].withUnsafeBufferPointer { chunked.feed($0, at: Int64(offset)) }
            offset += n
        }
        let a = whole.excluded.map { [$0.start, $0.end ?? -1] }, b = chunked.excluded.map { [$0.start, $0.end ?? -1] }
        if a != b { fatalError("mail structure: cuts \(a) fed at once, \(b) fed in chunks") }
        var previous: Int64 = -1
        for cut in whole.excluded {
            if cut.start <= previous || (cut.start > 0 && body[Int(cut.start) - 1] != 0x0A) {
                fatalError("mail structure: cut at \(cut.start) is not at a new line start")
            }
            if let end = cut.end, end < cut.start { fatalError("mail structure: cut \(cut.start)..<\(end) ends before it starts") }
            previous = cut.end ?? Int64.max
        }
    }

    /// `ZipContainer` reading every member of `bytes`, then resolving each member name against
    /// the first (as OOXML relationships and EPUB `href`s are).
    static func zip(_ bytes: [UInt8]) {
        let limits = ArchiveReader.Limits(maxEntries: 200, maxEntryBytes: 1 << 20, maxTotalBytes: 4 << 20, maxRatio: 200, ratioFloor: 1 << 20)
        guard let zip = try? ZipContainer.read(input(bytes, contentType: "public.zip-archive"), extractor: "zip", limits: limits,
                                               wanted: { _ in true }) else { return }
        let base = zip.names.first ?? ""
        for name in zip.names {
            _ = ZipContainer.resolve(name, against: base)
            _ = ZipContainer.resolve(base, against: name)
        }
    }
}
