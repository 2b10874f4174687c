#!/usr/bin/env bash
# soak.sh: a day of use, compressed (issue 40). fsindexd watches a copy of the bench corpus
# while a seeded churn generator (soak_churn.py) works in it and a query load (soak_queries.py)
# asks fsfind and fsindex-mcp about 50 queries a second, with bursts of 5,000. No other test runs
# the daemon for long; this one looks for what only time shows: memory, descriptors or threads
# that grow, a crash, a lost change, a query left unanswered.
#
#   Tests/Benchmarks/soak.sh [--minutes N] [--seed N] [--corpus DIR] [--bin DIR] [--work DIR]
#                            [--churn-rate OPS] [--query-rate Q] [--bursts K] [--big-mb MB]
#                            [--sample-seconds S] [--settle-timeout S] [--keep]
#
#   --minutes N      minutes of churn and queries (default 120; the test suite runs 5)
#   --seed N         seeds the churn and the queries (default 1)
#   --corpus DIR     the bench corpus (make-corpus.sh); copied, never touched. Default: a small
#                    corpus made here with make-corpus.sh --small (../shared/bench/ beside the
#                    repository, or FSINDEX_MAKE_CORPUS)
#   --bin DIR        fsindex, fsindexd, fsfind, fsindex-mcp, fsindex-worker (default .build/release)
#   --work DIR       where everything goes (default: a new folder under $TMPDIR); kept with --keep
#   --bursts K       bursts of 5,000 queries (default: one per 20 minutes, at least 1)
#   --big-mb MB      size of the big file copied in (default 1024)
#
# Order: prepare the assets (a git repository with two branches, a 20,000-file tarball, the big
# file) outside the root; copy the corpus in; start fsindexd --foreground on an isolated index
# (FSINDEX_INDEX_DIR, XDG_*, HOME all under the work folder); wait for its first reconcile (the
# log's "reconciled ROOT" line, and an empty queue); then run churn and queries for N minutes
# while sampling fsindexd's RSS (VmRSS), descriptors (/proc/PID/fd) and threads every S seconds
# into resources.csv. Then let it settle (queue empty, `fsindex check` clean, retried until the
# settle timeout) and compare item by item (soak_compare.py: show --json against the disk,
# removed paths, donated and forgotten items).
#
# Pass rules (each printed with its figures):
#   - fsindexd never exited or changed pid (no crash, no restart);
#   - `fsindex check` finds nothing missing, stale or extra, and soak_compare.py no difference;
#   - the median RSS, descriptors and threads of the last window are at most 10 % above those
#     of the first window after the first reconcile. The window is 10 minutes, or a fifth of the
#     run when that is shorter (1 minute for the 5-minute version). RSS is judged only in runs
#     of 60 minutes or more: a short run's minutes are the daemon's warm-up (its caches fill
#     during the first churn cycle), which cannot be told from a leak that soon;
#   - every query answered (fsfind exit 0/1, MCP tool without isError, within 30 s); p99 shown;
#   - every churn operation succeeded.
# Exit status: 0 all held, 1 one failed, 2 usage or setup error. figures.txt in the work folder
# (and stdout) holds the summary.
# Needs bash, coreutils, git, tar, python3, and the MCP Python SDK in .build/mcp-venv (or
# FSINDEX_MCP_VENV; made as the test suite makes it when missing).
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
usage() {
    echo "usage: $0 [--minutes N] [--seed N] [--corpus DIR] [--bin DIR] [--work DIR] [--churn-rate OPS] [--query-rate Q] [--bursts K] [--big-mb MB] [--sample-seconds S] [--settle-timeout S] [--keep]" >&2
    exit 2
}
MINUTES=120 SEED=1 CORPUS= BIN=$repo/.build/release WORK= KEEP=0 CHURN_RATE=10 QUERY_RATE=50 BURSTS= BIG_MB=1024
SAMPLE=5 SETTLE_TIMEOUT=1800
MAKE_CORPUS=${FSINDEX_MAKE_CORPUS:-$repo/../shared/bench/make-corpus.sh}
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) MINUTES=${2:?}; shift 2 ;;
        --seed) SEED=${2:?}; shift 2 ;;
        --corpus) CORPUS=${2:?}; shift 2 ;;
        --bin) BIN=${2:?}; shift 2 ;;
        --work) WORK=${2:?}; shift 2 ;;
        --churn-rate) CHURN_RATE=${2:?}; shift 2 ;;
        --query-rate) QUERY_RATE=${2:?}; shift 2 ;;
        --bursts) BURSTS=${2:?}; shift 2 ;;
        --big-mb) BIG_MB=${2:?}; shift 2 ;;
        --sample-seconds) SAMPLE=${2:?}; shift 2 ;;
        --settle-timeout) SETTLE_TIMEOUT=${2:?}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage ;;
        *) echo "$0: unknown argument $1" >&2; usage ;;
    esac
done
[[ $MINUTES =~ ^[0-9]+(\.[0-9]+)?$ && $SEED =~ ^[0-9]+$ && $BIG_MB =~ ^[0-9]+$ && $SAMPLE =~ ^[0-9]+$ ]] || usage
BIN=$(cd "$BIN" 2>/dev/null && pwd) || { echo "$0: no folder $BIN" >&2; exit 2; }
for tool in fsindex fsindexd fsfind fsindex-mcp fsindex-worker; do
    [ -x "$BIN/$tool" ] || { echo "$0: $BIN/$tool is missing; build first (swift build -c release)" >&2; exit 2; }
done
for tool in git tar python3 awk; do
    command -v "$tool" > /dev/null || { echo "$0: $tool is needed" >&2; exit 2; }
done
SECONDS_RUN=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }')
[ -n "$BURSTS" ] || BURSTS=$(( SECONDS_RUN / 1200 > 1 ? SECONDS_RUN / 1200 : 1 ))
WINDOW=$(( SECONDS_RUN / 5 < 600 ? SECONDS_RUN / 5 : 600 ))

# The MCP client: the official SDK in a venv, as the Swift tests make it.
VENV=${FSINDEX_MCP_VENV:-$repo/.build/mcp-venv}
if ! "$VENV/bin/python" -c 'import mcp' 2> /dev/null; then
    echo "soak: making $VENV with the MCP Python SDK"
    { python3 -m venv --clear "$VENV" && "$VENV/bin/pip" install --quiet --disable-pip-version-check 'mcp>=2.3,<3'; } \
        || { echo "$0: cannot install the MCP Python SDK into $VENV" >&2; exit 2; }
fi

if [ -z "$WORK" ]; then WORK=$(mktemp -d "${TMPDIR:-/tmp}/fsindex-soak-XXXXXX") || exit 2; else mkdir -p "$WORK" || exit 2; fi
WORK=$(cd "$WORK" && pwd)
ROOT=$WORK/root ASSETS=$WORK/assets OUT=$WORK/out LOG=$WORK/out/fsindexd.log
mkdir -p "$ROOT" "$ASSETS" "$OUT" "$WORK/run" "$WORK/config/fsindex" "$WORK/cache" "$WORK/home" "$WORK/state" "$WORK/data"
chmod 700 "$WORK/run"
export FSINDEX_INDEX_DIR=$WORK/index XDG_RUNTIME_DIR=$WORK/run XDG_CONFIG_HOME=$WORK/config \
    XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state XDG_DATA_HOME=$WORK/data HOME=$WORK/home
# The daemon at normal priority, so what it does in the run does not hang on other work on the
# machine; everything else as a user has it.
printf '[daemon]\nthrottle = "normal"\nlog_level = "info"\n' > "$WORK/config/fsindex/config.toml"

DPID= SAMPLER= CHURN= QUERIES=
cleanup() {
    local p
    for p in $CHURN $QUERIES $SAMPLER; do kill "$p" 2> /dev/null; done
    if [ -n "$DPID" ] && kill -0 "$DPID" 2> /dev/null; then kill -TERM "$DPID"; wait "$DPID" 2> /dev/null; fi
    if [ "$KEEP" = 1 ]; then echo "soak: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '%s soak: %s\n' "$(date +%T)" "$*"; }
FAILED=0
fail() { echo "FAIL: $*" | tee -a "$OUT/figures.txt"; FAILED=1; }
figure() { echo "$*" | tee -a "$OUT/figures.txt"; }

# ---- assets (outside the root) ------------------------------------------------------------------
say "work folder $WORK; preparing assets"
if [ -z "$CORPUS" ]; then
    [ -x "$MAKE_CORPUS" ] || { echo "$0: no --corpus, and no $MAKE_CORPUS to make one (FSINDEX_MAKE_CORPUS)" >&2; exit 2; }
    "$MAKE_CORPUS" --small "$ASSETS/corpus" > "$OUT/corpus.log" 2>&1 \
        || { echo "$0: make-corpus.sh --small failed; see $OUT/corpus.log" >&2; exit 2; }
    CORPUS=$ASSETS/corpus
fi
[ -d "$CORPUS" ] || { echo "$0: no corpus at $CORPUS" >&2; exit 2; }
cp -a "$CORPUS" "$ROOT/corpus" || exit 2
[ "$CORPUS" = "$ASSETS/corpus" ] && rm -rf "$ASSETS/corpus"
python3 - "$ASSETS" "$SEED" "$BIG_MB" <<'EOF' || { echo "$0: preparing assets failed" >&2; exit 2; }
import os, random, subprocess, sys, tarfile, io
assets, seed, big_mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
words = "soak git repo tarball alpha beta gamma delta module source header test".split()
def text(n): return "".join(" ".join(rng.choice(words) for _ in range(8)) + "\n" for _ in range(n))
# A repository of 2,000 files in 40 folders; branch "other" changes a third, adds 300, deletes 200.
src = os.path.join(assets, "gitsrc")
os.makedirs(src)
git = lambda *a: subprocess.run(["git", "-c", "user.name=soak", "-c", "user.email=soak@fsindex", *a], cwd=src, check=True, capture_output=True)
git("init", "--quiet", "-b", "main")
for i in range(2000):
    d = os.path.join(src, f"pkg{i % 40}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"file{i}.txt"), "w").write(text(rng.randint(1, 30)))
git("add", "-A"); git("commit", "--quiet", "-m", "main")
git("checkout", "--quiet", "-b", "other")
for i in range(2000):
    p = os.path.join(src, f"pkg{i % 40}", f"file{i}.txt")
    if i % 10 == 0: os.unlink(p)
    elif i % 3 == 0: open(p, "a").write(text(3))
for i in range(300):
    d = os.path.join(src, f"new{i % 10}"); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"added{i}.txt"), "w").write(text(5))
git("add", "-A"); git("commit", "--quiet", "-m", "other"); git("checkout", "--quiet", "main")
# A tarball of 20,000 small files in 100 folders.
with tarfile.open(os.path.join(assets, "tarball.tar"), "w") as t:
    for i in range(20000):
        data = text(2).encode()
        info = tarfile.TarInfo(f"unpacked/d{i % 100}/f{i}.txt"); info.size = len(data); info.mtime = 1700000000 + i
        t.addfile(info, io.BytesIO(data))
# The big file: BIG_MB MiB of seeded bytes (not sparse: a copy writes every block).
block = rng.randbytes(1 << 20)
with open(os.path.join(assets, "big.bin"), "wb") as f:
    for i in range(big_mb):
        f.write(i.to_bytes(8, "little") + block[8:])
EOF

# ---- the daemon -----------------------------------------------------------------------------------
now() { date +%s.%N; }
T_START=$(now)
say "starting fsindexd on $ROOT ($(find "$ROOT" -type f | wc -l) files)"
"$BIN/fsindexd" --foreground --root "$ROOT" >> "$LOG" 2>&1 &
DPID=$!
rel() { awk -v a="$T_START" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# One sample every $SAMPLE s: time since start, pid, VmRSS (KiB), open descriptors, threads.
# A pid that is gone is written as such: the pass rules see it.
sample_loop() {
    echo "t,pid,rss_kib,fds,threads" > "$OUT/resources.csv"
    while :; do
        if [ -r "/proc/$DPID/status" ]; then
            local rss thr fds
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status" 2> /dev/null)
            thr=$(awk '/^Threads:/ { print $2 }' "/proc/$DPID/status" 2> /dev/null)
            fds=$(ls "/proc/$DPID/fd" 2> /dev/null | wc -l)
            echo "$(rel),$DPID,${rss:-0},$fds,${thr:-0}" >> "$OUT/resources.csv"
        else
            echo "$(rel),gone,0,0,0" >> "$OUT/resources.csv"
        fi
        sleep "$SAMPLE"
    done
}
sample_loop &
SAMPLER=$!

daemon_alive() { kill -0 "$DPID" 2> /dev/null; }
status_json() { "$BIN/fsindex" status --json 2> /dev/null; }
idle() { local s; s=$(status_json); [[ $s == *'"queueLength":0'* && $s == *'"state":"watching"'* ]]; }

# The first reconcile: the log says the root is reconciled, and the queue is empty (the first
# index of the whole bench corpus takes minutes: at least an hour is allowed for it).
deadline=$((SECONDS + (SETTLE_TIMEOUT > 3600 ? SETTLE_TIMEOUT : 3600)))
until grep -q "reconciled " "$LOG" && idle; do
    daemon_alive || { fail "fsindexd exited before its first reconcile"; tail -30 "$LOG"; exit 1; }
    [ $SECONDS -lt $deadline ] || { fail "no first reconcile in time"; tail -30 "$LOG"; exit 1; }
    sleep 1
done
T_RECONCILED=$(rel)
say "first reconcile after $T_RECONCILED s: $(grep -m1 'reconciled ' "$LOG" | sed 's/.*reconciled/reconciled/')"

# ---- churn and queries ------------------------------------------------------------------------
say "churn ($CHURN_RATE ops/s) and queries ($QUERY_RATE/s, $BURSTS bursts of 5,000) for $MINUTES min"
python3 "$here/soak_churn.py" "$ROOT" "$ASSETS" "$BIN" --seconds "$SECONDS_RUN" --seed "$SEED" \
    --rate "$CHURN_RATE" --out "$OUT" > "$OUT/churn.out" 2> "$OUT/churn.err" &
CHURN=$!
"$VENV/bin/python" "$here/soak_queries.py" "$BIN" "$ROOT" --seconds "$SECONDS_RUN" --seed "$SEED" \
    --rate "$QUERY_RATE" --bursts "$BURSTS" --out "$OUT" > "$OUT/queries.out" 2> "$OUT/queries.err" &
QUERIES=$!
wait "$CHURN"; CHURN_STATUS=$?; CHURN=
wait "$QUERIES"; QUERIES_STATUS=$?; QUERIES=
T_CHURN_END=$(rel)
say "churn and queries done at $T_CHURN_END s (churn exit $CHURN_STATUS, queries exit $QUERIES_STATUS)"

# ---- settle and compare -----------------------------------------------------------------------
deadline=$((SECONDS + SETTLE_TIMEOUT))
CHECK=1
while [ $SECONDS -lt $deadline ] && daemon_alive; do
    if idle; then
        "$BIN/fsindex" check > "$OUT/check.out" 2> "$OUT/check.err"; CHECK=$?
        [ $CHECK = 0 ] && break
    fi
    sleep 2
done
T_SETTLED=$(rel)
kill "$SAMPLER" 2> /dev/null; wait "$SAMPLER" 2> /dev/null; SAMPLER=
say "settled at $T_SETTLED s; comparing show --json with the disk"
python3 "$here/soak_compare.py" "$BIN" "$ROOT" "$OUT" --seed "$SEED" > "$OUT/compare.out" 2> "$OUT/compare.err"
COMPARE=$?

# ---- figures --------------------------------------------------------------------------------------
: > "$OUT/figures.txt"
figure "soak: $MINUTES min of churn and queries, seed $SEED, corpus $CORPUS ($(find "$ROOT/corpus" -type f | wc -l) files in the copy at the end)"
figure "first reconcile $T_RECONCILED s after start; churn end $T_CHURN_END s; settled $T_SETTLED s"
if daemon_alive && ! grep -q ',gone,' "$OUT/resources.csv" && [ "$(cut -d, -f2 "$OUT/resources.csv" | tail -n +2 | sort -u | wc -l)" = 1 ]; then
    figure "crash/restart: none (pid $DPID throughout, $(($(wc -l < "$OUT/resources.csv") - 1)) samples every $SAMPLE s)"
else
    fail "fsindexd crashed or restarted (pid $DPID; see resources.csv and the log)"; tail -30 "$LOG"
fi
# Medians of each window: first = [reconcile, reconcile + W], last = [churn end - W, churn end].
awk -F, -v a="$T_RECONCILED" -v e="$T_CHURN_END" -v w="$WINDOW" '
    function median(arr, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
        return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2 }
    NR > 1 && $2 != "gone" {
        if ($1 >= a && $1 <= a + w) { nf++; fr[nf] = $3; ff[nf] = $4; ft[nf] = $5 }
        if ($1 >= e - w && $1 <= e) { nl++; lr[nl] = $3; lf[nl] = $4; lt[nl] = $5 }
        if ($3 > maxr) maxr = $3 }
    END {
        if (nf == 0 || nl == 0) { print "window none"; exit }
        printf "window %d %d %.0f %.0f %.0f %.0f %.0f %.0f %d\n", nf, nl, median(fr, nf), median(lr, nl), median(ff, nf), median(lf, nl), median(ft, nf), median(lt, nl), maxr }
' "$OUT/resources.csv" > "$OUT/windows.txt"
read -r _ NF NL R1 R2 F1 F2 H1 H2 RMAX < "$OUT/windows.txt"
if [ -z "${R2:-}" ]; then
    fail "too few resource samples for the windows"
else
    figure "resources (median of each ${WINDOW}-s window, first after the reconcile ($NF samples) -> last before the churn ended ($NL)):"
    for trio in "RSS_KiB $R1 $R2" "descriptors $F1 $F2" "threads $H1 $H2"; do
        read -r name first last <<< "$trio"
        change=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%+.1f", a ? (b - a) * 100 / a : 0 }')
        if awk -v a="$first" -v b="$last" 'BEGIN { exit !(b <= a * 1.10) }'; then
            figure "  $name: $first -> $last ($change %)"
        elif [ "$name" = RSS_KiB ] && [ "$MINUTES" -lt 60 ]; then
            # Minutes after the first reconcile are the daemon's warm-up (SQLite's page cache,
            # malloc's arenas after the tarball's 20,000 files): a short run cannot tell that
            # from a leak, so only the hour-long runs, with their 10-minute windows, judge RSS.
            figure "  $name: $first -> $last ($change %; warm-up: RSS is judged only in runs of 60 minutes or more)"
        else
            fail "$name grew more than 10 %: $first -> $last ($change %)"
        fi
    done
    figure "  peak RSS over the whole run: $RMAX KiB"
fi
if [ -s "$OUT/churn-summary.json" ]; then
    figure "churn: $(cat "$OUT/churn-summary.json" | tr -d '\n ' )"
else
    fail "the churn generator left no summary"; tail -20 "$OUT/churn.err"
fi
[ "$CHURN_STATUS" = 0 ] || fail "churn operations failed (exit $CHURN_STATUS; see $OUT/churn.err)"
if [ -s "$OUT/queries-summary.json" ]; then
    python3 - "$OUT/queries-summary.json" <<'EOF' | tee -a "$OUT/figures.txt"
import json, sys
s = json.load(open(sys.argv[1]))
print(f"queries: {s['all']['count']} in {s['seconds']} s ({s['perSecond']}/s on average), {s['all']['failed']} failed, "
      f"median {s['all']['median_ms']} ms, p99 {s['all']['p99_ms']} ms, max {s['all']['max_ms']} ms")
for c in ("fsfind", "mcp-search", "mcp-count", "mcp-table"):
    x = s[c]
    print(f"  {c}: {x['count']}, {x['failed']} failed, median {x['median_ms']} ms, p99 {x['p99_ms']} ms")
EOF
else
    fail "the query load left no summary"; tail -20 "$OUT/queries.err"
fi
[ "$QUERIES_STATUS" = 0 ] || fail "queries unanswered or failed (exit $QUERIES_STATUS; see $OUT/queries.err)"
if [ "$CHECK" = 0 ]; then
    figure "fsindex check: in step ($(tr '\n' ' ' < "$OUT/check.err"))"
else
    fail "fsindex check found differences after $SETTLE_TIMEOUT s of settling:"; head -20 "$OUT/check.out"; cat "$OUT/check.err"
fi
if [ "$COMPARE" = 0 ]; then
    figure "show --json against the disk: no difference ($(tr -d '\n ' < "$OUT/compare.err"))"
else
    fail "show --json differs from the disk:"; head -20 "$OUT/compare.out"; cat "$OUT/compare.err"
fi
if grep -qiE 'fatal|panic|crash' "$LOG"; then fail "fsindexd's log reports a fault:"; grep -iE 'fatal|panic|crash' "$LOG" | head; fi
figure "result: $([ $FAILED = 0 ] && echo PASS || echo FAIL)"
[ $FAILED = 0 ] || { echo "fsindexd's log (last 30 lines):"; tail -30 "$LOG"; }
exit $FAILED
