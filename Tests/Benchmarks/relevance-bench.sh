#!/usr/bin/env bash
# relevance-bench.sh — known-item relevance of fsfind beside recollq, on query sets made from
# the bench corpus with a fixed seed (issue 24): each query is made from one file, the known
# item, and the measure is where that file comes in the first 20 results.
#
# Usage: relevance-bench.sh CORPUS BIN_DIR INDEX_DIR [options]
#        relevance-bench.sh --compare BEFORE_OUT AFTER_OUT
#
#   CORPUS     the corpus the index was made of (shared/bench/make-corpus.sh's, ~111k files)
#   BIN_DIR    folder holding fsfind-direct (README's release build)
#   INDEX_DIR  an index of CORPUS made by BIN_DIR/fsindex (fsindex index --index-dir INDEX_DIR CORPUS)
# Options:
#   --recoll-conf DIR  also run recollq -c DIR on the same words (an index of the same corpus,
#                      e.g. the one shared/bench/peers.sh keeps with PEERS_KEEP=1)
#   --sets a,b         the query sets (default titles,lines,descriptions,man)
#   --seed N           seed of the sets (default 24): the same seed gives the same queries
#   --per-set N        queries per set (default: titles 150, lines 150, descriptions 100, man 100)
#   --out DIR          results folder (default ./relevance-out); the sets are cached in DIR/sets
#   --sets-dir DIR     read/write the cached sets there instead (share them between runs)
#   --runs N           timed runs of each query per engine, median kept (default 1)
#   --fsfind NAME      the fsfind binary in BIN_DIR (default fsfind-direct: no daemon; `fsfind`
#                      goes through an fsindexd started for INDEX_DIR with the caller's config)
#   --limit N          results asked for and ranks counted (default 20)
# --compare prints, per set and engine, both MRR@20 and every query whose rank changed.
#
# The sets (words are runs of letters, digits and `_`, as a user types them: `core::arch::x86_64`
# gives `core arch x86_64`; an all-capital OR/AND/NOT is lowercased so no engine reads an operator):
#   titles        the words of an HTML <title> no other corpus page has (same words, any case);
#                 2 words at least
#   lines         5 consecutive words of a random line (at most 300 characters, no word over 30)
#                 of a random text or code file (UTF-8 without NUL, at most 1 MiB, not HTML/XML/SVG,
#                 not compressed); a result with the same bytes as the known file is a hit too
#   descriptions  the <meta name="description"> of a rustdoc item page (struct.X.html, fn.x.html...),
#                 2-12 words, not rustdoc's stand-in "API documentation for the Rust `x` fn in crate
#                 `y`", and no page of another item with the same words: the pages of one item
#                 re-exported (core::iter::repeat as std::iter::repeat: same file name, same
#                 description) are all hits
#   man           the NAME line's description of a gzipped man page (`cp \- copy files and
#                 directories`, mdoc's .Nd), 2-12 words, no other man page with the same words
# Files are drawn uniformly (a per-set random.Random seeded "SEED:SET" over the sorted candidates).
#
# Each query is one process per engine (fork to exit, output read; the engines alternate):
#   fsfind   BIN_DIR/fsfind-direct --index-dir INDEX_DIR --limit 20 -0 -- 'w1 w2 …' (private
#            XDG_CONFIG_HOME: no settings file)
#   recollq  recollq -c DIR -n 20 -b 'w1 w2 …' (query language: the words ANDed, stemming on)
# Printed per set and engine: MRR@20 (mean of 1/rank, 0 when missed), the rank histogram
# (1, 2-3, 4-10, 11-20, miss), errors (exit status 2 or more), the median and p90 (nearest
# rank) of the per-query wall times, and the median CPU time (user+sys of the process: steadier
# than wall time on a busy machine). Written to OUT: summary.txt and summary.json (the same figures),
# ranks.tsv (set, id, engine, rank (0 = miss), ms, cpu_ms, results, query, known file) and
# results.jsonl (every query's result list per engine), for diffing two runs.
#
# Example (before/after):
#   relevance-bench.sh /work/bench/corpus .build/release /work/bench/idx-before \
#       --recoll-conf /tmp/peers.XXXX/recoll --out /work/bench/rel-before
#   relevance-bench.sh /work/bench/corpus .build/release /work/bench/idx-after \
#       --sets-dir /work/bench/rel-before/sets --out /work/bench/rel-after
#   relevance-bench.sh --compare /work/bench/rel-before /work/bench/rel-after
# Making the sets reads every HTML page's head and every man page's NAME (~1-2 min on the full
# corpus, once per seed and size); the queries take ~0.1 s each per engine.
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64; fi
exec python3 - "$@" <<'PY'
import argparse, atexit, gzip, hashlib, html, json, os, random, re, resource, shutil, statistics, subprocess, sys, tempfile, time, unicodedata

SET_NAMES = ["titles", "lines", "descriptions", "man"]
DEFAULT_SIZES = {"titles": 150, "lines": 150, "descriptions": 100, "man": 100}
# Bump when a set's definition changes, so that a cached set is not reused.
SETS_VERSION = 2
MARKUP = {".html", ".htm", ".xhtml", ".xml", ".svg"}
COMPRESSED = {".gz", ".bz2", ".xz", ".zst", ".z", ".lz", ".lzma"}
# shared/bench/peers.sh's time-to-searchable folder (empty but for its tries).
SKIPPED_TOP = {"zz-peers-incr"}
OPERATORS = {"OR", "AND", "NOT"}


def words(text):
    """The words of `text` as a user would type them: runs of letters, digits and `_`."""
    out = []
    for w in re.findall(r"\w+", text):
        if w.strip("_") == "":
            continue
        out.append(w.lower() if w in OPERATORS else w)
    return out


def key(ws):
    return tuple(w.lower() for w in ws)


def die(msg, code=2):
    print(f"relevance-bench.sh: {msg}", file=sys.stderr)
    sys.exit(code)


def log(msg):
    print(f"[relevance {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ the corpus
def walk(corpus):
    """Every regular file (not symlinks) as (relative path, size), sorted; names that are not
    UTF-8 are left out (the sets are JSON)."""
    files = []
    for top, dirs, names in os.walk(corpus):
        if top == corpus:
            dirs[:] = [d for d in dirs if d not in SKIPPED_TOP]
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(top, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            rel = os.path.relpath(p, corpus)
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                continue
            if os.path.stat.S_ISREG(st.st_mode):
                files.append((rel, st.st_size))
    files.sort()
    return files


def ext(rel):
    return os.path.splitext(rel)[1].lower()


TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.I | re.S)
DESCRIPTION = re.compile(rb'<meta\s+name="description"\s+content="([^"]*)"', re.I)
RUSTDOC = re.compile(rb'<meta\s+name="generator"\s+content="rustdoc"', re.I)
RUSTDOC_ITEM = re.compile(r"^(struct|enum|fn|trait|macro|type|constant|static|union|primitive|keyword|attr|derive|traitalias)\..+\.html$")


def html_heads(corpus, files):
    """(rel, title words, rustdoc item description words or None) of every HTML page."""
    out = []
    for rel, _ in files:
        if ext(rel) not in (".html", ".htm", ".xhtml"):
            continue
        try:
            with open(os.path.join(corpus, rel), "rb") as f:
                head = f.read(256 * 1024)
        except OSError:
            continue
        m = TITLE.search(head)
        title = words(html.unescape(m.group(1).decode("utf-8", "replace"))) if m else []
        desc = None
        if RUSTDOC.search(head) and RUSTDOC_ITEM.match(os.path.basename(rel)):
            d = DESCRIPTION.search(head)
            if d:
                desc = words(html.unescape(d.group(1).decode("utf-8", "replace")))
        out.append((rel, title, desc))
    return out


def unique(entries, lo, hi):
    """The (rel, words) whose words no other entry has, with lo..hi words."""
    count = {}
    for _, ws in entries:
        count[key(ws)] = count.get(key(ws), 0) + 1
    return [(rel, ws) for rel, ws in entries if lo <= len(ws) <= hi and count[key(ws)] == 1]


def sample(name, seed, candidates, n):
    rng = random.Random(f"{seed}:{name}")
    return rng.sample(sorted(candidates), min(n, len(candidates)))


def make_titles(corpus, files, seed, n, heads):
    cands = unique([(rel, t) for rel, t, _ in heads if t], 2, 10_000)
    log(f"titles: {len(cands)} unique titles of {len(heads)} pages")
    return [{"query": " ".join(ws), "known": [rel]} for rel, ws in sample("titles", seed, cands, n)]


def make_descriptions(corpus, files, seed, n, heads):
    # std re-exports core's and alloc's items: their pages (same file name, same description)
    # are one item, and any of them is a hit.
    groups = {}
    for rel, _, d in heads:
        if d and 2 <= len(d) <= 12 and not key(d[:5]) == ("api", "documentation", "for", "the", "rust"):
            groups.setdefault(key(d), []).append((rel, d))
    cands = [(pages[0][0], pages[0][1], sorted(r for r, _ in pages)) for pages in groups.values()
             if len({os.path.basename(r) for r, _ in pages}) == 1]
    log(f"descriptions: {len(cands)} descriptions of one rustdoc item each ({sum(len(c[2]) > 1 for c in cands)} re-exported)")
    return [{"query": " ".join(ws), "known": [rel] + [r for r in pages if r != rel]}
            for rel, ws, pages in sample("descriptions", seed, cands, n)]


def make_lines(corpus, files, seed, n):
    rng = random.Random(f"{seed}:lines")
    pool = [(rel, size) for rel, size in files
            if 0 < size <= 1 << 20 and ext(rel) not in MARKUP and ext(rel) not in COMPRESSED]
    rng.shuffle(pool)
    by_size = {}
    for rel, size in files:
        by_size.setdefault(size, []).append(rel)
    out = []
    for rel, size in pool:
        if len(out) >= n:
            break
        try:
            with open(os.path.join(corpus, rel), "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        lines = []
        for line in text.splitlines():
            ws = words(line)
            if len(line) <= 300 and len(ws) >= 5 and all(len(w) <= 30 for w in ws):
                lines.append(ws)
        if not lines:
            continue
        ws = rng.choice(lines)
        start = rng.randrange(len(ws) - 4)
        digest = hashlib.sha256(data).digest()
        copies = [rel]
        for other in by_size[size]:
            if other == rel:
                continue
            try:
                with open(os.path.join(corpus, other), "rb") as f:
                    if hashlib.sha256(f.read()).digest() == digest:
                        copies.append(other)
            except OSError:
                pass
        out.append({"query": " ".join(ws[start:start + 5]), "known": copies})
    log(f"lines: {len(out)} files ({sum(len(q['known']) > 1 for q in out)} with identical copies)")
    return out


MAN_NAME = re.compile(r"\.\d\w*\.gz$|\.n\.gz$")


ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", ",": "\u0327", "o": "\u030a"}
GLYPHS = {"ss": "ß", "em": "—", "en": "–", "hy": "-", "aq": "'", "dq": '"', "lq": '"', "rq": '"', "oq": "'", "cq": "'",
          "AE": "Æ", "ae": "æ", "/O": "Ø", "/o": "ø", "bu": "·", "co": "©", "rg": "®", "tm": "™"}


def glyph(m):
    """A groff special character (\\(:a, \\['e], \\[u00E4]) as text."""
    name = m.group(1) if m.group(1) is not None else m.group(2)
    if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
        return chr(int(name[1:], 16))
    if len(name) == 2 and name[0] in ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + ACCENTS[name[0]])
    return GLYPHS.get(name, " ")


def troff_text(line):
    """A troff text line without its escapes (enough for NAME lines)."""
    s = line
    s = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", s)        # fonts
    s = re.sub(r"\\s[+-]?(\d+|\[[^\]]*\]|\(..)", "", s)  # sizes
    s = re.sub(r"\\\*(\[[^\]]*\]|\(..|.)", "", s)       # strings
    s = s.replace("\\-", "-").replace("\\&", "").replace("\\ ", " ").replace("\\|", "").replace("\\^", "")
    s = re.sub(r"\\\[([^\]]*)\]|\\\((..)", glyph, s)     # special characters
    s = re.sub(r"\\.", "", s)
    return s


def man_description(data):
    """The NAME description of a man(7) or mdoc(7) page's source, or None."""
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    # The first section is NAME in every language (BEZEICHNUNG, NOM, ...).
    for i, line in enumerate(lines):
        if re.match(r"\.S[Hh]\s", line) or line.strip() in (".SH", ".Sh"):
            break
    else:
        return None
    mdoc = lines[i].startswith(".Sh")
    body = []
    for line in lines[i + 1:]:
        if re.match(r"\.(SH|Sh|SS|Ss)(\s|$)", line):
            break
        if mdoc:
            if line.startswith(".Nd"):
                return troff_text(line[3:]).strip()
            continue
        if line.startswith((".", "'")):
            m = re.match(r"\.(B|I|BI|IB|BR|RB|IR|RI|SM)\s+(.*)", line)
            if m:
                body.append(troff_text(m.group(2).replace('"', "")))
            continue
        body.append(troff_text(line))
    joined = " ".join(body)
    for sep in (" - ", " -- ", " — "):
        if sep in joined:
            return joined.split(sep, 1)[1].strip()
    return None


def make_man(corpus, files, seed, n):
    entries = []
    for rel, _ in files:
        if not MAN_NAME.search(rel) or not any(p.startswith("man") for p in rel.split(os.sep)[:-1]):
            continue
        try:
            with gzip.open(os.path.join(corpus, rel), "rb") as f:
                data = f.read(256 * 1024)
        except (OSError, EOFError):
            continue
        d = man_description(data)
        if d:
            entries.append((rel, words(d)))
    cands = unique(entries, 2, 12)
    log(f"man: {len(cands)} unique NAME descriptions of {len(entries)} man pages with one")
    return [{"query": " ".join(ws), "known": [rel]} for rel, ws in sample("man", seed, cands, n)]


def load_sets(corpus, names, seed, sizes, sets_dir):
    os.makedirs(sets_dir, exist_ok=True)
    out, files, heads = {}, None, None
    for name in names:
        path = os.path.join(sets_dir, f"{name}-seed{seed}-n{sizes[name]}.json")
        if os.path.exists(path):
            with open(path) as f:
                cached = json.load(f)
            if cached.get("version") == SETS_VERSION and cached.get("corpus") == corpus:
                out[name] = cached["queries"]
                log(f"{name}: {len(out[name])} queries from {path}")
                continue
        if files is None:
            log(f"walking {corpus}")
            files = walk(corpus)
        if name in ("titles", "descriptions") and heads is None:
            log("reading the HTML pages' heads")
            heads = html_heads(corpus, files)
        if name == "titles":
            qs = make_titles(corpus, files, seed, sizes[name], heads)
        elif name == "descriptions":
            qs = make_descriptions(corpus, files, seed, sizes[name], heads)
        elif name == "lines":
            qs = make_lines(corpus, files, seed, sizes[name])
        else:
            qs = make_man(corpus, files, seed, sizes[name])
        for i, q in enumerate(qs):
            q["id"] = f"{name[0]}{i + 1:03d}"
        with open(path + ".part", "w") as f:
            json.dump({"version": SETS_VERSION, "set": name, "seed": seed, "size": sizes[name],
                       "corpus": corpus, "queries": qs}, f, indent=1, ensure_ascii=False)
        os.replace(path + ".part", path)
        out[name] = qs
    return out


# ------------------------------------------------------------------ the engines
class Engine:
    def __init__(self, name, argv, parse):
        self.name, self.argv, self.parse = name, argv, parse

    def run(self, query):
        """(result paths, wall seconds, CPU seconds (user+sys of the process), error text or None)."""
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(self.argv(query), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        err = None
        if p.returncode >= 2:
            first = p.stderr.decode("utf-8", "replace").strip().splitlines()
            err = f"exit {p.returncode}: {first[0] if first else ''}"
        return self.parse(p.stdout), dt, cpu, err


def fsfind_engine(bin_dir, fsfind, index_dir, limit, env_dir):
    exe = os.path.join(bin_dir, fsfind)
    if not os.access(exe, os.X_OK):
        die(f"no {exe} (build it: swift build -c release --static-swift-stdlib)")
    # fsfind-direct reads no settings file. fsfind through fsindexd keeps the caller's config
    # folder: a client whose settings differ from the daemon's is not answered by it, and runs
    # fsfind-direct instead (start fsindexd for INDEX_DIR first).
    if fsfind == "fsfind-direct":
        os.environ["XDG_CONFIG_HOME"] = os.path.join(env_dir, "config")

    def parse(out):
        return [os.fsdecode(p) for p in out.split(b"\0") if p]
    return Engine(fsfind, lambda q: [exe, "--index-dir", index_dir, "--limit", str(limit), "-0", "--", q], parse)


def recoll_engine(conf, limit):
    if not os.path.isdir(os.path.join(conf, "xapiandb")):
        die(f"{conf} holds no xapiandb (a recoll config dir with its index, e.g. peers.sh's with PEERS_KEEP=1)")

    def parse(out):
        return [os.fsdecode(l[7:]) for l in out.split(b"\n") if l.startswith(b"file://")]
    return Engine("recollq", lambda q: ["recollq", "-c", conf, "-n", str(limit), "-b", q], parse)


def rank_of(results, known, limit):
    for i, p in enumerate(results[:limit]):
        if os.path.normpath(p) in known:
            return i + 1
    return 0


def figures(rows, limit):
    ranks = [r["rank"] for r in rows]
    ms = sorted(r["ms"] for r in rows)
    cpu = sorted(r["cpu_ms"] for r in rows)
    hist = {"1": 0, "2-3": 0, "4-10": 0, f"11-{limit}": 0, "miss": 0}
    for k in ranks:
        if k == 0: hist["miss"] += 1
        elif k == 1: hist["1"] += 1
        elif k <= 3: hist["2-3"] += 1
        elif k <= 10: hist["4-10"] += 1
        else: hist[f"11-{limit}"] += 1
    return {"n": len(rows), "mrr": sum(1 / k for k in ranks if k) / len(rows) if rows else 0.0,
            "hist": hist, "errors": sum(1 for r in rows if r.get("error")),
            "median_ms": statistics.median(ms) if ms else 0.0,
            "p90_ms": ms[max(0, -(-9 * len(ms) // 10) - 1)] if ms else 0.0,
            "median_cpu_ms": statistics.median(cpu) if cpu else 0.0}


def table(summary, limit):
    head = f"{'set':<13} {'engine':<14} {'n':>4} {'MRR@' + str(limit):>7} {'1':>4} {'2-3':>4} {'4-10':>5} {'11-' + str(limit):>5} {'miss':>5} {'err':>4} {'med_ms':>7} {'p90_ms':>7} {'med_cpu':>7}"
    lines = [head]
    for s, engines in summary.items():
        for e, f in engines.items():
            h = f["hist"]
            lines.append(f"{s:<13} {e:<14} {f['n']:>4} {f['mrr']:>7.3f} {h['1']:>4} {h['2-3']:>4} {h['4-10']:>5} {h['11-' + str(limit)]:>5} {h['miss']:>5} {f['errors']:>4} {f['median_ms']:>7.1f} {f['p90_ms']:>7.1f} {f['median_cpu_ms']:>7.1f}")
    return "\n".join(lines)


def compare(before, after):
    def load(d):
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        rows = {}
        with open(os.path.join(d, "ranks.tsv")) as f:
            next(f)
            for line in f:
                st, qid, eng, rank, ms, cpu, n, query, known = line.rstrip("\n").split("\t")
                rows[(st, qid, eng)] = (int(rank), query)
        return s, rows
    sb, rb = load(before)
    sa, ra = load(after)
    for st in sa["sets"]:
        for eng, fa in sa["sets"][st].items():
            fb = sb["sets"].get(st, {}).get(eng)
            mb = f"{fb['mrr']:.3f}" if fb else "-"
            tb = f"{fb['median_ms']:.1f}" if fb else "-"
            cb = f"{fb['median_cpu_ms']:.1f}" if fb and "median_cpu_ms" in fb else "-"
            print(f"{st:<13} {eng:<14} MRR {mb} -> {fa['mrr']:.3f}   median ms {tb} -> {fa['median_ms']:.1f}"
                  f"   median CPU ms {cb} -> {fa.get('median_cpu_ms', 0):.1f}")
            changed = [(k, ra[k], rb[k]) for k in sorted(ra) if k[0] == st and k[2] == eng and k in rb and ra[k][0] != rb[k][0]]
            if changed:
                print(f"  changed ranks (0 = miss): {len(changed)}")
                for k, a, b in changed:
                    print(f"    {k[1]}  {b[0]:>2} -> {a[0]:>2}  {a[1]}")
            if any(k[0] == st and k[2] == eng and k in rb and ra[k][1] != rb[k][1] for k in ra):
                print("  NOTE: the two runs' queries differ (other seed or sets)")


def main():
    if sys.argv[1] == "--compare":
        if len(sys.argv) != 4:
            die("usage: relevance-bench.sh --compare BEFORE_OUT AFTER_OUT", 64)
        compare(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(prog="relevance-bench.sh")
    ap.add_argument("corpus"); ap.add_argument("bin_dir"); ap.add_argument("index_dir")
    ap.add_argument("--recoll-conf"); ap.add_argument("--sets", default=",".join(SET_NAMES))
    ap.add_argument("--seed", type=int, default=24); ap.add_argument("--per-set", type=int)
    ap.add_argument("--out", default="relevance-out"); ap.add_argument("--sets-dir")
    ap.add_argument("--runs", type=int, default=1); ap.add_argument("--fsfind", default="fsfind-direct")
    ap.add_argument("--limit", type=int, default=20)
    a = ap.parse_args(sys.argv[1:])
    names = [s for s in a.sets.split(",") if s]
    for s in names:
        if s not in SET_NAMES:
            die(f"unknown set {s!r} (known: {', '.join(SET_NAMES)})", 64)
    if a.runs < 1 or a.limit < 1 or (a.per_set is not None and a.per_set < 1):
        die("--runs, --limit and --per-set must be positive", 64)
    corpus = os.path.realpath(a.corpus)
    if not os.path.isdir(corpus):
        die(f"no corpus folder {a.corpus}", 64)
    if not os.path.isdir(a.index_dir):
        die(f"no index folder {a.index_dir} (make it: fsindex index --index-dir {a.index_dir} {a.corpus})", 64)
    sizes = {s: a.per_set or DEFAULT_SIZES[s] for s in names}
    env_dir = tempfile.mkdtemp(prefix="relevance-bench.")
    atexit.register(shutil.rmtree, env_dir, True)
    engines = [fsfind_engine(a.bin_dir, a.fsfind, os.path.abspath(a.index_dir), a.limit, env_dir)]
    if a.recoll_conf:
        engines.append(recoll_engine(os.path.abspath(a.recoll_conf), a.limit))
    os.makedirs(a.out, exist_ok=True)
    sets = load_sets(corpus, names, a.seed, sizes, a.sets_dir or os.path.join(a.out, "sets"))
    # Known paths as the corpus was given and as it really is (the index may hold either).
    prefixes = {os.path.abspath(a.corpus), corpus}

    first = next((qs[0]["query"] for qs in sets.values() if qs), None)
    if first:
        for e in engines:
            e.run(first)  # warm-up: page cache, dynamic loader
    rows = []
    with open(os.path.join(a.out, "results.jsonl"), "w") as rj:
        for name in names:
            log(f"{name}: {len(sets[name])} queries × {len(engines)} engines × {a.runs} runs")
            for i, q in enumerate(sets[name]):
                known = {os.path.normpath(os.path.join(p, k)) for p in prefixes for k in q["known"]}
                order = engines if i % 2 == 0 else engines[::-1]
                got = {}
                for _ in range(a.runs):
                    for e in order:
                        res, dt, cpu, err = e.run(q["query"])
                        g = got.setdefault(e.name, {"times": [], "cpu": []})
                        g["times"].append(dt * 1000)
                        g["cpu"].append(cpu * 1000)
                        g["results"], g["error"] = res, err
                for e in engines:
                    g = got[e.name]
                    r = {"set": name, "id": q["id"], "engine": e.name, "query": q["query"], "known": q["known"][0],
                         "rank": rank_of(g["results"], known, a.limit), "ms": statistics.median(g["times"]),
                         "cpu_ms": statistics.median(g["cpu"]),
                         "results": g["results"][:a.limit], "error": g["error"]}
                    rows.append(r)
                    rj.write(json.dumps(r, ensure_ascii=False) + "\n")
    summary = {s: {e.name: figures([r for r in rows if r["set"] == s and r["engine"] == e.name], a.limit)
                   for e in engines} for s in names}
    with open(os.path.join(a.out, "ranks.tsv"), "w") as f:
        f.write("set\tid\tengine\trank\tms\tcpu_ms\tresults\tquery\tknown\n")
        for r in rows:
            f.write(f"{r['set']}\t{r['id']}\t{r['engine']}\t{r['rank']}\t{r['ms']:.2f}\t{r['cpu_ms']:.2f}\t{len(r['results'])}\t{r['query']}\t{r['known']}\n")
    header = (f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
              f"corpus {corpus}; index {a.index_dir}; seed {a.seed}; runs {a.runs}; "
              + ("recoll " + a.recoll_conf if a.recoll_conf else "no recoll"))
    text = header + "\n" + table(summary, a.limit)
    errors = [r for r in rows if r["error"]]
    if errors:
        text += f"\n# {len(errors)} errors, e.g. {errors[0]['engine']} on {errors[0]['query']!r}: {errors[0]['error']}"
    print(text)
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"seed": a.seed, "corpus": corpus, "index": a.index_dir, "recoll": a.recoll_conf,
                   "limit": a.limit, "runs": a.runs, "sets": summary}, f, indent=1)


main()
PY
