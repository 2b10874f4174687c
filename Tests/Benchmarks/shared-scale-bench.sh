#!/usr/bin/env bash
# shared-scale-bench.sh — the shared (PostgreSQL) index at scale, beside SQLite on the same data:
# four concurrent watchers publish synthetic items; ingest rate, query latency and index size,
# and how each grows from the smallest size to the largest.
#
# Usage: shared-scale-bench.sh BIN_DIR [SIZES] [CORPUS]
#   BIN_DIR  folder with fsindex and fsfind (fsindex needs the publish command, fsfind --index-url)
#   SIZES    total item counts, each split evenly over 4 watchers (default "100000 1000000")
#   CORPUS   a tree whose texts and file names are reused (default /work/bench-corpus, the
#            ~111k files of shared/bench/make-corpus.sh); only read.
#
# Items: SSB_SAMPLE (3000) text files of CORPUS (no NUL in their first 2 KiB, UTF-8, types capped
# at a quarter of the sample each) give the texts (the first ≤ 2 KiB, cut at a random length
# between a third and all of it), each with its type (contentType, kind: Python script, HTML
# document, C header...); every file name of CORPUS gives name stems. Item i of watcher w
# (python3, seeded per watcher, so a smaller size's items are the first of a larger one's):
#   {"uniqueIdentifier": "/synthetic/w<w>/dir<i/1000>/<stem>_<i>.<ext>", "attributes": {"name",
#    "title" (the text's first line), "textContent", "contentType", "kind", "keywords"}}
# written as JSON lines, 1000 items a file (one `fsindex donate` batch).
# Per size N:
#   sqlite      every batch of the 4 watchers donated into ONE index (fsindex donate --index-dir
#               DIR --domain w<w> FILE, a process per batch, one after the other): items/s.
#   postgresql  a throwaway cluster (PG_BIN, default /usr/lib/postgresql/15/bin; initdb -A trust,
#               socket only, port SSB_PG_PORT=54331, default settings; as user postgres when run
#               as root); a fresh database per size. Each watcher's batches are donated into its
#               own local index, the 4 watchers at once as on 4 machines (SSB_LOCAL_JOBS=1: one
#               after the other), timed apart as "local donate"; then the 4 `fsindex publish
#               --index-dir LOCAL<w> --index-url URL --host host<w>` run at once; ingest =
#               N / wall seconds until the last one exits (each limited to SSB_PUBLISH_TIMEOUT
#               seconds, default 7200).
#   queries     median of SSB_RUNS (11) runs, process start included (a process per run, stdout
#               to /dev/null), with --index-dir (sqlite) or --index-url (postgresql), and
#               --time-limit SSB_TIME_LIMIT (300 s; fsfind's default of 10 s would stop the big ones);
#               a query whose first run (the hits run) takes over SSB_SLOW_S (10) s is timed 3 times:
#                 word   fsfind --limit 20 WORD          (WORD: a word, prefix-matched, of ~3 % of items)
#                 name   fsfind --limit 20 --name PART   (PART: in ~3 % of names)
#                 kind   fsfind --limit 20 kind:public.python-script
#                        (kind:code/kind:text do not match donated items: only their contentType
#                        itself is stored as their type, not its tree)
#                 group  fsfind --group-by kind          (all items)
#               Each is run once first: it must exit 0 on the sqlite side; the hits (--count;
#               for group: the sum of the groups) and fsfind's peak RSS in that run (/usr/bin/time
#               %M) are printed for both sides.
#   sizes       du -sb of the SQLite index folder; pg_database_size('fsindex').
# Prints per size a tab-separated table: measure, sqlite, postgresql, ratio (postgresql/sqlite);
# then "growth": each measure at the largest size divided by the one at the smallest. `uptime`
# at start and end (the machine is shared). Progress goes to stderr.
# Exit status: 2 when fsindex has no publish command or fsfind no --index-url (SSB_SQLITE_ONLY=1
# runs the sqlite side alone instead), 1 on any other failure.
#   SSB_KEEP_PG=1  the cluster is left running at the end, with the largest size's database, and
#               its URL printed (to study plans); stop it with the pg_ctl line printed beside it.
#   SSB_NO_RUM=1  the database is owned by a role that is no superuser (fsindex_norum), so the
#               schema migration cannot create the rum extension: the shared index without the RUM
#               index (GIN on words; word queries rank every match), as on a server without it.
# Big sizes (the PostgreSQL side alone):
#   SSB_PG_ONLY_ABOVE=N  sizes above N items skip the SQLite side (its columns print "-"), and
#               are made, donated and published in chunks of SSB_CHUNK items (default 1000000;
#               a multiple of 4000): each chunk's batches (the same items, in the same order, as
#               one whole run makes) are donated into 4 temporary local indexes, with domains
#               w<w>c<k>, published by the 4 watchers at once, then deleted; so the disk holds the
#               database plus one chunk. ingest and local donate are the sums over the chunks.
# Disk: ~2 KiB of JSON per item, plus two SQLite copies of the items and the database
# (1M items: ~15 GB in TMPDIR at the peak; SSB_FULL_BYTES_PER_ITEM=15000); a chunked size needs
# the database (SSB_PG_BYTES_PER_ITEM=6000 per item) plus a chunk's (7000 per item). Before
# each size the script compares that with `df` of TMPDIR and refuses a size that cannot fit.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 64; }
bin=$1 sizes=${2:-"100000 1000000"} corpus=${3:-/work/bench-corpus}
runs=${SSB_RUNS:-11} port=${SSB_PG_PORT:-54331} pgbin=${PG_BIN:-/usr/lib/postgresql/15/bin}
sqlite_only=${SSB_SQLITE_ONLY:-0} pub_timeout=${SSB_PUBLISH_TIMEOUT:-7200} nsample=${SSB_SAMPLE:-3000}
qlimit=${SSB_TIME_LIMIT:-300} slow_s=${SSB_SLOW_S:-10} local_jobs=${SSB_LOCAL_JOBS:-4}
pg_only_above=${SSB_PG_ONLY_ABOVE:-} chunk=${SSB_CHUNK:-1000000} no_rum=${SSB_NO_RUM:-0} keep_pg=${SSB_KEEP_PG:-0}
full_bpi=${SSB_FULL_BYTES_PER_ITEM:-15000} pg_bpi=${SSB_PG_BYTES_PER_ITEM:-6000} chunk_bpi=7000
log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

for n in $sizes; do
    [[ $n =~ ^[0-9]+$ ]] && (( n >= 4000 && n % 4000 == 0 )) || die "size $n: give multiples of 4000 (4 watchers, batches of 1000)"
done
[[ $chunk =~ ^[0-9]+$ ]] && (( chunk >= 4000 && chunk % 4000 == 0 )) || die "SSB_CHUNK=$chunk: give a multiple of 4000"
[ -z "$pg_only_above" ] || [[ $pg_only_above =~ ^[0-9]+$ ]] || die "SSB_PG_ONLY_ABOVE=$pg_only_above: give a number of items"
[ -z "$pg_only_above" ] || [ "$sqlite_only" != 1 ] || die "SSB_PG_ONLY_ABOVE and SSB_SQLITE_ONLY=1 exclude each other"
for b in fsindex fsfind; do [ -x "$bin/$b" ] || die "$bin/$b is missing"; done
[ -d "$corpus" ] || die "corpus $corpus is missing"
if [ "$sqlite_only" != 1 ]; then
    # An unknown subcommand's --help prints the overall help with status 0, so look for its usage.
    # The help is read whole before grep looks at it: `grep -q` stops at the first match, and
    # under pipefail the writer's SIGPIPE would fail the check now and then.
    if ! grep -q 'USAGE: fsindex publish' <<<"$("$bin/fsindex" publish --help 2>&1)"; then
        echo "error: $bin/fsindex has no 'publish' command (fsindex publish --help); this build cannot feed a shared index. (SSB_SQLITE_ONLY=1 runs the SQLite side alone.)" >&2
        exit 2
    fi
    if ! grep -q -- '--index-url' <<<"$("$bin/fsfind" --help 2>&1)"; then
        echo "error: $bin/fsfind has no --index-url option; this build cannot query a shared index. (SSB_SQLITE_ONLY=1 runs the SQLite side alone.)" >&2
        exit 2
    fi
    for b in initdb pg_ctl; do [ -x "$pgbin/$b" ] || die "$pgbin/$b is missing (PG_BIN)"; done
    command -v psql >/dev/null || die "psql is missing"
fi

tmp=$(mktemp -d); pgdir=
cleanup() {
    local pid
    for pid in $(cat "$tmp"/pub*.pid "$tmp"/don*.pid 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    if [ "$keep_pg" = 1 ] && [ -n "$pgdir" ] && [ -f "$pgdir/data/postmaster.pid" ]; then
        log "kept: $URL (stop: $pgbin/pg_ctl -D $pgdir/data stop$([ "$(id -u)" != 0 ] || echo ', as postgres'); then rm -rf $pgdir)"
        rm -rf "$tmp"; return
    fi
    if [ -n "$pgdir" ] && [ -f "$pgdir/data/postmaster.pid" ]; then pgrun "$pgbin/pg_ctl" -D "$pgdir/data" stop -m fast >/dev/null 2>&1 || true; fi
    rm -rf "$tmp"; [ -z "$pgdir" ] || rm -rf "$pgdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export XDG_RUNTIME_DIR=$tmp/run XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data
mkdir -m 700 -p "$tmp/run"
if [ "$(id -u)" = 0 ]; then pgrun() { runuser -u postgres -- "$@"; }; else pgrun() { "$@"; }; fi

cat > "$tmp/gen.py" <<'PY'
import json, os, random, re, sys
# ext -> (contentType, kind), names as in Sources/Attributes/WellKnownType.swift
TYPES = {
    "py": ("public.python-script", "Python script"), "c": ("public.c-source", "C source"),
    "h": ("public.c-header", "C header"), "hpp": ("public.c-plus-plus-header", "C++ header"),
    "hh": ("public.c-plus-plus-header", "C++ header"), "cc": ("public.c-plus-plus-source", "C++ source"),
    "cpp": ("public.c-plus-plus-source", "C++ source"), "md": ("net.daringfireball.markdown", "Markdown document"),
    "html": ("public.html", "HTML document"), "htm": ("public.html", "HTML document"),
    "txt": ("public.plain-text", "Plain text document"), "rst": ("public.plain-text", "Plain text document"),
    "": ("public.plain-text", "Plain text document"), "js": ("com.netscape.javascript-source", "JavaScript source"),
    "pl": ("public.perl-script", "Perl script"), "pm": ("public.perl-script", "Perl script"),
    "sh": ("public.shell-script", "Shell script"), "swift": ("public.swift-source", "Swift source"),
    "rs": ("org.rust-lang.rust-source", "Rust source"), "css": ("public.css", "CSS stylesheet"),
    "json": ("public.json", "JSON document"), "xml": ("public.xml", "XML document"),
    "toml": ("public.toml", "TOML document"),
}
SEED = "fsindex-shared-scale"

def ext_of(name):
    return name.rsplit(".", 1)[1].lower() if "." in name.strip(".") else ""

def sample(corpus, count, out):
    files, stems = [], []
    for root, dirs, names in os.walk(corpus):
        dirs.sort()
        for n in sorted(names):
            stem = n.split(".", 1)[0] if not n.startswith(".") else n[1:].split(".", 1)[0]
            if stem: stems.append(stem[:40])
            if ext_of(n) in TYPES: files.append(os.path.join(root, n))
    rng = random.Random(SEED)
    rng.shuffle(files)
    texts, per = [], {}
    for p in files:
        if len(texts) >= count: break
        e = ext_of(os.path.basename(p)); uti, kind = TYPES[e]
        if per.get(uti, 0) >= count // 4: continue
        try:
            with open(p, "rb") as f: raw = f.read(2048)
        except OSError:
            continue
        if len(raw) < 200 or b"\0" in raw: continue
        t = raw.decode("utf-8", "ignore")
        if t.count("\ufffd") > 2: continue
        per[uti] = per.get(uti, 0) + 1
        top = os.path.relpath(p, corpus).split(os.sep)[0]
        texts.append([t, uti, kind, e, top])
    if len(texts) < 100: sys.exit(f"only {len(texts)} usable text files in {corpus}")
    json.dump({"texts": texts, "stems": stems}, open(out, "w"))
    return texts, stems

def items(texts, stems, w, count, start=0, rng=None):
    rng = rng or random.Random(f"{SEED}-w{w}")
    for i in range(start, start + count):
        t, uti, kind, e, top = rng.choice(texts)
        text = t[:rng.randint(len(t) // 3, len(t))]
        name = f"{rng.choice(stems)}_{i}" + (f".{e}" if e else "")
        title = next((l.strip()[:80] for l in text.splitlines() if l.strip()), name)
        words = sorted(set(re.findall(r"[A-Za-z]{4,}", text)))
        kws = [top] + (rng.sample(words, 2) if len(words) >= 2 else [])
        yield {"uniqueIdentifier": f"/synthetic/w{w}/dir{i // 1000}/{name}",
               "attributes": {"name": name, "title": title, "textContent": text, "contentType": uti,
                              "kind": kind, "keywords": kws}}

def pick(texts, stems):
    """A word (prefix-matched, as fsfind does) in ~3 % of items, and a name part in ~3 % of names."""
    sims = list(items(texts, stems, 0, 4000))
    toks = [set(re.findall(r"[a-z0-9]+", (it["attributes"]["name"] + " " + it["attributes"]["title"] + " "
                                            + it["attributes"]["textContent"] + " " + " ".join(it["attributes"]["keywords"])).lower()))
            for it in sims]
    df = {}
    for s in toks:
        for t in s: df[t] = df.get(t, 0) + 1
    cands = sorted(t for t, c in df.items() if t.isalpha() and 5 <= len(t) <= 12 and 0.01 * len(sims) <= c <= 0.06 * len(sims))
    pdf = lambda c: sum(1 for s in toks if any(t.startswith(c) for t in s))
    word = min(cands, key=lambda c: (abs(pdf(c) - 0.03 * len(sims)), c))
    names = [it["attributes"]["name"].lower() for it in sims]
    ndf = {}
    for n in names:
        for t in set(re.findall(r"[a-z]{4,}", n)): ndf[t] = ndf.get(t, 0) + 1
    parts = sorted(t for t, c in ndf.items() if 0.005 * len(sims) <= c <= 0.1 * len(sims))
    part = min(parts, key=lambda p: (abs(sum(p in n for n in names) - 0.03 * len(sims)), p))
    return word, part

if sys.argv[1] == "sample":
    corpus, count, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    texts, stems = sample(corpus, count, out)
    word, part = pick(texts, stems)
    kinds = {}
    for t in texts: kinds[t[2]] = kinds.get(t[2], 0) + 1
    print(f"WORD={word}\nNAMEPART={part}\nNTEXTS={len(texts)}\nNSTEMS={len(stems)}")
    print("KINDS='" + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])) + "'")
else:  # gen SAMPLE N OUTDIR [START STATEDIR]: N/4 items per watcher, OUTDIR/w<w>/batch-<b>.jsonl
    # of 1000 items; with START (items before this chunk, all watchers), the watcher's random
    # state continues from STATEDIR/w<w>.state, so chunks make the very items one run makes.
    import pickle
    d = json.load(open(sys.argv[2])); n, out = int(sys.argv[3]), sys.argv[4]
    start = int(sys.argv[5]) // 4 if len(sys.argv) > 5 else 0
    states = sys.argv[6] if len(sys.argv) > 6 else None
    for w in range(4):
        os.makedirs(f"{out}/w{w}", exist_ok=True)
        rng = None
        if states and start > 0:
            rng = random.Random(); rng.setstate(pickle.load(open(f"{states}/w{w}.state", "rb")))
        elif states:
            rng = random.Random(f"{SEED}-w{w}")
        f = None
        for i, it in enumerate(items(d["texts"], d["stems"], w, n // 4, start, rng), start):
            if i % 1000 == 0:
                if f: f.close()
                f = open(f"{out}/w{w}/batch-{i // 1000:05d}.jsonl", "w")
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
        f.close()
        if states: pickle.dump(rng.getstate(), open(f"{states}/w{w}.state", "wb"))
PY

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "error" || b == "error" || b + 0 == 0) print "-"; else { x = a / b; printf((x >= 100 || x <= -100) ? "%.0f\n" : "%.3g\n", x) } }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# donate DIR INDEX: each batch file of DIR (sorted) into INDEX, domain = DIR's name (w<w>).
donate() {
    local f dom; dom=$(basename "$1")
    for f in "$1"/batch-*.jsonl; do
        "$bin/fsindex" donate --index-dir "$2" --domain "$dom" "$f" >/dev/null 2>"$2.err" \
            || die "fsindex donate --index-dir $2 --domain $dom $f: $(head -3 "$2.err")"
    done
}

declare -A V          # V[n,measure,side]
measures=()
row() {  # row N MEASURE SQLITE POSTGRESQL
    V[$1,$2,s]=$3 V[$1,$2,p]=$4
    [[ " ${measures[*]} " == *" $2 "* ]] || measures+=("$2")
    printf '%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$(div "$4" "$3")"
}
# The queries: label, then the arguments after the index option (listing ones: --limit 20).
qnames=(word name kind group)
qbase() {
    case $1 in
        word) echo "$WORD" ;; name) echo "--name $NAMEPART" ;;
        kind) echo "kind:public.python-script" ;; group) echo "--group-by kind" ;;
    esac
}
qargs() { if [ "$1" = group ]; then qbase "$1"; else echo "--limit 20 $(qbase "$1")"; fi; }
fsfind() { "$bin/fsfind" --time-limit "$qlimit" "$@"; }
rsstime=; [ ! -x /usr/bin/time ] || rsstime="/usr/bin/time -q -f %M -o $tmp/qrss"
rss_mb() { if [ -s "$tmp/qrss" ]; then div "$(tail -1 "$tmp/qrss")" 1024; else echo -; fi; }
# hits SIDEOPT SIDEVAL Q: runs the query once and prints its hit count (--count; group: the sum
# of the groups), or "error" with what fsfind said in $tmp/qerr.
hits() {
    local o=$1 v=$2 q=$3 a rc=0 c s
    read -ra a <<<"$(qargs "$q")"
    rm -f "$tmp/qrss"
    s=$(now); $rsstime "$bin/fsfind" --time-limit "$qlimit" "$o" "$v" "${a[@]}" >"$tmp/qout" 2>"$tmp/qerr" || rc=$?
    echo $(( ($(now) - s) / 1000000 )) >"$tmp/qfirst_ms"
    if [ $rc -ne 0 ]; then echo error; { echo "(exit $rc)"; head -3 "$tmp/qout"; } >>"$tmp/qerr"; return; fi
    if [ "$q" = group ]; then awk '{ s += $1 } END { print s + 0 }' "$tmp/qout"; return; fi
    read -ra a <<<"$(qbase "$q")"
    c=$(fsfind "$o" "$v" --count "${a[@]}" 2>>"$tmp/qerr") || { echo error; return; }
    echo "${c//[[:space:]]/}"
}
qtime() {  # qtime SIDEOPT SIDEVAL Q: median ms, over min(SSB_RUNS, 3) runs when the hits run took over SSB_SLOW_S
    local o=$1 v=$2 a s e r=$runs f
    read -ra a <<<"$(qargs "$3")"
    f=$(cat "$tmp/qfirst_ms")
    if (( f > slow_s * 1000 && r > 3 )); then
        r=3; echo "# note: ${o#--index-} $3: one run took $(div "$f" 1000) s, so the median is of $r runs" >>"$tmp/qnotes"
    fi
    for _ in $(seq "$r"); do
        s=$(now); fsfind "$o" "$v" "${a[@]}" >/dev/null 2>&1 || true; e=$(now)
        echo $(( (e - s) / 1000 ))
    done | median | awk '{ printf "%.1f", $1 / 1000 }'
}

pg_start() {
    pgdir=$(mktemp -d); chmod 755 "$pgdir"
    [ "$(id -u)" != 0 ] || chown postgres "$pgdir"
    pgrun "$pgbin/initdb" -D "$pgdir/data" -A trust -U fsindex --locale=C.UTF-8 -E UTF8 >"$tmp/initdb.log" 2>&1 \
        || die "initdb failed: $(tail -3 "$tmp/initdb.log")"
    pgrun "$pgbin/pg_ctl" -D "$pgdir/data" -o "-k $pgdir -c listen_addresses='' -p $port" -l "$pgdir/log" -w start >/dev/null \
        || die "pg_ctl start failed: $(tail -5 "$pgdir/log")"
    URL="postgresql://fsindex@/fsindex?host=$pgdir&port=$port"
    if [ "$no_rum" = 1 ]; then
        psqlc -d postgres -c 'create role fsindex_norum login'
        URL="postgresql://fsindex_norum@/fsindex?host=$pgdir&port=$port"
    fi
}
# A fresh database for a size (SSB_NO_RUM=1: owned by fsindex_norum).
fresh_db() {
    psqlc -d postgres -c 'drop database if exists fsindex' -c "create database fsindex$([ "$no_rum" != 1 ] || echo ' owner fsindex_norum')"
    [ "$no_rum" != 1 ] || psqlc -d fsindex -c 'alter schema public owner to fsindex_norum'
}
psqlc() { PGOPTIONS='-c client_min_messages=warning' psql -X -q -At -h "$pgdir" -p "$port" -U fsindex "$@"; }

log "start; load: $(uptime)"
echo "# shared-scale-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) bin=$bin sizes=\"$sizes\" corpus=$corpus runs=$runs"
echo "# fsindex $(stat -c %y "$bin/fsindex" | cut -d. -f1), fsfind $(stat -c %y "$bin/fsfind" | cut -d. -f1) (their source tree now: $(git -C "$bin" describe --always --dirty 2>/dev/null || echo '?')); $(nproc) cores"
echo "# load at start: $(uptime)"
log "sampling $nsample texts and the names of $corpus"
eval "$(python3 "$tmp/gen.py" sample "$corpus" "$nsample" "$tmp/sample.json")"
echo "# sample: $NTEXTS texts ($KINDS), $NSTEMS name stems; WORD=$WORD NAMEPART=$NAMEPART"
if [ "$sqlite_only" != 1 ]; then
    pg_start
    echo "# postgresql: $("$pgbin/postgres" --version), throwaway cluster, default settings (shared_buffers $(psqlc -d postgres -c 'show shared_buffers')); rum extension $(psqlc -d postgres -c "select coalesce((select 'available' from pg_available_extensions where name = 'rum'), 'absent')")$([ "$no_rum" != 1 ] || echo ', not used (SSB_NO_RUM=1)')"
fi

# publish_all PREFIX: the 4 watchers' `fsindex publish` of PREFIX<w> at once; prints the wall seconds.
publish_all() {
    local w rc failed= s e
    s=$(now)
    for w in 0 1 2 3; do
        timeout "$pub_timeout" "$bin/fsindex" publish --index-dir "$1$w" --index-url "$URL" --host "host$w" \
            >"$tmp/pub$w.log" 2>&1 &
        echo $! >"$tmp/pub$w.pid"
    done
    for w in 0 1 2 3; do
        rc=0; wait "$(cat "$tmp/pub$w.pid")" || rc=$?
        rm -f "$tmp/pub$w.pid"
        [ $rc -eq 0 ] || failed+=" host$w (exit $rc: $(tail -2 "$tmp/pub$w.log" | tr '\n' ' '))"
    done
    e=$(now)
    [ -z "$failed" ] || die "fsindex publish failed:$failed"
    secs "$s" "$e"
}
# donate_all DIR PREFIX: each watcher's batches of DIR/w<w> into PREFIX<w>, the 4 at once
# (SSB_LOCAL_JOBS=1: one after the other); the domain is DIR/w<w>'s name.
donate_all() {
    local w
    if [ "$local_jobs" = 1 ]; then
        for w in 0 1 2 3; do donate "$1/w$w" "$2$w"; done
    else
        for w in 0 1 2 3; do donate "$1/w$w" "$2$w" & echo $! >"$tmp/don$w.pid"; done
        for w in 0 1 2 3; do wait "$(cat "$tmp/don$w.pid")" || die "donating watcher $w's items failed (see above)"; done
    fi
}
# fits N PGONLY: refuses a size whose peak disk use TMPDIR cannot hold.
fits() {
    local need avail dir=${TMPDIR:-/tmp} c=$chunk
    (( c < $1 )) || c=$1
    if [ "$2" = 1 ]; then need=$(( $1 * pg_bpi + c * chunk_bpi )); else need=$(( $1 * full_bpi )); fi
    avail=$(df -B1 --output=avail "$dir" | tail -1)
    (( need <= avail )) || die "size $1 needs about $(div "$need" 1e9) GB in $dir at its peak ($([ "$2" = 1 ] && echo "the database at $pg_bpi bytes an item, plus a chunk of $c items" || echo "$full_bpi bytes an item: JSON, the SQLite index, 4 local indexes, the database")), and $(div "$avail" 1e9) GB are free; give a smaller size$([ "$2" = 1 ] || echo ", SSB_PG_ONLY_ABOVE (the PostgreSQL side alone, in chunks)"), or free space"
}

for n in $sizes; do
    pg_only=0
    [ -z "$pg_only_above" ] || (( n <= pg_only_above )) || pg_only=1
    fits "$n" "$pg_only"
    rm -rf "$tmp/items" "$tmp/sqlite" "$tmp"/local-w* "$tmp/states"
    sq_ingest=- pg_ingest=- pg_local=-
    if [ "$pg_only" = 1 ]; then
        fresh_db
        mkdir -p "$tmp/states"
        pg_ingest=0 pg_local=0 start=0 k=0
        echo; echo "# $n items ($(( n / 4 )) per watcher), PostgreSQL alone, in chunks of $chunk items"
        while (( start < n )); do
            c=$chunk; (( start + c <= n )) || c=$(( n - start ))
            log "== $n items: chunk $k ($start + $c): generating"
            python3 "$tmp/gen.py" gen "$tmp/sample.json" "$c" "$tmp/items" "$start" "$tmp/states"
            for w in 0 1 2 3; do mv "$tmp/items/w$w" "$tmp/items/w${w}c$k"; done
            log "postgresql: chunk $k: donating into 4 local indexes"
            s=$(now)
            if [ "$local_jobs" = 1 ]; then
                for w in 0 1 2 3; do donate "$tmp/items/w${w}c$k" "$tmp/local-w$w"; done
            else
                for w in 0 1 2 3; do donate "$tmp/items/w${w}c$k" "$tmp/local-w$w" & echo $! >"$tmp/don$w.pid"; done
                for w in 0 1 2 3; do wait "$(cat "$tmp/don$w.pid")" || die "donating watcher $w's items failed (see above)"; done
            fi
            e=$(now)
            pg_local=$(awk -v a="$pg_local" -v b="$(secs "$s" "$e")" 'BEGIN { printf "%.2f", a + b }')
            rm -rf "$tmp/items"
            log "postgresql: chunk $k: 4 publishers at once"
            t=$(publish_all "$tmp/local-w")
            pg_ingest=$(awk -v a="$pg_ingest" -v b="$t" 'BEGIN { printf "%.2f", a + b }')
            echo "# chunk $k: $c items published in $t s ($(div "$c" "$t") items/s); $(df -h --output=avail "${TMPDIR:-/tmp}" | tail -1 | tr -d ' ') free"
            rm -rf "$tmp"/local-w*
            start=$(( start + c )) k=$(( k + 1 ))
        done
        echo "# postgresql: $(psqlc -d fsindex -c 'select count(*) from items') rows in items"
    else
    log "== $n items: generating"
    python3 "$tmp/gen.py" gen "$tmp/sample.json" "$n" "$tmp/items"
    echo; echo "# $n items ($(( n / 4 )) per watcher, $(du -sm "$tmp/items" | cut -f1) MB of JSON lines)"
    log "sqlite: donating $n items into one index"
    s=$(now); for w in 0 1 2 3; do donate "$tmp/items/w$w" "$tmp/sqlite"; done; e=$(now)
    sq_ingest=$(secs "$s" "$e")
    if [ "$sqlite_only" != 1 ]; then
        fresh_db
        log "postgresql: donating into 4 local indexes"
        s=$(now)
        donate_all "$tmp/items" "$tmp/local-w"
        e=$(now)
        pg_local=$(secs "$s" "$e")
        log "postgresql: 4 publishers at once"
        pg_ingest=$(publish_all "$tmp/local-w")
        for w in 0 1 2 3; do echo "# publish host$w: $(tail -1 "$tmp/pub$w.log")"; done
        echo "# postgresql: $(psqlc -d fsindex -c 'select count(*) from items') rows in items"
    fi
    fi
    [ "$sqlite_only" = 1 ] || echo "# postgresql: word index $(psqlc -d fsindex -c "select string_agg(indexname || ' (' || pg_size_pretty(pg_relation_size(indexname::regclass)) || ')', ', ') from pg_indexes where tablename = 'items' and indexname like 'items_words%'")"
    rm -rf "$tmp/items"
    printf 'measure\tsqlite\tpostgresql\tratio\n'
    row "$n" items "$n" "$n"
    row "$n" ingest_s "$sq_ingest" "$pg_ingest"
    row "$n" ingest_items_per_s "$(div "$n" "$sq_ingest")" "$(div "$n" "$pg_ingest")"
    row "$n" local_donate_4_indexes_s - "$pg_local"
    row "$n" local_donate_items_per_s - "$(div "$n" "$pg_local")"
    for q in "${qnames[@]}"; do
        log "query $q: $(qargs "$q")"
        hs=- rs=- ts=-
        if [ "$pg_only" != 1 ]; then
            hs=$(hits --index-dir "$tmp/sqlite" "$q"); rs=$(rss_mb)
            [ "$hs" != error ] || die "sqlite: fsfind --index-dir $tmp/sqlite $(qargs "$q") failed: $(head -3 "$tmp/qerr")"
            ts=$(qtime --index-dir "$tmp/sqlite" "$q")
        fi
        hp=- tp=- rp=-
        if [ "$sqlite_only" != 1 ]; then
            hp=$(hits --index-url "$URL" "$q"); rp=$(rss_mb)
            if [ "$hp" = error ]; then
                tp=error; echo "# postgresql: fsfind --index-url URL $(qargs "$q") failed: $(head -3 "$tmp/qerr" | tr '\n' ' ')"
            else
                tp=$(qtime --index-url "$URL" "$q")
            fi
        fi
        row "$n" "q_${q}_ms" "$ts" "$tp"
        row "$n" "q_${q}_hits" "$hs" "$hp"
        row "$n" "q_${q}_peak_rss_mb" "$rs" "$rp"
        [ "$hp" = - ] || [ "$hp" = error ] || [ "$hs" = - ] || [ "$hp" = "$hs" ] || echo "# note: $q finds $hs items in sqlite, $hp in postgresql"
        if [ -s "$tmp/qnotes" ]; then cat "$tmp/qnotes"; rm "$tmp/qnotes"; fi
    done
    sb=- pb=-
    [ "$pg_only" = 1 ] || sb=$(du -sb "$tmp/sqlite" | cut -f1)
    [ "$sqlite_only" = 1 ] || pb=$(psqlc -d fsindex -c "select pg_database_size('fsindex')")
    row "$n" index_bytes "$sb" "$pb"
    row "$n" index_bytes_per_item "$(div "$sb" "$n")" "$(div "$pb" "$n")"
    echo "# load: $(uptime)"
done

set -- $sizes; first=$1; last=${!#}
if [ "$first" != "$last" ]; then
    echo; echo "# growth $first → $last items (value at $last / value at $first)"
    printf 'measure\tsqlite\tpostgresql\n'
    for m in "${measures[@]}"; do
        printf '%s\t%s\t%s\n' "$m" "$(div "${V[$last,$m,s]}" "${V[$first,$m,s]}")" "$(div "${V[$last,$m,p]}" "${V[$first,$m,p]}")"
    done
fi
echo; echo "# load at end: $(uptime)"
log "done"
