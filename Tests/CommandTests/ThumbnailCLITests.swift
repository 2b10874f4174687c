import Foundation
import SystemPackage
import TestSupport
import Testing

/// Issue 27, part 4: `fsindex thumbnail PATH|DOMAIN:ID`, as a user runs it.
@Suite("fsindex thumbnail", .blocking)
struct ThumbnailCLITests {
    func thumbnail(_ f: CLIFixture, _ args: String...) throws -> CommandResult {
        try run("fsindex", ["thumbnail"] + args, env: ["FSINDEX_INDEX_DIR": f.index, "XDG_CACHE_HOME": f.tree.path("cache").string])
    }

    /// The PNG's width, height and text chunks, read with Python's struct (a reader not ours).
    func pngText(_ path: String) throws -> (Int, Int, [String: String]) {
        let code = """
            import struct, sys
            d = open(sys.argv[1], 'rb').read(); i = 8; w = h = 0
            while i < len(d):
                n, = struct.unpack('>I', d[i:i+4]); k = d[i+4:i+8]; b = d[i+8:i+8+n]; i += 12 + n
                if k == b'IHDR': w, h = struct.unpack('>II', b[:8]); print('size', w, h)
                if k == b'tEXt': key, v = b.split(b'\\0', 1); print(key.decode('latin-1') + '=' + v.decode('latin-1'))
            """
        let r = try run(executable: "/usr/bin/python3", ["-c", code, path], timeout: 60)
        var size = (0, 0)
        var text: [String: String] = [:]
        for line in r.lines {
            if line.hasPrefix("size ") { let p = line.split(separator: " "); size = (Int(p[1])!, Int(p[2])!) }
            else if let eq = line.firstIndex(of: "=") { text[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
        }
        return (size.0, size.1, text)
    }

    @Test("an image and a PDF: the path printed is a spec thumbnail of the file; again, the same path without a worker")
    func imageAndPDF() throws {
        let f = try CLIFixture()
        defer { f.tree.remove() }
        let image = try f.tree.create("root/holiday photo.png", bytes: ImageFixture.png(width: 300, height: 200))
        let pdf = try f.tree.create("root/report.pdf", bytes: GeneratedFixture.pdf(
            title: "Report", author: "Ada", subject: "", keywords: "", created: "D:20260101000000Z", lines: ["Thumbnails"]))
        for (file, mime, width) in [(image, "image/png", 128), (pdf, "application/pdf", 99)] {
            let r = try thumbnail(f, file.string)
            #expect(r.status == 0, "\(r.stderr)")
            let printed = r.out.trimmingCharacters(in: .newlines)
            #expect(printed.hasPrefix(f.tree.path("cache").string + "/thumbnails/normal/") && printed.hasSuffix(".png"), "\(r.out)")
            let (w, h, text) = try pngText(printed)
            #expect(w == width && max(w, h) <= 128)
            #expect(text["Thumb::URI"] == "file://" + file.string.replacingOccurrences(of: " ", with: "%20"))
            #expect(text["Thumb::Mimetype"] == mime)
            var st = stat()
            stat(file.string, &st)
            #expect(text["Thumb::MTime"] == String(st.st_mtim.tv_sec))
            // Asked again: the cache answers (no worker: even a missing one does not matter).
            let again = try run("fsindex", ["thumbnail", file.string], env: [
                "FSINDEX_INDEX_DIR": f.index, "XDG_CACHE_HOME": f.tree.path("cache").string, "FSINDEX_WORKER": "/nonexistent"])
            #expect(again.status == 0 && again.out == r.out, "\(again.stderr)")
        }
        let large = try thumbnail(f, "--large", "--json", image.string)
        #expect(large.status == 0, "\(large.stderr)")
        let object = try JSONSerialization.jsonObject(with: large.stdout) as? [String: String]
        #expect(object?["size"] == "large" && object?["path"]?.contains("/thumbnails/large/") == true, "\(large.out)")
        #expect(try pngText(object?["path"] ?? "").0 == 256)
    }

    @Test("a missing file exits 2, a type without a thumbnailer 1, each with its reason")
    func refusals() throws {
        let f = try CLIFixture()
        defer { f.tree.remove() }
        let missing = try thumbnail(f, f.root + "/nothing.png")
        #expect(missing.status == 2 && missing.stderr.contains("nothing.png: no such file"), "\(missing.stderr)")
        let text = try f.tree.create("root/notes.txt", contents: "words\n")
        let unsupported = try thumbnail(f, text.string)
        #expect(unsupported.status == 1 && unsupported.stderr.contains("cannot make a thumbnail of this type (text/plain)"), "\(unsupported.stderr)")
        let broken = try f.tree.create("root/broken.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3])
        let failed = try thumbnail(f, broken.string)
        #expect(failed.status == 1 && failed.stderr.contains("cannot make a thumbnail:"), "\(failed.stderr)")
        let again = try thumbnail(f, broken.string)
        #expect(again.status == 1 && again.stderr.contains("failed before") && again.stderr.contains("/thumbnails/fail/fsindex-0.27/"), "\(again.stderr)")
    }

    @Test("a donated item's thumbnailData comes back byte for byte as a private file")
    func donated() throws {
        let f = try CLIFixture()
        defer { f.tree.remove() }
        let picture = ImageFixture.png(width: 20, height: 10)
        let line = "{\"uniqueIdentifier\": \"n1\", \"attributes\": {\"title\": \"Budget\", \"thumbnailData\": \"\(Data(picture).base64EncodedString())\"}}"
        let plain = "{\"uniqueIdentifier\": \"n2\", \"attributes\": {\"title\": \"Groceries\"}}"
        let batch = try f.tree.create("batch.jsonl", contents: line + "\n" + plain + "\n")
        let donated = try run("fsindex", ["donate", "--domain", "notes", batch.string], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(donated.status == 0, "\(donated.stderr)")
        let r = try thumbnail(f, "notes:n1")
        #expect(r.status == 0, "\(r.stderr)")
        let path = r.out.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix(f.tree.path("cache").string + "/fsindex/thumbnails/") && path.hasSuffix(".png"), "\(r.out)")
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == picture)
        var st = stat()
        stat(path, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        stat(f.tree.path("cache").string + "/fsindex/thumbnails", &st)
        #expect(st.st_mode & 0o777 == 0o700)
        let none = try thumbnail(f, "notes:n2")
        #expect(none.status == 1 && none.stderr.contains("no donated thumbnail"), "\(none.stderr)")
        // A bad picture refuses the batch, naming the line; nothing of it is written.
        let bad = try f.tree.create("bad.jsonl", contents: plain.replacingOccurrences(of: "n2", with: "n3") + "\n"
            + "{\"uniqueIdentifier\": \"n4\", \"attributes\": {\"thumbnailData\": \"R0lGODlhAQABAAAAACw=\"}}\n")
        let refused = try run("fsindex", ["donate", "--domain", "notes", bad.string], env: ["FSINDEX_INDEX_DIR": f.index])
        #expect(refused.status != 0 && refused.stderr.contains("line 2: thumbnailData is neither a PNG nor a JPEG"), "\(refused.stderr)")
        #expect(try f.fsindex("show", "notes:n3").status != 0)
    }
}
