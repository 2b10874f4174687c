#!/usr/bin/env python3
"""Writes the seed corpus of fsindex-fuzz: Tests/Fuzz/corpus/<target>/<name>.

Every seed is small and built here from the format's specification (no file is copied from
elsewhere), so the corpus stays reviewable and far under 1 MB. Run it again after changing it;
it rewrites the generated seeds and leaves the `crash-*` regression inputs alone.

    python3 Tests/Fuzz/make-corpus.py

`fuzz.sh` adds the shared real-document corpus as extra seeds when it is beside the checkout.
"""
import io
import os
import struct
import sys
import zipfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# --- queries: README's examples and the parser tests' forms -------------------------------

SPOTLIGHT = [
    'kMDItemContentType == "com.adobe.pdf" && kMDItemNumberOfPages > 10',
    'kMDItemDisplayName == "*report*"cd || InRange(kMDItemFSSize, 1000, 20000)',
    'kMDItemFSContentChangeDate >= $time.today(-7)',
    'kMDItemFSCreationDate == $time.this_month',
    'kMDItemAuthors == "Ada*"wc && !(kMDItemKind == "Folder")',
    'kMDItemTextContent == "free software"',
    '* == "budget*"cdw',
    'kMDItemPixelWidth >= 1000 && kMDItemPixelHeight < 2000.5',
    'kMDItemFSContentChangeDate > $time.iso(2026-01-31T09:30:00Z)',
    'kMDItemContentModificationDate < $time.now(-3600) || kMDItemLastUsedDate == $time.yesterday',
    'kMDItemTitle != "draft\\*"',
    "kMDItemFSName == 'a?c.txt'c",
    '(kMDItemFSSize > 1e6 || kMDItemFSSize < -1) && kMDItemContentTypeTree == "public.image"',
    'InRange(kMDItemContentCreationDate, $time.this_year(-1), $time.this_year)',
]

SHORT = [
    'annual report',
    '"free software"',
    'budget -draft',
    'invoice OR receipt',
    'kind:pdf author:ada modified:>2026-01-01',
    'kind:image width:>1000',
    'size:>10MB modified:2026-01..2026-03 dir:~/Documents',
    "name:'*.tex' created:this_week",
    'kMDItemFSContentChangeDate >= $time.today(-7) && kind:document',
    'ext:pdf,png title:"annual rep" lang:en',
    '(report || summary) !draft used:<7d',
    'size:10MiB..20MiB pages:>=3 camera:canon tag:work',
    'from:ada@example.org to:bob messages:>2 created:2026',
    'name:holiday* dir:/tmp kind:folder modified:>2w',
    'café naïve Brontë 日本語 word*',
]


def queries():
    for i, q in enumerate(SPOTLIGHT):
        write("query", "spotlight-%02d" % i, q)
        write("short-query", "spotlight-%02d" % i, q)
    for i, q in enumerate(SHORT):
        write("short-query", "short-%02d" % i, q)


# --- RTF --------------------------------------------------------------------------------------

RTF = {
    "plain": r"{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}Hello\par World}",
    "info": r"{\rtf1\ansi{\info{\title Notes}{\subject S}{\author Ada}{\author Bob}{\keywords a, b; c}"
            r"{\doccomm comment}{\creatim\yr2026\mo3\dy15\hr9\min30\sec5}{\revtim\yr2026\mo4\dy1}}Caf\'e9\par Bye}",
    "unicode": r"{\rtf1\ansi\uc1 \u8364?\u-10179?\u-8704?\uc2 \u233\'65\'65 x\u55357\u56832 y}",
    "fcharset": r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fcharset128 MS Mincho;}{\f1\fcharset204 Arial;}}"
                r"\f0 \'82\'a0\f1 \'cf\'f0\'e8}",
    "upr": r"{\rtf1{\upr{\title ansi}{\*\ud{\title \u26085?\u26412?}}}text}",
    "destinations": r"{\rtf1{\*\generator x;}{\colortbl;\red0\green0\blue0;}{\pict\pngblip 89504e47}"
                    r"{\field{\*\fldinst HYPERLINK x}{\fldrslt link}}{\*\shptxt shape}\bin3 abc{\footnote note}"
                    r"\lquote q\rquote \emdash\tab\line end}",
    "truncated": r"{\rtf1\ansi{\info{\title open",
    "nested": "{\\rtf1 " + "{" * 40 + "deep" + "}" * 40 + "}",
    "trailing": "\xef\xbb\xbf \r\n{\\rtf1 done}{\\rtf1 after}",
}


def rtf():
    for name, text in RTF.items():
        write("rtf", name + ".rtf", text.encode("latin-1"))


# --- images -----------------------------------------------------------------------------------

def tiff(big=False, extra=b""):
    """A TIFF stream: header, IFD0 with width, height, XMP and IPTC tags."""
    e = ">" if big else "<"
    head = (b"MM\x00*" if big else b"II*\x00") + struct.pack(e + "I", 8)
    xmp = b"<x:xmpmeta><dc:title>t</dc:title></x:xmpmeta>"
    iptc = b"\x1c\x02\x05\x00\x05title"
    entries = 4
    data_at = 8 + 2 + entries * 12 + 4
    ifd = struct.pack(e + "H", entries)
    ifd += struct.pack(e + "HHI", 256, 3, 1) + struct.pack(e + "HH", 640, 0)
    ifd += struct.pack(e + "HHII", 257, 4, 1, 480)
    ifd += struct.pack(e + "HHII", 700, 1, len(xmp), data_at)
    ifd += struct.pack(e + "HHII", 33723, 7, len(iptc), data_at + len(xmp))
    ifd += struct.pack(e + "I", 0)
    return head + ifd + xmp + iptc + extra


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def images():
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100, 75, 8, 2, 0, 0, 0))
    itxt = png_chunk(b"iTXt", b"XML:com.adobe.xmp\x00\x00\x00\x00\x00<x:xmpmeta>x</x:xmpmeta>")
    write("image", "png-ihdr.png", sig + ihdr + png_chunk(b"IEND", b""))
    write("image", "png-exif-xmp.png", sig + ihdr + png_chunk(b"eXIf", tiff()) + itxt + png_chunk(b"IEND", b""))

    app1 = b"Exif\x00\x00" + tiff(big=True)
    xmp = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>j</x:xmpmeta>"
    ps = b"Photoshop 3.0\x008BIM\x04\x04\x00\x00\x00\x00\x00\x08\x1c\x02\x05\x00\x03abc"
    sof = b"\x08" + struct.pack(">HH", 75, 100) + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"

    def seg(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    write("image", "jpeg-exif.jpg", b"\xff\xd8" + seg(0xE1, app1) + seg(0xE1, xmp) + seg(0xED, ps) + seg(0xC0, sof)
          + b"\xff\xda\x00\x02\xff\xd9")
    write("image", "jpeg-fill.jpg", b"\xff\xd8\xff\xff\xd0" + seg(0xC2, sof) + b"\xff\xd9")

    write("image", "gif89a.gif", b"GIF89a" + struct.pack("<HH", 320, 200) + b"\x00\x00\x00;")
    write("image", "bmp-info.bmp", b"BM" + b"\x00" * 12 + struct.pack("<Iii", 40, 64, -32) + b"\x01\x00\x18\x00")
    write("image", "bmp-core.bmp", b"BM" + b"\x00" * 12 + struct.pack("<IHH", 12, 64, 32) + b"\x01\x00\x18\x00")

    def riff(chunks):
        body = b"WEBP" + b"".join(k + struct.pack("<I", len(v)) + v + (b"\x00" if len(v) & 1 else b"") for k, v in chunks)
        return b"RIFF" + struct.pack("<I", len(body)) + body
    vp8x = b"\x08\x00\x00\x00" + (99).to_bytes(3, "little") + (74).to_bytes(3, "little")
    write("image", "webp-vp8x.webp", riff([(b"VP8X", vp8x), (b"EXIF", b"Exif\x00\x00" + tiff()), (b"XMP ", b"<x:xmpmeta/>")]))
    write("image", "webp-vp8.webp", riff([(b"VP8 ", b"\x00\x00\x00\x9d\x01\x2a" + struct.pack("<HH", 100, 75))]))
    bits = (100 - 1) | (75 - 1) << 14
    write("image", "webp-vp8l.webp", riff([(b"VP8L", b"\x2f" + struct.pack("<I", bits))]))
    write("image", "tiff-le.tif", tiff())
    write("image", "tiff-be.tif", tiff(big=True))

    def box(kind, body):
        return struct.pack(">I", len(body) + 8) + kind + body

    def full(kind, version, body):
        return box(kind, bytes([version, 0, 0, 0]) + body)
    exif_item = b"\x00\x00\x00\x06Exif\x00\x00" + tiff()
    ftyp = box(b"ftyp", b"heic\x00\x00\x00\x00mif1heic")
    infe1 = full(b"infe", 2, struct.pack(">HH", 1, 0) + b"hvc1" + b"\x00")
    infe2 = full(b"infe", 2, struct.pack(">HH", 2, 0) + b"Exif" + b"\x00")
    iinf = full(b"iinf", 0, struct.pack(">H", 2) + infe1 + infe2)
    pitm = full(b"pitm", 0, struct.pack(">H", 1))
    ispe = full(b"ispe", 0, struct.pack(">II", 4032, 3024))
    ipco = box(b"ipco", ispe + full(b"ispe", 0, struct.pack(">II", 512, 512)))
    ipma = full(b"ipma", 0, struct.pack(">I", 1) + struct.pack(">HB", 1, 1) + b"\x81")

    def heif(exif_offset):
        iloc = full(b"iloc", 0, bytes([0x44, 0x00]) + struct.pack(">H", 1)
                    + struct.pack(">HHH", 2, 0, 1) + struct.pack(">II", exif_offset, len(exif_item)))
        meta = full(b"meta", 0, full(b"hdlr", 0, b"\x00" * 4 + b"pict" + b"\x00" * 13) + pitm + iinf + iloc
                    + box(b"iprp", ipco + ipma))
        return ftyp + meta
    head = heif(0)
    write("image", "heif.heic", heif(len(head) + 8) + box(b"mdat", exif_item))


# --- audio ------------------------------------------------------------------------------------

def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def vorbis_comments(fields):
    out = struct.pack("<I", 6) + b"fsfuzz" + struct.pack("<I", len(fields))
    for f in fields:
        out += struct.pack("<I", len(f)) + f
    return out


def ogg_page(serial, seq, granule, packets, flags=0):
    lacing, body = b"", b""
    for p in packets:
        n = len(p)
        lacing += b"\xff" * (n // 255) + bytes([n % 255])
        body += p
    header = b"OggS\x00" + bytes([flags]) + struct.pack("<qIII", granule, serial, seq, 0) + bytes([len(lacing)])
    return header + lacing + body


def audio():
    frame = b"\xff\xfb\x90\x64" + b"\x00" * 413
    tcom = b"TCOM" + struct.pack(">I", 8) + b"\x00\x00" + b"\x00Bach\x00JS"
    tit2 = b"TIT2" + struct.pack(">I", 6) + b"\x00\x00" + b"\x01\xff\xfeA\x00"
    tag = tcom + tit2
    write("audio", "mp3-id3v23.mp3", b"ID3\x03\x00\x00" + syncsafe(len(tag)) + tag + frame * 2)
    tag4 = b"TCOM" + syncsafe(5) + b"\x00\x00" + b"\x03Bach"
    write("audio", "mp3-id3v24.mp3", b"ID3\x04\x00\x10" + syncsafe(len(tag4)) + tag4 + b"3DI\x04\x00\x10" + syncsafe(len(tag4)) + frame)
    tag2 = b"TCM" + (5).to_bytes(3, "big") + b"\x00Bach"
    write("audio", "mp3-id3v22-unsync.mp3", b"ID3\x02\x00\x80" + syncsafe(len(tag2)) + tag2 + frame)
    v1 = b"TAG" + b"title".ljust(30, b"\x00") + b"artist".ljust(30, b"\x00") + b"album".ljust(30, b"\x00") + b"2026" + b"\x00" * 30 + b"\x0c"
    write("audio", "mp3-id3v1.mp3", frame * 2 + v1)

    rate, channels, samples = 44100, 2, 441000
    info = struct.pack(">HH", 4096, 4096) + b"\x00\x00\x00\x00\x00\x00"
    packed = rate << 44 | (channels - 1) << 41 | (16 - 1) << 36 | samples
    streaminfo = info + struct.pack(">Q", packed) + b"\x00" * 16
    comments = vorbis_comments([b"TITLE=Song", b"ARTIST=Someone", b"TRACKNUMBER=3"])
    flac = b"fLaC" + b"\x00" + len(streaminfo).to_bytes(3, "big") + streaminfo
    flac += b"\x84" + len(comments).to_bytes(3, "big") + comments
    write("audio", "flac.flac", flac + b"\xff\xf8" + b"\x00" * 16)
    write("audio", "flac-after-id3.flac", b"ID3\x03\x00\x00" + syncsafe(0) + flac)

    vorbis_id = b"\x01vorbis" + struct.pack("<IBIiii", 0, 2, 44100, 0, 128000, 0) + b"\xb8\x01"
    vorbis_comment = b"\x03vorbis" + vorbis_comments([b"TITLE=Ogg", b"composer=Someone"]) + b"\x01"
    write("audio", "ogg-vorbis.ogg", ogg_page(7, 0, 0, [vorbis_id], 2) + ogg_page(7, 1, 0, [vorbis_comment])
          + ogg_page(7, 2, 441000, [b"\x00" * 300], 4))
    opus_head = b"OpusHead\x01\x02" + struct.pack("<HIhB", 312, 48000, 0, 0)
    opus_tags = b"OpusTags" + vorbis_comments([b"ALBUM=Opus", b"DATE=2026"])
    write("audio", "ogg-opus.opus", ogg_page(9, 0, 0, [opus_head], 2) + ogg_page(9, 1, 0, [opus_tags])
          + ogg_page(9, 2, 960000, [b"\x00" * 40], 4))

    fmt = struct.pack("<HHIIHH", 1, 2, 44100, 176400, 4, 16)
    info_list = b"INFO" + b"INAM" + struct.pack("<I", 5) + b"Song\x00\x00" + b"IART" + struct.pack("<I", 4) + b"Who\x00"
    wav = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"LIST" + struct.pack("<I", len(info_list)) + info_list
    wav += b"data" + struct.pack("<I", 64) + b"\x00" * 64
    write("audio", "wav.wav", b"RIFF" + struct.pack("<I", len(wav)) + wav)

    def box(kind, body):
        return struct.pack(">I", len(body) + 8) + kind + body
    mvhd = box(b"mvhd", b"\x00\x00\x00\x00" + b"\x00" * 8 + struct.pack(">II", 1000, 12345) + b"\x00" * 80)
    wrt = box(b"\xa9wrt", box(b"data", struct.pack(">II", 1, 0) + b"Composer"))
    meta = box(b"meta", b"\x00\x00\x00\x00" + box(b"ilst", wrt))
    write("audio", "mp4.m4a", box(b"ftyp", b"M4A \x00\x00\x00\x00M4A mp42") + box(b"moov", mvhd + box(b"udta", meta)))
    write("audio", "asf.wma", bytes([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]))


# --- mail structure: first byte = flags (0x80 mailbox, low nibble the limit), then the file -------

MAIL = (
    b"From ada@example.org Mon Jan  5 10:00:00 2026\n"
    b"From: Ada <ada@example.org>\nTo: bob@example.org\nSubject: Hello\n"
    b"Content-Type: multipart/mixed; boundary=x\n\n"
    b"--x\nContent-Type: text/plain\n\nbody\n--x\nContent-Type: text/plain\n\nmore\n--x--\n\n"
    b"From bob@example.org Mon Jan  5 11:00:00 2026\r\n"
    b"From: Bob\r\nSubject: Re: Hello\r\n\r\n-- \r\nsig\r\n"
)


def mail():
    write("mail-structure", "mbox-limit3", b"\x83" + MAIL)
    write("mail-structure", "message-limit2", b"\x02" + MAIL.split(b"\n", 1)[1])
    write("mail-structure", "mbox-limit15", b"\x8f" + MAIL * 2)
    write("mail-structure", "parts", b"\x04" + b"Subject: x\n\n" + b"--b\n\n" * 12)


# --- zip --------------------------------------------------------------------------------------

def zips():
    def make(members, method=zipfile.ZIP_DEFLATED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            for name, data in members:
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = method
                z.writestr(info, data)
        return buf.getvalue()
    docx = [
        ("[Content_Types].xml", '<?xml version="1.0"?><Types/>'),
        ("_rels/.rels", '<Relationships><Relationship Id="r1" Target="word/document.xml"/></Relationships>'),
        ("word/document.xml", "<w:document><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>"),
        ("word/_rels/document.xml.rels", '<Relationships><Relationship Target="../media/a%20b.png#x"/></Relationships>'),
        ("docProps/core.xml", "<cp:coreProperties><dc:title>T</dc:title></cp:coreProperties>"),
    ]
    write("zip", "docx-like.zip", make(docx))
    write("zip", "stored.zip", make([("mimetype", "application/epub+zip"), ("OEBPS/../x/./y.xhtml", "<html/>"), ("dir/", "")],
                                    zipfile.ZIP_STORED))
    whole = make([("a.txt", "a" * 200), ("b/c.txt", "c")])
    write("zip", "truncated.zip", whole[: len(whole) - 30])
    write("zip", "no-central.zip", whole[: whole.rfind(b"PK\x01\x02")])


# --- worker protocol --------------------------------------------------------------------------

def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def request(path, kind="regular", size=1234, cap=1 << 20, birth=None, failure=0, errno=0):
    out = u64(cap) + u64(len(path)) + path + u64(len(kind)) + kind.encode()
    for v in (size, 0o644, 1000, 1000, 2049, 123456, 1, 1_770_000_000_000_000_000, 1_770_000_001_000_000_000,
              1_770_000_002_000_000_000):
        out += u64(v)
    out += u64(0 if birth is None else 1) + u64(birth or 0) + u64(4096)
    # How the parent's open went: 0 opened (the descriptor comes with the frame), 1 changed
    # since the crawl, 2 errno, 3 another failure (its text follows).
    out += u64(failure) + u64(errno)
    return out


def frame(kind, payload):
    return struct.pack("<I", len(payload)) + kind + payload


def worker():
    r1 = request(b"/home/ada/report.pdf")
    r2 = request(b"/tmp/caf\xe9\n\xff.txt", size=0, cap=64, birth=1_760_000_000_000_000_000)
    r3 = request(b"/dev/null", kind="characterDevice", size=0)
    write("worker-request", "request-pdf", r1)
    write("worker-request", "request-bytes-name", r2)
    write("worker-request", "frames", frame(b"F", r1) + frame(b"F", r2) + frame(b"P", b"open") + frame(b"F", r3))
    write("worker-request", "partial-frame", frame(b"F", r1)[:40])
    # A fuzz finding (issue 11): a path holding a NUL byte, which FilePath would cut short to
    # another file; the worker must refuse it. The first request is answered.
    write("worker-request", "crash-path-nul", frame(b"F", request(b"/home/ada/report.pdf", failure=2, errno=2)) + frame(b"F", request(b"/tmp/caf\xe9\x00/\xff.txt", failure=2, errno=2)))
    write("worker-request", "request-open-failed", request(b"/srv/locked.txt", failure=2, errno=13))

    # The hand-written result in ResultCoding's binary form (Sources/Isolation/ResultCoding.swift).
    result = result_frame(
        [("title", 0, "Annual report"), ("fileSize", 2, 1234), ("authors", 1, ["Ada", "Bob"]), ("pixelWidth", 3, 1024.5),
         ("contentModificationDate", 4, 791544600.25), ("custom", 5, True)],
        problems=[(2, "pdf", "no trailer"), (1,)], extractor="pdf", version=3,
        children=[("message/1", [("title", 0, "Hi")])], trace=[("type", 0.000125, ["contentType", "kind"])])
    write("worker-result", "result.bin", result)
    write("worker-result", "frames", frame(b"S", b"pdf") + frame(b"T", "text café\n".encode()) + frame(b"R", result))
    write("worker-result", "unknown-frame", frame(b"S", b"rtf") + frame(b"X", b"?") + frame(b"R", result_frame([])))


def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def zigzag(v):
    return varint(((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)


def text(s):
    b = s.encode("utf-8")
    return varint(len(b)) + b


def attribute_set(values):
    """values: (key, tag, value) with tag 0 string, 1 strings, 2 integer, 3 double, 4 date
    (seconds since 2001-01-01), 5 bool."""
    out = varint(len(values))
    for key, tag, value in values:
        out += text(key) + bytes([tag])
        if tag == 0:
            out += text(value)
        elif tag == 1:
            out += varint(len(value)) + b"".join(text(v) for v in value)
        elif tag == 2:
            out += zigzag(value)
        elif tag in (3, 4):
            out += struct.pack("<d", value)
        else:
            out += bytes([1 if value else 0])
    return out


def result_frame(values, problems=(), extractor=None, version=0, children=(), trace=()):
    """A result frame as fsindex-worker writes it (ResultCoding.encode)."""
    out = b"\x01" + attribute_set(values) + varint(len(problems))
    for p in problems:
        out += bytes([p[0]])
        if p[0] == 0:
            out += zigzag(p[1]) + text(p[2])
        else:
            out += b"".join(text(f) for f in p[1:])
    out += (b"\x01" + text(extractor)) if extractor is not None else b"\x00"
    out += zigzag(version) + varint(len(children))
    for key, attrs in children:
        out += text(key) + attribute_set(attrs)
    out += varint(len(trace))
    for name, seconds, keys in trace:
        out += text(name) + struct.pack("<d", seconds) + varint(len(keys)) + b"".join(text(k) for k in keys)
    return out


def real_worker():
    """What the real fsindex-worker (of a plain `swift build`) answers for a few files: whole
    streams of stage, text and result frames, as the parent reads them. Skipped, with a note,
    when the worker is not built."""
    import subprocess
    import tempfile
    worker = os.path.join(os.path.dirname(ROOT), "..", "..", ".build", "debug", "fsindex-worker")
    if not os.access(worker, os.X_OK):
        print("make-corpus: %s is not built; worker-result keeps its hand-written seeds" % worker, file=sys.stderr)
        return
    samples = {
        "mail": b"From: Ada <ada@example.org>\nTo: bob@example.org\nSubject: Hello\nDate: Mon, 5 Jan 2026 10:00:00 +0000\n\nBody text.\n",
        "html": b"<html><head><title>T\xc3\xa9</title><meta name=author content=Ada></head><body><p>caf\xc3\xa9</p></body></html>",
        "rtf": RTF["info"].encode("latin-1"),
    }
    with tempfile.TemporaryDirectory() as folder:
        for name, data in samples.items():
            path = os.path.join(folder, "sample." + {"mail": "eml", "html": "html", "rtf": "rtf"}[name])
            with open(path, "wb") as f:
                f.write(data)
            st = os.stat(path)
            req = u64(1 << 20) + u64(len(path)) + path.encode() + u64(7) + b"regular"
            for v in (st.st_size, st.st_mode & 0o7777, st.st_uid, st.st_gid, st.st_dev, st.st_ino, st.st_nlink,
                      st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns, 0, 0, st.st_blocks * 512):
                req += u64(v)
            req += u64(0) + u64(0)   # the parent opened the file: its descriptor comes with the frame
            # The worker reads requests from a Unix socket and takes the file's descriptor from it
            # (SCM_RIGHTS): it may not open files by name.
            import socket
            parent, child = socket.socketpair()
            proc = subprocess.Popen([worker], stdin=child.fileno(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            child.close()
            fd = os.open(path, os.O_RDONLY)
            socket.send_fds(parent, [frame(b"F", req)], [fd])
            os.close(fd)
            out = b""
            while b"R" not in [out[i + 4:i + 5] for i in frame_starts(out)]:
                chunk = proc.stdout.read1(65536)
                if not chunk:
                    break
                out += chunk
            parent.close()
            proc.wait()
            write("worker-result", "real-" + name, out)


def frame_starts(data):
    pos = 0
    while pos + 5 <= len(data):
        yield pos
        pos += 5 + struct.unpack_from("<I", data, pos)[0]


# --- media: libavformat behind VideoExtractor ------------------------------------------------

def media():
    """Tiny files made by Debian's ffmpeg (one 16x16 frame, a tenth of a second of tone), each
    container VideoExtractor reads; skipped, with a note, where ffmpeg is missing."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("ffmpeg"):
        print("media: no ffmpeg, the media seeds are left as they are", file=sys.stderr)
        return
    picture = ["-f", "lavfi", "-i", "color=c=red:s=16x16:r=5:d=0.2"]
    tone = ["-f", "lavfi", "-i", "sine=duration=0.1"]
    recipes = [
        ("mp4-h264-aac.mp4", picture + tone + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                               "-metadata", "title=Seed", "-metadata", "location=+48.8577+002.2950/"]),
        ("mkv-mpeg4.mkv", picture + ["-c:v", "mpeg4", "-metadata", "title=Seed"]),
        ("avi-mpeg4.avi", picture + ["-c:v", "mpeg4"]),
        ("webm-vp8.webm", picture + ["-c:v", "libvpx", "-deadline", "realtime"]),
        ("adts.aac", tone + ["-c:a", "aac"]),
        ("ac3.ac3", tone + ["-c:a", "ac3"]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in recipes:
            out = os.path.join(tmp, name)
            subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y"] + args + ["-fflags", "+bitexact", out], check=True)
            with open(out, "rb") as f:
                write("media", name, f.read())


def main():
    queries()
    rtf()
    images()
    audio()
    media()
    mail()
    zips()
    worker()
    real_worker()
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ROOT) for f in fs)
    print("corpus: %d bytes in %s" % (total, ROOT), file=sys.stderr)


if __name__ == "__main__":
    main()
