import Attributes
import ExtractionModel
import Crawling
import SystemCalls
import SystemPackage
import Glibc

/// Extracts the attributes of one file at a time. Create one per thread: it owns a libmagic
/// cookie, which is not thread-safe, and a cache of user and group names.
///
/// A key design decision: the file is opened once (from its byte path, or by the parent of a
/// sandboxed worker, which passes the descriptor: see `CrawledFile`), and read at most
/// `textCap + 1` bytes. The first 64 KiB go to the type detection (`ContentTyping`); the rest is read
/// only when a content extractor wants the file. No extractor opens the file again.
///
/// For example:
/// ```swift
/// let context = try ExtractionContext(options: .init())
/// let result = context.extract(try FileFacts.read("/home/ada/report.html"))
/// result.attributes.title          // "Quarterly report"
/// result.attributes.contentType    // public.html
/// ```
///
/// After the content extractor, an item with at least 100 bytes of text and no `language` of
/// its own gets one from `LanguageIdentifier` when it is confident (trace stage `language`).
///
/// Non-regular files (directories, symlinks, FIFOs, sockets, devices) are never opened: they
/// get their facts and a type from their file type (and a symlink its `symlinkTarget`, read
/// with `readlink(2)`).
///
/// Cost: about 0.4–0.5 ms per file on one core (release build, 3,000 files of `/usr/share/doc`,
/// measured by `ExtractionContextTests.throughput`), of which libmagic was about 0.19 ms before
/// `ContentTyping` asked it only when a file's name and shared-mime-info's magic leave the type open.
package final class ExtractionContext {
    package private(set) var options: ExtractionOptions
    let typing: ContentTyping
    private var names = UserNameCache()
    /// The OCR recognizer, made on the first picture to read (`textRecognizer(_:)`).
    var recognizer: TextRecognizer?

    /// What the context had to do without (no MIME database, ...), for the caller to log once.
    package let diagnostics: [String]
    /// Called with a content extractor's name just before it runs: a worker process reports it
    /// to its parent, so that a crash is blamed on the right extractor.
    package var willRun: ((String) -> Void)?

    /// Bytes given to the type detection.
    static let sniffBytes = MagicDatabase.bytesMax

    package init(options: ExtractionOptions = ExtractionOptions()) throws(ExtractionError) {
        LibXML.silenceThisThread()
        self.options = options
        typing = try ContentTyping()
        diagnostics = [MIMEDatabase.shared.diagnostic, Self.languageDiagnostic].compactMap { $0 }
    }

    /// Loads what text extraction would otherwise load lazily from disk: the language models
    /// and iconv's converters (glibc dlopens a gconv module per charset family). A worker calls
    /// this before it installs a sandbox that forbids opening or mapping new files.
    package static func preloadTextSupport() {
        _ = LanguageIdentifier.shared
        Charsets.preloadConverters()
    }

    /// A note when libexttextcat's models are missing: items then get no `language`.
    static var languageDiagnostic: String? {
        LanguageIdentifier.dataAvailable ? nil
            : "no language models in \(LanguageIdentifier.dataDirectory) (install libexttextcat-data); items get no language"
    }

    /// Extracts with another text cap than the context was made with (a worker serves parents
    /// with different settings).
    package func extract(_ facts: FileFacts, textCap: Int, from source: Source = .path) -> ExtractionResult {
        options.textCap = max(0, textCap)
        return extract(facts, from: source)
    }

    /// Extracts `facts`'s file, read from `source` (a regular file's descriptor is closed when
    /// this returns, whatever happens).
    package func extract(_ facts: FileFacts, from source: Source = .path) -> ExtractionResult {
        if case .descriptor(let fd) = source, facts.type != .regular { SystemCall.close(fd) }
        let fsStart = ContinuousClock.now
        var attributes = ExtractorRegistry.fileSystem.attributes(of: facts, names: &names)
        var problems: [ExtractionError] = []
        var trace = [ExtractorRun(name: ExtractorRegistry.fileSystem.name, seconds: Self.seconds(since: fsStart), keys: attributes.keys)]

        guard facts.type == .regular else {
            let detection = TypeDetector.nonRegular(facts.type)
            Self.record(detection, in: &attributes)
            if facts.type == .symlink, let target = Self.readLink(facts.path) {
                attributes[.symlinkTarget] = .string(String(decoding: target, as: UTF8.self))
            }
            return ExtractionResult(attributes: attributes, problems: [], extractorVersion: ExtractionVersions.version(of: nil))
        }

        let typeStart = ContinuousClock.now
        let name = facts.path.lastComponent.map(\.bytes) ?? facts.pathBytes
        let limit = options.textCap + 1
        var bytes: [UInt8] = []
        var atEnd = false
        var readable = false
        var file: OpenFile?
        do throws(ExtractionError) {
            let f = try OpenFile(facts, from: source)
            file = f
            (bytes, atEnd) = try f.read(upTo: min(limit, Self.sniffBytes), appendingTo: [])
            readable = true
        } catch {
            problems.append(error)
        }

        let typed = typing.type(name: name, bytes: bytes, fileSize: facts.size, isEmpty: readable ? bytes.isEmpty : facts.size == 0)
        let detection = typed.detection
        Self.record(detection, in: &attributes)
        trace.append(ExtractorRun(name: "type", seconds: Self.seconds(since: typeStart),
                                  keys: [.contentType, .contentTypeTree, .mimeType, .kind]))

        var input = ExtractionInput(facts: facts, bytes: bytes, isComplete: atEnd && bytes.count <= options.textCap,
                                    detection: detection, magicCharset: typed.charset, textCap: options.textCap)
        // A single compressed file (`cp.1.gz`): its decompressed bytes go to the extractor of
        // their own type; on failure the file is listed as an archive, as before, and the
        // reason recorded.
        var inner: InnerFile?
        var undecompressed = false
        if readable, let encoding = ContentEncoding(detection: detection), let f = file {
            var outer = input
            outer.file = ExtractionFile(descriptor: f.fd, size: f.size)
            let start = ContinuousClock.now
            do throws(ExtractionError) {
                inner = try openCompressed(outer, encoding: encoding, name: name)
            } catch {
                problems.append(error)
                undecompressed = true
            }
            trace.append(ExtractorRun(name: CompressedFile.extractorName, seconds: Self.seconds(since: start), keys: [.contentEncoding]))
        }
        if let inner {
            attributes[.contentEncoding] = .string(inner.encoding.rawValue)
            attributes.contentTypeTree = Self.merged(detection.contentTypeTree, inner.detection.contentTypeTree)
        }
        let extractor = inner?.extractor ?? (readable ? ExtractorRegistry.extractor(for: input) : nil)
        if inner?.extractor == nil, extractor != nil, let f = file, !atEnd, bytes.count < limit {
            do throws(ExtractionError) {
                (bytes, atEnd) = try f.read(upTo: limit, appendingTo: bytes)
            } catch {
                problems.append(error)   // keep what was read
            }
            input.bytes = bytes
            input.isComplete = atEnd && bytes.count <= options.textCap
        }
        if extractor == nil || inner?.extractor != nil { file = nil }   // closes; an extractor of the file itself gets it as `input.file`

        var children: [ChildItem] = []
        if let extractor {
            let before = Set(attributes.keys)
            let start = ContinuousClock.now
            willRun?(extractor.name)
            var output = ExtractionOutput(attributes: attributes)
            if let inner, inner.extractor != nil {
                // The inner file's extractor sees (and may refine) the inner type; the item
                // keeps the outer type, with the inner one's tree beside it.
                input = inner.input
                Self.record(inner.detection, in: &output.attributes)
            } else if let f = file {
                input.file = ExtractionFile(descriptor: f.fd, size: f.size)
            }
            do throws(ExtractionError) {
                try extractor.extract(input, into: &output)
            } catch where !undecompressed {
                problems.append(error)
            } catch {
                // The archive extractor's listing of a stream that cannot be decompressed: its
                // reason is the one already recorded.
            }
            input.file = nil
            attributes = output.attributes
            if let inner, inner.extractor != nil {
                let innerTree = attributes.contentTypeTree
                Self.record(detection, in: &attributes)
                attributes.contentTypeTree = Self.merged(detection.contentTypeTree, innerTree)
            }
            children = output.children
            attributes[.extractor] = .string(extractor.name)
            trace.append(ExtractorRun(name: extractor.name,
                                      seconds: Self.seconds(since: start),
                                      keys: attributes.keys.filter { !before.contains($0) || $0 == .title }))
            let languageStart = ContinuousClock.now
            // Program text and archive listings are not a natural language (source code would
            // all come out as English, from its keywords), and they are a third of a typical
            // tree: classifying them cost about a quarter of a crawl's CPU.
            let tree = inner?.extractor != nil ? inner!.detection.contentTypeTree : detection.contentTypeTree
            let prose = !tree.contains { Self.notProse.contains($0) }
            let asked = prose && attributes[.language] == nil
                && attributes.textContent.map { $0.utf8.count >= LanguageIdentifier.minimumBytes } == true
            let found = prose ? Self.addLanguage(to: &attributes) : nil
            for i in children.indices { _ = Self.addLanguage(to: &children[i].attributes) }
            if asked || !children.isEmpty {
                trace.append(ExtractorRun(name: "language", seconds: Self.seconds(since: languageStart), keys: found == nil ? [] : [.language]))
            }
        }
        file = nil   // closes
        if !problems.isEmpty {
            attributes[.extractionError] = .string(problems.map(\.description).joined(separator: "; "))
        }
        return ExtractionResult(attributes: attributes, problems: problems, extractor: extractor?.name,
                                extractorVersion: ExtractionVersions.version(of: extractor?.name),
                                children: children, trace: trace)
    }

    /// Types whose text gets no `language`.
    static let notProse: Set<ContentType> = ["public.source-code", "public.archive", "public.json", "public.xml-property-list"]

    /// Sets `language` from the text when the extractor did not, the text is long enough and
    /// the identifier is confident (see `LanguageIdentifier`). Returns what it set.
    static func addLanguage(to attributes: inout AttributeSet) -> String? {
        guard attributes[.language] == nil, let text = attributes.textContent,
              text.utf8.count >= LanguageIdentifier.minimumBytes,
              let language = LanguageIdentifier.shared?.language(of: text)
        else { return nil }
        attributes[.language] = .string(language)
        return language
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func record(_ d: TypeDetection, in attributes: inout AttributeSet) {
        attributes.contentType = d.contentType
        attributes.contentTypeTree = d.contentTypeTree
        attributes[.mimeType] = .string(d.mimeType)
        attributes.kind = d.kind
    }

    /// The target of a symlink, with `readlink(2)` (which never opens the target).
    static func readLink(_ path: FilePath) -> [UInt8]? {
        try? path.withPlatformString { SystemCall.readLink(at: AT_FDCWD, $0) }.get()
    }

    /// Where the bytes of a regular file come from.
    package enum Source {
        /// Open the file by its path (in-process extraction, tests).
        case path
        /// A descriptor the parent opened and passed (a sandboxed worker, which may not open the
        /// file by name). The context takes it over and closes it.
        case descriptor(Int32)
        /// The parent could not open the file: extraction goes on with what is known without
        /// its bytes, and this error is recorded.
        case failed(ExtractionError)
    }

    /// An open regular file, checked to be the one the crawl saw; closed on release.
    private final class OpenFile {
        let fd: Int32
        /// The size `fstat` saw when the file was opened.
        private(set) var size: Int64 = 0

        init(_ facts: FileFacts, from source: Source) throws(ExtractionError) {
            switch source {
            case .path:
                (fd, size) = try CrawledFile.open(facts)
            case .descriptor(let passed):
                fd = passed
                size = try CrawledFile.check(passed, against: facts)   // deinit closes on a throw
            case .failed(let error):
                throw error
            }
        }

        deinit { SystemCall.close(fd) }

        /// Reads until `count` bytes are held or the file ends (a file that shrank simply ends
        /// early). Returns the bytes and whether the end of the file was reached.
        ///
        /// Buffers are sized from the size `fstat` gave (plus a little, to see the end without one
        /// more call), not from `count`: reserving the 1 MiB cap for every small text file cost
        /// more than the rest of its extraction.
        func read(upTo count: Int, appendingTo start: [UInt8]) throws(ExtractionError) -> ([UInt8], Bool) {
            var bytes = start
            let expected = Swift.min(count, Int(clamping: Swift.max(size, 0)) + 1)
            bytes.reserveCapacity(Swift.max(expected, bytes.count + 4096))
            while bytes.count < count {
                let offset = bytes.count
                let want = Swift.min(count - offset, Swift.max(expected - offset, 4096), 1 << 20)
                var failure: Int32 = 0
                var n = 0
                bytes.append(contentsOf: repeatElement(0, count: want))
                let read = bytes.withUnsafeMutableBytes {
                    SystemCall.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[offset..<(offset + want)]), at: Int64(offset))
                }
                switch read {
                case .success(let got): n = got
                case .failure(let e): failure = e.rawValue; n = -1
                }
                bytes.removeLast(want - Swift.max(n, 0))
                if failure != 0 { throw CrawledFile.unreadable(failure) }
                if n == 0 { return (bytes, true) }
            }
            return (bytes, false)   // not known yet; a later read finds out if it matters
        }
    }
}
