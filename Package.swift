// swift-tools-version:6.1
// FSIndex: Spotlight-class file search for Linux.
//
// The folder tree is the data flow: Crawling -> ExtractionModel (+ Extraction, in workers only)
// -> Indexing -> Querying, glued by Updating (one crawl into the index; Summarizing's
// extractive summaries are made in the workers, and of donated texts after their batch),
// Watching (fsindexd's writer) and the thin executables. The parent processes (fsindex,
// fsindexd, fsfind) link no parser: Extraction and its C libraries are linked only by
// fsindex-worker, through WorkerRuntime; Isolation is the parent's side of a worker.
// Querying knows only the index (Attributes, Indexing); SharedQuerying is the shared
// PostgreSQL index behind the same SearchBackend; CommandSupport gives every front end its
// options, its error reporting and how it opens an index (the repair policy, fsindexd's live
// changes). Thumbnails is the freedesktop thumbnail cache on the parent's side (the worker
// decodes and renders, the parent checks and writes). SystemCalls is the one place that
// calls the C library for files, sockets and processes; Sources/CLibraries holds the C targets. The fsindex executable is also fsindexd,
// fsindex-mcp and fsfind-direct (DaemonCommand, Agent, FindCommand), by the name it is started
// under: the Debian package (Config/packaging/build-deb) installs one executable, not four.
import Foundation
import CompilerPluginSupport
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// `Tests/Harnesses/fuzz.sh` builds with FSINDEX_FUZZ_BUILD=1: libFuzzer's coverage and
/// AddressSanitizer in every Swift target of ours but the macro. Why not `-Xswiftc`: it reaches
/// the macro too, which runs inside the compiler as a program of its own, and gold cannot link
/// that program with the sanitizers (an internal error in its DWARF reader).
let fuzzing = ProcessInfo.processInfo.environment["FSINDEX_FUZZ_BUILD"] == "1"
let sanitized: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []
let strict = upcoming + sanitized

/// How the release executables are linked, for size (issue 26): lld, which packs relative
/// relocations (DT_RELR, glibc 2.36: 3 MB less in a static executable), and no dynamic symbol
/// table (the static standard library exports every symbol of ours: 4 MB that nothing looks up);
/// every symbol bound at start (`-z now`: the relocation table then read-only, as Debian hardens).
/// `-lcurl`, which Foundation's networking asks for, finds an empty archive first: CNoCurl
/// defines the functions, and no executable of ours loads libcurl and its 28 libraries (6 ms of
/// every start of the multi-call fsindex).
let noCurl = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Sources/CLibraries/CNoCurl/lib"
let small: [LinkerSetting] = [
    .unsafeFlags(["-L", noCurl, "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                  "-Xlinker", "-z", "-Xlinker", "now"],
                 .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "FSIndex",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fsindex", targets: ["fsindex"]),
        .executable(name: "fsfind", targets: ["fsfind"]),
        .executable(name: "fsfind-direct", targets: ["fsfind-direct"]),
        .executable(name: "fsindexd", targets: ["fsindexd"]),
        .executable(name: "fsindex-worker", targets: ["fsindex-worker"]),
        .executable(name: "fsindex-mcp", targets: ["fsindex-mcp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The Model Context Protocol, for fsindex-mcp only (the other tools do not link it).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // `@MemberwiseInit`: the `package init` Swift writes only as `internal` (a build-time
        // plugin; nothing of swift-syntax is linked into an executable).
        .macro(name: "MemberwiseInitMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], swiftSettings: upcoming),
        .target(name: "MemberwiseInit", dependencies: ["MemberwiseInitMacros"], swiftSettings: strict),
        // C libraries of the field, through tiny system-library shims.
        .systemLibrary(name: "CMagic", path: "Sources/CLibraries/CMagic", providers: [.apt(["libmagic-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/CLibraries/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CPoppler", path: "Sources/CLibraries/CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev"])]),
        .systemLibrary(name: "CGMime", path: "Sources/CLibraries/CGMime", pkgConfig: "gmime-3.0", providers: [.apt(["libgmime-3.0-dev"])]),
        .systemLibrary(name: "CExif", path: "Sources/CLibraries/CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CExempi", path: "Sources/CLibraries/CExempi", pkgConfig: "exempi-2.0", providers: [.apt(["libexempi-dev"])]),
        .systemLibrary(name: "CIPTC", path: "Sources/CLibraries/CIPTC", pkgConfig: "libiptcdata", providers: [.apt(["libiptcdata0-dev"])]),
        .systemLibrary(name: "CTagLib", path: "Sources/CLibraries/CTagLib", pkgConfig: "taglib_c", providers: [.apt(["libtagc0-dev"])]),
        .systemLibrary(name: "CArchive", path: "Sources/CLibraries/CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CUchardet", path: "Sources/CLibraries/CUchardet", pkgConfig: "uchardet", providers: [.apt(["libuchardet-dev"])]),
        .systemLibrary(name: "CStemmer", path: "Sources/CLibraries/CStemmer", providers: [.apt(["libstemmer-dev"])]),
        .systemLibrary(name: "CTextCat", path: "Sources/CLibraries/CTextCat", pkgConfig: "libexttextcat", providers: [.apt(["libexttextcat-dev"])]),
        .systemLibrary(name: "CGsf", path: "Sources/CLibraries/CGsf", pkgConfig: "libgsf-1", providers: [.apt(["libgsf-1-dev"])]),
        // Images decoded and PNGs written for thumbnails, in the worker only (issue 27).
        .systemLibrary(name: "CGdkPixbuf", path: "Sources/CLibraries/CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0", providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        // OpenBLAS's matrix product (issue 43), for the sentence encoder: loaded with dlopen by
        // the processes that embed text only (libopenblas0; see blas.c).
        .target(name: "CBLASLoader", path: "Sources/CLibraries/CBLASLoader", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CSeccomp", path: "Sources/CLibraries/CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
        // Linux calls the Glibc module does not export (statx, prctl, ...).
        .target(name: "CSysShims", path: "Sources/CLibraries/CSysShims"),
        // fsindexd's global executor: Swift's global jobs on libdispatch's overcommit queue, so
        // the process has no once-a-second workqueue monitor (issue 14; see the header).
        .target(name: "CGlobalExecutor", path: "Sources/CLibraries/CGlobalExecutor"),
        // sd-bus (libsystemd): the desktop's search providers; the vtables and variadic calls
        // that do not import into Swift are wrapped in C.
        .target(name: "CSDBus", path: "Sources/CLibraries/CSDBus", linkerSettings: [.linkedLibrary("systemd")]),
        // ICU's data, trimmed to what FSIndex's processes use (Config/packaging/trim-icu-data):
        // every executable that links Foundation depends on it.
        .target(name: "CICUData", path: "Sources/CLibraries/CICUData"),
        // libcurl's functions as URLSession calls them, each stopping the process: no executable
        // of ours makes an HTTP request, and the MCP SDK's transport would load libcurl and 28
        // libraries with it at every start (Sources/CLibraries/CNoCurl/nocurl.c).
        .target(name: "CNoCurl", path: "Sources/CLibraries/CNoCurl", exclude: ["lib"]),
        // TagLib through a descriptor (C++: the C API opens files only by name).
        .target(name: "CTagLibStream", path: "Sources/CLibraries/CTagLibStream", linkerSettings: [.linkedLibrary("tag")]),
        // OCR (issue 28): Tesseract's C API, loaded with dlopen by the worker that runs OCR only
        // (libtesseract-dev for the header; linking it cost every worker's start 38 ms; see tesseract.c).
        .target(name: "CTesseract", path: "Sources/CLibraries/CTesseract"),
        // Video and the audio containers TagLib misses (issue 28): libavformat, loaded by the
        // worker on its first media file (dlopen), not linked: its 134 libraries would cost every
        // worker start. Built against libavformat-dev's headers; runs with libavformat59.
        .target(name: "CMediaProbe", path: "Sources/CLibraries/CMediaProbe"),
        // The one system-call layer: Result<_, Errno> with EINTR retried, threads, process
        // spawning, FilePath <-> bytes.
        .target(name: "SystemCalls", dependencies: ["MemberwiseInit",
            "CSysShims",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),

        // The settings: one TOML reader with typed sections, for every program.
        .target(name: "Configuration", dependencies: ["MemberwiseInit",
            "Attributes", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ], swiftSettings: strict),

        // Stage 0: the vocabulary. Imports nothing of ours.
        .target(name: "Attributes", dependencies: ["MemberwiseInit"], swiftSettings: strict),
        // Stage 1b: what apps donate (Core Spotlight's items from apps): JSON lines into items of
        // a domain, with their limits. The other way in beside the crawl.
        .target(name: "Donating", dependencies: ["Attributes"], swiftSettings: strict),
        // Stage 1: roots, the byte-exact directory walker, exclusion rules, file facts.
        .target(name: "Crawling", dependencies: ["MemberwiseInit",
            "CSysShims", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 2's vocabulary, parser-free: results, errors, child items, extractor versions, the
        // file-system attributes and a file's type from its name. The parent processes link this,
        // never `Extraction`.
        .target(name: "ExtractionModel", dependencies: ["MemberwiseInit",
            "Attributes", "Crawling", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 2: a file's facts and bytes in, an attribute set out, through the C parsers.
        // Linked only by `fsindex-worker` (through `WorkerRuntime`), never by the parent.
        .target(name: "Extraction", dependencies: ["MemberwiseInit",
            "Attributes", "Crawling", "ExtractionModel", "SystemCalls", "CMagic", "CLibXML2",
            "CPoppler", "CGMime", "CExif", "CExempi", "CIPTC", "CTagLib", "CTagLibStream", "CArchive", "CUchardet", "CTextCat", "CGsf", "CGdkPixbuf",
            "CTesseract",
            "CMediaProbe",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 2b, the parent's side: extraction in sandboxed worker processes (spawning, limits,
        // timeouts) and the worker protocol (requests and file descriptors on a Unix socket). Links no parser.
        .target(name: "Isolation", dependencies: ["MemberwiseInit",
            "Attributes", "Crawling", "ExtractionModel", "CSysShims", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 2b, the worker's side: rlimits, seccomp, and the loop that answers the parent.
        .target(name: "WorkerRuntime", dependencies: ["MemberwiseInit",
            "Attributes", "Crawling", "Extraction", "ExtractionModel", "Isolation", "Summarizing", "CSysShims", "CSeccomp", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // The FTS5 tokenizer for every script (unicode61, with Han, Kana and Hangul in bigrams),
        // and the zstd compression of the stored full text (fsindex_zip/fsindex_unzip; zlib reads older indexes).
        .target(name: "CFTS5CJK", path: "Sources/CLibraries/CFTS5CJK", linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("z"), .linkedLibrary("zstd"), .linkedLibrary("m")]),
        // The freedesktop thumbnail cache (issue 27): reading it (names, validity, failure
        // entries), writing to it atomically, and having missing thumbnails made by a worker.
        // Links no image library: the pixels are decoded and encoded in the worker only.
        .target(name: "Thumbnails", dependencies: [
            "Crawling", "Isolation", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 3: the SQLite/FTS5 store with Core Spotlight's index contract.
        .target(name: "Indexing", dependencies: ["MemberwiseInit",
            "Attributes", "CFTS5CJK",
            "SystemCalls",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // The shared index on a PostgreSQL server (issue 15): schema, publishing a local index's
        // items to it, and the connection; the query side is SharedQuerying.
        .target(name: "SharedIndex", dependencies: ["MemberwiseInit",
            "Attributes", "CFTS5CJK", "CSysShims", "Indexing", "SystemCalls",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 3b: what a text means, as a vector (issue 43): the sentence encoder
        // (all-MiniLM-L6-v2 through OpenBLAS), its tokenizer and the model's files.
        .target(name: "Embedding", dependencies: [
            "CBLASLoader", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 4: queries over an index (`SearchBackend`): the language, the SQLite engine and
        // the pipeline every front end runs. Knows only the index: the repair policy and the
        // daemon's live changes are plugged in by the front ends (CommandSupport).
        .target(name: "Querying", dependencies: ["MemberwiseInit",
            "Attributes", "Embedding", "Indexing", "CStemmer",
            .product(name: "GRDB", package: "GRDB.swift"),
            // sqlite3_progress_handler, for the query time limit (QueryDeadline).
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // Stage 4b: the shared index as a `SearchBackend` (the same QuerySpecs compiled to
        // PostgreSQL), linked only by the front ends that may query a server.
        .target(name: "SharedQuerying", dependencies: [
            "Attributes", "Indexing", "Querying", "SharedIndex",
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ], swiftSettings: strict),
        // Stage 2c: extractive summaries (`textContentSummary`), pure Swift: made by the worker
        // with each text, and by Updating's pass for donated texts.
        // Imports nothing of ours: text in, two or three of its sentences out.
        .target(name: "Summarizing", swiftSettings: strict),
        // Glue for one crawl: walk, extract, write batches (a bulk load for thousands); the
        // summary pass for donated texts.
        .target(name: "Updating", dependencies: ["MemberwiseInit",
            "Attributes", "Configuration", "Crawling", "Embedding", "ExtractionModel", "Isolation", "Indexing", "Summarizing", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),

        // The daemon's control channel: a Unix socket with JSON lines (status, pause, reindex, subscribe).
        .target(name: "Controlling", dependencies: ["MemberwiseInit",
            "Attributes", "CSysShims", "Indexing", "QueryWire", "SystemCalls",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),

        // fsindexd's core: one writer applying watcher events, reindex requests and signals.
        .target(name: "Watching", dependencies: [
            "Attributes", "Configuration", "Crawling", "Embedding", "ExtractionModel", "Isolation", "Indexing", "Updating", "Controlling", "SystemCalls",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),

        // What the front ends share: output to terminals and pipes, path arguments, and how
        // they open an index (the repair policy, fsindexd's live changes, the shared index).
        // How a front end opens the local index: read-only, with the daemon's repair policy and
        // live changes. Apart from CommandSupport so that the desktop links no ArgumentParser.
        .target(name: "LocalIndex", dependencies: ["MemberwiseInit",
            "Attributes", "Configuration", "Controlling", "Indexing", "Querying",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        .target(name: "CommandSupport", dependencies: ["MemberwiseInit",
            "Attributes", "Configuration", "Controlling", "Crawling", "Indexing", "LocalIndex", "Querying", "SystemCalls",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),

        // The multi-call executable: fsindex, and fsindexd, fsindex-mcp and fsfind-direct when
        // started under those names (the package installs them as links to it).
        .executableTarget(name: "fsindex", dependencies: [
            "DaemonCommand", "Agent", "FindCommand", "Desktop", "DesktopBus", "CICUData", "CNoCurl", "CommandSupport", "LocalIndex", "Attributes", "Donating", "Configuration", "Controlling", "Crawling", "Embedding", "ExtractionModel", "Isolation", "Indexing", "Querying", "SharedIndex", "Thumbnails", "Updating", "SystemCalls",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict, linkerSettings: small),
        // The desktop's searches, opening items and recording their use (search boxes,
        // `fsindex open`, `fsfind --open`).
        .target(name: "Desktop", dependencies: ["MemberwiseInit",
            "Attributes", "Configuration", "Controlling", "Indexing", "LocalIndex", "Querying", "SystemCalls", "Thumbnails",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // GNOME Shell's search provider and KRunner's runner on the session bus.
        .target(name: "DesktopBus", dependencies: ["Desktop", "CSDBus", "Configuration", "Controlling", "Indexing", "Querying", "SystemCalls", "Thumbnails"], swiftSettings: strict),
        // fsindexd's command: a library, so that the multi-call fsindex can run it too.
        .target(name: "DaemonCommand", dependencies: [
            "Attributes", "CommandSupport", "FindCommand", "Desktop", "Donating", "Configuration", "Watching", "Updating", "Indexing", "SharedIndex", "Controlling", "Crawling", "CGlobalExecutor", "CSysShims", "SystemCalls",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ], swiftSettings: strict),
        .executableTarget(name: "fsindexd", dependencies: ["DaemonCommand", "CICUData"], swiftSettings: strict, linkerSettings: small),
        // One sandboxed extraction process; spawned by `Isolation.WorkerPool`, never by hand.
        .executableTarget(name: "fsindex-worker", dependencies: ["WorkerRuntime"], swiftSettings: strict, linkerSettings: small),
        // The worker with deliberate faults and sandbox probes, for the isolation tests only.
        .executableTarget(name: "fsindex-test-worker", dependencies: ["WorkerRuntime", "Crawling", "CSysShims", "CSeccomp",
            .product(name: "SystemPackage", package: "swift-system")], path: "Tests/TestWorker"),
        // The index as a tool for language-model agents (Apple's SpotlightSearchTool/FileSource over
        // MCP): tools, their schemas, scopes, guidance, the compact format and resources. Only
        // fsindex-mcp links it, and with it the MCP SDK.
        .target(name: "Agent", dependencies: [
            "Attributes", "CommandSupport", "LocalIndex", "Configuration", "Controlling", "Indexing", "Querying", "SharedIndex", "SharedQuerying", "SystemCalls",
            .product(name: "MCP", package: "swift-sdk"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        .executableTarget(name: "fsindex-mcp", dependencies: ["Agent", "CICUData", "CNoCurl"], swiftSettings: strict, linkerSettings: small),
        // The query socket's protocol between the small fsfind and fsindexd: the C library only,
        // no Foundation, so that fsfind starts in a millisecond.
        .target(name: "QueryWire", dependencies: ["CSysShims"], swiftSettings: strict),
        // The fsfind command itself (options, output, exit status), run by fsfind-direct and by
        // fsindexd for the small fsfind (FindService).
        .target(name: "FindCommand", dependencies: ["MemberwiseInit",
            "CommandSupport", "LocalIndex", "Desktop", "Attributes", "Configuration", "Controlling", "Indexing", "Querying", "QueryWire", "SharedIndex", "SharedQuerying", "SystemCalls",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict),
        // fsfind: hands the query to the warm fsindexd over the query socket, or becomes
        // fsfind-direct. Links no Foundation and none of our Swift modules but QueryWire.
        .executableTarget(name: "fsfind", dependencies: ["CSysShims", "QueryWire"], swiftSettings: strict, linkerSettings: small),
        .executableTarget(name: "fsfind-direct", dependencies: ["FindCommand", "CICUData"], swiftSettings: strict, linkerSettings: small),

        // Fuzzing: one libFuzzer executable for every target (Tests/Harnesses/fuzz.sh builds it
        // with -sanitize=fuzzer,address into .build/fuzz); a plain build links CFuzzDriver's
        // weak fallback, which only replays the inputs it is given (the seed corpus, past crashes).
        .target(name: "CFuzzDriver", path: "Sources/CLibraries/CFuzzDriver"),
        .executableTarget(name: "fsindex-fuzz", dependencies: [
            "CFuzzDriver", "Attributes", "ExtractionModel", "Extraction", "Indexing", "Isolation", "Querying", "WorkerRuntime",
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: strict, linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []),

        .target(name: "TestSupport", dependencies: [
            "Attributes", "CSysShims", "SystemCalls", "CArchive",
            .product(name: "SystemPackage", package: "swift-system"),
        ], path: "Tests/TestSupport"),
        // What the tests of the index and the stages above it share: a fresh IndexStore in a
        // temporary tree. Apart from TestSupport, so that the tests below Indexing do not link GRDB.
        .target(name: "IndexTestSupport", dependencies: ["Indexing", "TestSupport"], path: "Tests/IndexTestSupport"),
        .testTarget(name: "MemberwiseInitTests", dependencies: [
            "MemberwiseInitMacros",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "TestSupport"]),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration", "TestSupport"]),
        .testTarget(name: "ExtractionModelTests", dependencies: ["ExtractionModel", "Attributes"]),
        .testTarget(name: "SharedIndexTests", dependencies: ["SharedIndex"]),
        .testTarget(name: "SharedQueryingTests", dependencies: ["SharedQuerying", "SharedIndex", "Querying", "Indexing", "Attributes", "TestSupport", "IndexTestSupport"]),
        .testTarget(name: "QueryWireTests", dependencies: ["QueryWire", "Controlling"]),
        .testTarget(name: "AttributesTests", dependencies: ["Attributes"]),
        .testTarget(name: "CrawlingTests", dependencies: ["Crawling", "SystemCalls", "TestSupport"]),
        .testTarget(name: "ExtractionTests", dependencies: ["Extraction", "ExtractionModel", "Crawling", "Attributes", "TestSupport"]),
        .testTarget(name: "IsolationTests", dependencies: ["Isolation", "Extraction", "ExtractionModel", "Crawling", "Attributes", "Summarizing", "SystemCalls", "TestSupport"]),
        .testTarget(name: "IndexingTests", dependencies: ["Indexing", "Attributes", "CFTS5CJK", "SystemCalls", "TestSupport", "IndexTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "QueryingTests", dependencies: ["Querying", "Embedding", "Updating", "SharedQuerying", "SharedIndex", "LocalIndex", "Configuration", "Indexing", "Controlling", "Attributes", "TestSupport", "IndexTestSupport"]),
        .testTarget(name: "EmbeddingTests", dependencies: ["Embedding", "TestSupport"]),
        .testTarget(name: "SummarizingTests", dependencies: ["Summarizing", "TestSupport"]),
        .testTarget(name: "UpdatingTests", dependencies: ["Configuration", "Embedding", "Updating", "Summarizing", "Indexing", "Querying", "Attributes", "Crawling", "ExtractionModel", "Isolation", "TestSupport", "IndexTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "WatchingTests", dependencies: ["Configuration", "Watching", "Updating", "Isolation", "Indexing", "Crawling", "Controlling", "Attributes", "TestSupport", "IndexTestSupport",
                                                          .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "DaemonCommandTests", dependencies: ["DaemonCommand", "Configuration", "Controlling", "Crawling", "Indexing", "Updating", "Watching", "TestSupport",
                                                              .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "CommandTests", dependencies: [
            "TestSupport", "Indexing", "QueryWire", "SystemCalls",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "DonatingTests", dependencies: ["Donating", "Attributes"]),
        .testTarget(name: "DesktopTests", dependencies: ["Desktop", "Controlling", "Configuration", "Indexing", "Attributes", "TestSupport", "IndexTestSupport"]),
        .testTarget(name: "ThumbnailsTests", dependencies: ["Thumbnails", "Isolation", "Crawling", "SystemCalls", "TestSupport",
                                                            .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "Querying",
                                                       .product(name: "MCP", package: "swift-sdk")]),
        .testTarget(name: "FindCommandTests", dependencies: ["FindCommand", "QueryWire", "Controlling", "Indexing", "Querying", "Attributes", "SystemCalls", "TestSupport"]),
        .testTarget(name: "ControllingTests", dependencies: ["Controlling", "Attributes", "Indexing", "QueryWire", "CSysShims", "SystemCalls", "TestSupport"]),
        // The benchmarks' own tools (the scripts beside them are not compiled): the memory sampler's test.
        .testTarget(name: "BenchmarksTests", path: "Tests/Benchmarks", sources: ["TreeRSSTests.swift"]),
    ]
)
