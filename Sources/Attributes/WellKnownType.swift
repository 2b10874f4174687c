/// A content type FSIndex knows by name: its UTI, parents, MIME types, file extensions and the
/// human word Spotlight shows as *Kind*.
///
/// The table follows Apple's system-declared UTIs for the identifiers and their conformance. The
/// MIME types are the freedesktop shared MIME database's canonical names; aliases are resolved by
/// the database before this table is consulted.
package struct WellKnownType: Sendable, Hashable {
    package let identifier: ContentType
    package let parents: [ContentType]
    package let mimeTypes: [String]
    package let extensions: [String]
    package let kind: String

    init(_ id: ContentType, _ parents: [ContentType], mime: [String] = [], ext: [String] = [], kind: String) {
        self.identifier = id
        self.parents = parents
        self.mimeTypes = mime
        self.extensions = ext
        self.kind = kind
    }

    package static let byIdentifier: [ContentType: WellKnownType] =
        Dictionary(all.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })

    package static let byMIMEType: [String: WellKnownType] = {
        var out: [String: WellKnownType] = [:]
        for t in all { for m in t.mimeTypes where out[m] == nil { out[m] = t } }
        return out
    }()

    package static let byExtension: [String: WellKnownType] = {
        var out: [String: WellKnownType] = [:]
        for t in all { for e in t.extensions where out[e] == nil { out[e] = t } }
        return out
    }()

    // Shorthands for the table below.
    private static let item: [ContentType] = [.item]
    private static let data: [ContentType] = [.data]
    private static let content: [ContentType] = ["public.content"]
    private static let dataContent: [ContentType] = [.data, "public.content"]
    private static let plain: [ContentType] = [.plainText]
    private static let source: [ContentType] = [.sourceCode]
    private static let script: [ContentType] = ["public.script"]
    private static let image: [ContentType] = [.image]
    private static let audio: [ContentType] = [.audio]
    private static let movie: [ContentType] = [.movie]
    private static let archive: [ContentType] = [.archive]
    private static let xml: [ContentType] = [.xml]
    private static let zip: [ContentType] = ["public.zip-archive"]

    package static let all: [WellKnownType] = [
        // Roots.
        .init(.item, [], kind: "Item"),
        .init(.data, item, mime: ["application/octet-stream"], kind: "Document"),
        .init(.content, [], kind: "Content"),
        .init(.directory, item, mime: ["inode/directory"], kind: "Folder"),
        .init(.folder, [.directory], kind: "Folder"),
        .init(.symlink, item, mime: ["inode/symlink"], kind: "Alias"),
        .init(.fifo, item, mime: ["inode/fifo"], kind: "Named pipe"),
        .init(.socket, item, mime: ["inode/socket"], kind: "Socket"),
        .init(.device, item, mime: ["inode/chardevice", "inode/blockdevice"], kind: "Device"),
        .init(.emptyFile, data, mime: ["application/x-zerosize", "inode/x-empty"], kind: "Empty file"),
        .init(.executable, data, mime: ["application/x-executable", "application/x-pie-executable",
              "application/x-sharedlib"], kind: "Executable"),
        .init("public.object-code", [.executable], mime: ["application/x-object"], ext: ["o"], kind: "Object code"),
        // Text.
        .init(.text, dataContent, mime: ["text/*"], kind: "Text"),
        .init(.plainText, [.text], mime: ["text/plain"], ext: ["txt", "text", "log"], kind: "Plain text document"),
        .init("public.utf8-plain-text", plain, kind: "Plain text document"),
        .init("public.delimited-values-text", plain, kind: "Delimited text"),
        .init("public.comma-separated-values-text", ["public.delimited-values-text"], mime: ["text/csv"], ext: ["csv"], kind: "CSV document"),
        .init("public.tab-separated-values-text", ["public.delimited-values-text"], mime: ["text/tab-separated-values"], ext: ["tsv"], kind: "TSV document"),
        .init("net.daringfireball.markdown", plain, mime: ["text/markdown"], ext: ["md", "markdown"], kind: "Markdown document"),
        .init("public.rtf", [.text], mime: ["application/rtf", "text/rtf"], ext: ["rtf"], kind: "RTF document"),
        .init(.html, [.text], mime: ["text/html"], ext: ["html", "htm"], kind: "HTML document"),
        .init(.xml, [.text], mime: ["application/xml", "text/xml"], ext: ["xml"], kind: "XML document"),
        .init(.xhtml, [.html, .xml], mime: ["application/xhtml+xml"], ext: ["xhtml", "xht"], kind: "XHTML document"),
        .init("public.svg-image", [.image, .xml], mime: ["image/svg+xml"], ext: ["svg"], kind: "SVG image"),
        // freedesktop globs *.json as both application/json and application/schema+json.
        .init("public.json", [.text], mime: ["application/json", "application/schema+json"], ext: ["json"], kind: "JSON document"),
        .init("public.yaml", [.text], mime: ["application/yaml", "application/x-yaml"], ext: ["yaml", "yml"], kind: "YAML document"),
        .init("public.toml", [.text], mime: ["application/toml"], ext: ["toml"], kind: "TOML document"),
        .init("public.calendar-event", [.text], mime: ["text/calendar"], ext: ["ics"], kind: "Calendar"),
        .init("public.vcard", [.text], mime: ["text/vcard", "text/x-vcard"], ext: ["vcf"], kind: "Contact"),
        .init("public.subrip-subtitle", plain, mime: ["application/x-subrip"], ext: ["srt"], kind: "Subtitles"),
        .init("org.w3.webvtt", plain, mime: ["text/vtt"], ext: ["vtt"], kind: "Subtitles"),
        .init("com.apple.log", plain, mime: ["text/x-log"], kind: "Log file"),
        .init("public.css", [.text], mime: ["text/css"], ext: ["css"], kind: "CSS stylesheet"),
        // Source code.
        .init(.sourceCode, plain, kind: "Source code"),
        .init("public.script", source, kind: "Script"),
        .init("public.c-source", source, mime: ["text/x-csrc"], ext: ["c"], kind: "C source"),
        .init("public.c-header", source, mime: ["text/x-chdr"], ext: ["h"], kind: "C header"),
        .init("public.c-plus-plus-source", source, mime: ["text/x-c++src"], ext: ["cpp", "cc", "cxx"], kind: "C++ source"),
        .init("public.c-plus-plus-header", source, mime: ["text/x-c++hdr"], ext: ["hpp", "hh", "hxx"], kind: "C++ header"),
        .init("public.swift-source", source, mime: ["text/x-swift"], ext: ["swift"], kind: "Swift source"),
        .init("com.sun.java-source", source, mime: ["text/x-java"], ext: ["java"], kind: "Java source"),
        .init("org.groovy-lang.groovy-source", source, mime: ["text/x-groovy"], ext: ["groovy"], kind: "Groovy source"),
        .init("com.sun.java-properties", plain, mime: ["text/x-java-properties"], ext: ["properties"], kind: "Java properties"),
        .init("com.netscape.javascript-source", script, mime: ["application/javascript", "text/javascript"], ext: ["js", "mjs"], kind: "JavaScript source"),
        .init("public.python-script", script, mime: ["text/x-python", "text/x-python3"], ext: ["py"], kind: "Python script"),
        .init("public.shell-script", script, mime: ["application/x-shellscript", "text/x-shellscript"], ext: ["sh", "bash"], kind: "Shell script"),
        .init("public.perl-script", script, mime: ["application/x-perl", "text/x-perl"], ext: ["pl", "pm"], kind: "Perl script"),
        .init("public.ruby-script", script, mime: ["application/x-ruby", "text/x-ruby"], ext: ["rb"], kind: "Ruby script"),
        .init("org.rust-lang.rust-source", source, mime: ["text/rust", "text/x-rust"], ext: ["rs"], kind: "Rust source"),
        .init("org.golang.go-source", source, mime: ["text/x-go"], ext: ["go"], kind: "Go source"),
        .init("public.make-source", source, mime: ["text/x-makefile"], kind: "Makefile"),
        .init("public.php-script", script, mime: ["application/x-php"], ext: ["php"], kind: "PHP script"),
        .init("public.objective-c-source", source, mime: ["text/x-objcsrc"], ext: ["m"], kind: "Objective-C source"),
        .init("public.objective-c-plus-plus-source", source, mime: ["text/x-objc++src"], ext: ["mm"], kind: "Objective-C++ source"),
        .init("org.kotlinlang.kotlin-source", source, mime: ["text/x-kotlin"], ext: ["kt", "kts"], kind: "Kotlin source"),
        .init("com.microsoft.c-sharp-source", source, mime: ["text/x-csharp"], ext: ["cs"], kind: "C# source"),
        .init("com.microsoft.typescript", script, mime: ["application/x-typescript"], ext: ["tsx", "mts", "cts"], kind: "TypeScript source"),
        .init("org.scala-lang.scala-source", source, mime: ["text/x-scala"], ext: ["scala"], kind: "Scala source"),
        .init("org.lua.lua-source", script, mime: ["text/x-lua"], ext: ["lua"], kind: "Lua script"),
        .init("org.iso.sql", source, mime: ["application/sql"], ext: ["sql"], kind: "SQL source"),
        .init("org.tug.tex", plain, mime: ["text/x-tex"], ext: ["tex"], kind: "TeX document"),
        .init("public.troff", plain, mime: ["text/troff", "application/x-troff-man"], ext: ["man", "roff"], kind: "Manual page"),
        // No MIME type or extension: detection gives `public.troff`, and `ManPageExtractor`
        // gives this type to the troff files that are manual pages.
        .init(.manualPage, [.troff], kind: "Manual page"),
        // Documents.
        .init("public.composite-content", content, kind: "Document"),
        .init(.pdf, dataContent + ["public.composite-content"], mime: ["application/pdf"], ext: ["pdf"], kind: "PDF document"),
        .init("com.adobe.postscript", dataContent, mime: ["application/postscript"], ext: ["ps", "eps"], kind: "PostScript document"),
        .init("org.openxmlformats.wordprocessingml.document", zip + content,
              mime: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"], ext: ["docx"], kind: "Word document"),
        .init("org.openxmlformats.spreadsheetml.sheet", zip + ["public.spreadsheet"],
              mime: ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"], ext: ["xlsx"], kind: "Excel spreadsheet"),
        .init("org.openxmlformats.presentationml.presentation", zip + ["public.presentation"],
              mime: ["application/vnd.openxmlformats-officedocument.presentationml.presentation"], ext: ["pptx"], kind: "PowerPoint presentation"),
        .init("com.microsoft.word.doc", dataContent, mime: ["application/msword"], ext: ["doc"], kind: "Word 97 document"),
        .init("com.microsoft.excel.xls", data + ["public.spreadsheet"], mime: ["application/vnd.ms-excel"], ext: ["xls"], kind: "Excel 97 spreadsheet"),
        .init("com.microsoft.powerpoint.ppt", data + ["public.presentation"], mime: ["application/vnd.ms-powerpoint"], ext: ["ppt"], kind: "PowerPoint 97 presentation"),
        .init("org.oasis-open.opendocument.text", zip + content, mime: ["application/vnd.oasis.opendocument.text"], ext: ["odt"], kind: "OpenDocument text"),
        .init("org.oasis-open.opendocument.spreadsheet", zip + ["public.spreadsheet"], mime: ["application/vnd.oasis.opendocument.spreadsheet"], ext: ["ods"], kind: "OpenDocument spreadsheet"),
        .init("org.oasis-open.opendocument.presentation", zip + ["public.presentation"], mime: ["application/vnd.oasis.opendocument.presentation"], ext: ["odp"], kind: "OpenDocument presentation"),
        .init("org.oasis-open.opendocument.formula", zip + content, mime: ["application/vnd.oasis.opendocument.formula"], ext: ["odf"], kind: "OpenDocument formula"),
        .init("org.idpf.epub-container", zip + content, mime: ["application/epub+zip"], ext: ["epub"], kind: "EPUB book"),
        .init("org.gnu.gnu-zip-archive.fb2", xml, mime: ["application/x-fictionbook+xml"], ext: ["fb2"], kind: "FictionBook"),
        .init("public.spreadsheet", content, kind: "Spreadsheet"),
        .init("public.presentation", content, kind: "Presentation"),
        .init("com.google.earth.kml", xml, mime: ["application/vnd.google-earth.kml+xml"], ext: ["kml"], kind: "KML document"),
        // Mail.
        .init("public.email-message", dataContent, mime: ["message/rfc822"], ext: ["eml"], kind: "Mail message"),
        .init("public.mbox", [.text], mime: ["application/mbox"], ext: ["mbox"], kind: "Mailbox"),
        // Images.
        .init(.image, dataContent, mime: ["image/*"], kind: "Image"),
        .init(.jpeg, image, mime: ["image/jpeg"], ext: ["jpg", "jpeg"], kind: "JPEG image"),
        .init(.png, image, mime: ["image/png"], ext: ["png"], kind: "PNG image"),
        .init("com.compuserve.gif", image, mime: ["image/gif"], ext: ["gif"], kind: "GIF image"),
        .init("public.tiff", image, mime: ["image/tiff"], ext: ["tif", "tiff"], kind: "TIFF image"),
        .init("com.microsoft.bmp", image, mime: ["image/bmp"], ext: ["bmp"], kind: "BMP image"),
        .init("org.webmproject.webp", image, mime: ["image/webp"], ext: ["webp"], kind: "WebP image"),
        .init("public.heic", image, mime: ["image/heic", "image/heif"], ext: ["heic", "heif"], kind: "HEIC image"),
        .init("com.microsoft.ico", image, mime: ["image/vnd.microsoft.icon"], ext: ["ico"], kind: "Icon"),
        // Audio and video.
        .init(.audio, dataContent + ["public.audiovisual-content"], mime: ["audio/*"], kind: "Audio"),
        .init("public.audiovisual-content", dataContent, kind: "Media"),
        .init("public.mp3", audio, mime: ["audio/mpeg"], ext: ["mp3"], kind: "MP3 audio"),
        .init("org.xiph.flac", audio, mime: ["audio/flac"], ext: ["flac"], kind: "FLAC audio"),
        .init("org.xiph.ogg-vorbis", audio, mime: ["audio/x-vorbis+ogg", "audio/ogg"], ext: ["ogg", "oga"], kind: "Ogg Vorbis audio"),
        .init("org.xiph.opus", audio, mime: ["audio/x-opus+ogg"], ext: ["opus"], kind: "Opus audio"),
        .init("com.microsoft.waveform-audio", audio, mime: ["audio/x-wav", "audio/wav"], ext: ["wav"], kind: "WAVE audio"),
        .init("com.apple.m4a-audio", audio, mime: ["audio/mp4", "audio/x-m4a"], ext: ["m4a"], kind: "MPEG-4 audio"),
        .init(.movie, dataContent + ["public.audiovisual-content"], mime: ["video/*"], kind: "Movie"),
        .init("public.mpeg-4", movie, mime: ["video/mp4"], ext: ["mp4"], kind: "MPEG-4 movie"),
        .init("org.matroska.mkv", movie, mime: ["video/x-matroska"], ext: ["mkv"], kind: "Matroska movie"),
        .init("org.webmproject.webm", movie, mime: ["video/webm"], ext: ["webm"], kind: "WebM movie"),
        // Archives.
        .init(.archive, data, kind: "Archive"),
        .init("public.zip-archive", archive, mime: ["application/zip"], ext: ["zip"], kind: "ZIP archive"),
        .init("public.tar-archive", archive, mime: ["application/x-tar", "application/x-ustar", "application/x-gtar"], ext: ["tar"], kind: "tar archive"),
        .init("org.gnu.gnu-zip-archive", archive, mime: ["application/gzip"], ext: ["gz", "tgz"], kind: "gzip archive"),
        .init("public.bzip2-archive", archive, mime: ["application/x-bzip2", "application/x-bzip"], ext: ["bz2"], kind: "bzip2 archive"),
        .init("org.tukaani.xz-archive", archive, mime: ["application/x-xz"], ext: ["xz"], kind: "xz archive"),
        .init("org.7-zip.7-zip-archive", archive, mime: ["application/x-7z-compressed"], ext: ["7z"], kind: "7-Zip archive"),
        .init("com.facebook.zstandard-archive", archive, mime: ["application/zstd"], ext: ["zst"], kind: "Zstandard archive"),
        .init("org.debian.deb-archive", archive, mime: ["application/vnd.debian.binary-package"], ext: ["deb"], kind: "Debian package"),
        // Other data.
        .init("public.font", dataContent, mime: ["font/ttf", "font/otf", "font/woff", "font/woff2", "application/x-font-ttf"], ext: ["ttf", "otf", "woff", "woff2"], kind: "Font"),
        .init("public.database", data, mime: ["application/vnd.sqlite3", "application/x-sqlite3"], ext: ["sqlite", "db"], kind: "Database"),
    ]
}
