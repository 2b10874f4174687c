import ArgumentParser
import Attributes
import CommandSupport
import FoundationEssentials
import Indexing
import Isolation
import SystemCalls
import SystemPackage
import Thumbnails
import Updating
import Glibc

extension FSIndexCommand {
    /// `fsindex thumbnail PATH|DOMAIN:ID`: Core Spotlight's `thumbnailData`/`thumbnailURL`, from
    /// the freedesktop thumbnail cache every file manager shares.
    struct Thumbnail: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the path of a file's thumbnail, making it when missing.",
            discussion: """
                Looks in the freedesktop thumbnail cache ($XDG_CACHE_HOME/thumbnails, else
                ~/.cache/thumbnails), where Files, Dolphin and others keep theirs; a thumbnail
                counts only while its Thumb::MTime is the file's modification time. When there is
                none, makes one in the sandboxed worker (images through gdk-pixbuf, the first page
                of a PDF through poppler), writes it to the cache (128 pixels, 256 with --large)
                and prints its path. A file that could not be thumbnailed is recorded in
                thumbnails/fail/fsindex-0.27/ and not tried again until it changes.

                A donated item (DOMAIN:ID) prints the thumbnail its app donated (thumbnailData),
                written to $XDG_CACHE_HOME/fsindex/thumbnails/.

                Exit status: 0 a thumbnail's path was printed; 1 there is none to be had (a type
                without a thumbnailer, a file that failed, an item donated without one); 2 an
                error (no such file, a cache that cannot be written).

                Examples:
                  fsindex thumbnail ~/Pictures/cat.jpg
                  fsindex thumbnail --large ~/Documents/report.pdf
                  fsindex thumbnail notes:n-42
                """)

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Make a large thumbnail (256 pixels) rather than a normal one (128).")
        var large = false

        @Flag(name: .long, help: "Print a JSON object: path, uri, size.")
        var json = false

        @Argument(help: ArgumentHelp("A file, or a donated item as DOMAIN:ID.", valueName: "path"))
        var path: String

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let argument = PathArgument.item(path)
                let size: ThumbnailSize = large ? .large : .normal
                let thumbnail: FilePath
                var uri: String?
                if ItemIdentifier(bytes: argument).isDonated {
                    thumbnail = try donated(argument)
                } else {
                    var file = FilePath(bytes: argument)
                    // A symlink's thumbnail is its target's, as file managers show it.
                    var st = stat()
                    if file.withPlatformString({ lstat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFLNK,
                       let resolved = file.withPlatformString({ realpath($0, nil) }) {
                        file = FilePath(platformString: resolved)
                        free(resolved)
                    }
                    let cache = ThumbnailCache.user()
                    if let found = cache.existing(forFile: file, atLeast: size) {
                        thumbnail = found   // no worker, no settings: the cache answers
                    } else {
                        let settings = try store.settings()
                        let worker = ExtractionWorker(executable: try WorkerExecutable.locate(), limits: settings.workerLimits)
                        defer { worker.stop() }
                        do throws(ThumbnailError) {
                            thumbnail = try cache.ensure(forFile: file, size: size, worker: worker)
                        } catch {
                            switch error {
                            case .unsupportedType, .failed, .failedBefore: throw CommandFailure(error.description, status: 1)
                            default: throw CommandFailure(error.description)
                            }
                        }
                    }
                    uri = FileURI.of(file)
                }
                let out = Output.standardOutput
                if json {
                    var object: [String: String] = ["path": ByteString.escaped(thumbnail.bytes)]
                    if let uri { object["uri"] = uri; object["size"] = size.rawValue }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    out.write(String(decoding: try encoder.encode(object), as: UTF8.self) + "\n")
                } else {
                    out.write(ByteString.escaped(thumbnail.bytes, escapeControls: out.isTerminal) + "\n")
                }
                out.flush()
            }
        }

        /// The donated thumbnail of an app's item, written out for programs that want a file.
        private func donated(_ identifier: [UInt8]) throws -> FilePath {
            let shown = String(decoding: identifier, as: UTF8.self)
            let index = try IndexStore(location: store.location(), readOnly: true)
            guard let data = try index.donatedThumbnail(ItemIdentifier(bytes: identifier)) else {
                throw CommandFailure(ThumbnailError.noDonatedThumbnail(item: shown).description, status: 1)
            }
            do throws(ThumbnailError) {
                return try DonatedThumbnails.user().write(data, for: identifier)
            } catch {
                throw CommandFailure(error.description)
            }
        }
    }
}
