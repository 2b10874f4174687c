#!/usr/bin/env bash
# full-disk.sh: fsindexd with its index on a disk that fills up (issue 40, "a day of use").
#
# The index folder goes on a small ext4 file system (a loop-mounted image, 96 MiB by default) that a
# ballast file fills but for a few MiB, so that it fills:
#   1. during the first index of a generated tree (a few thousand files of varied words);
#   2. during live updates: after recovering, the ballast is put back and new files are written
#      into the watched tree.
# After each fill it checks, with fsindexd still running:
#   - a clear message naming the disk: fsindexd's log and `fsindex status` say that the disk
#     holding the index folder (on the image's mount point) is full;
#   - nothing corrupt: a copy of the database taken through SQLite's backup API passes
#     PRAGMA integrity_check and FTS5's integrity-check of both full-text tables;
#   - queries still answered: fsfind exits 0 or 1 (found, nothing found), never 2;
# then deletes the ballast and waits (without restarting anything) until the index equals the
# disk again (`fsindex check` clean, queue empty), and that fsindexd kept its pid.
#
#   Tests/Harnesses/full-disk.sh BIN_DIR [--size-mb N] [--files N] [--timeout S] [--keep]
#
# BIN_DIR holds fsindex, fsindexd, fsfind and fsindex-worker. Needs root (mount), mkfs.ext4,
# sqlite3, python3 and a C compiler (the full-text tokenizer as a sqlite3 extension, as
# crash-consistency.sh builds it). Exit status: 0 everything held, 1 something did not (said
# with the daemon's log), 2 usage or setup error.
set -u

usage() { echo "usage: $0 BIN_DIR [--size-mb N] [--files N] [--timeout SECONDS] [--keep]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BIN=$(cd "$1" 2> /dev/null && pwd) || usage
shift
SIZE_MB=96 FILES=3000 TIMEOUT=300 KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --size-mb) SIZE_MB=${2:?}; shift 2 ;;
        --files) FILES=${2:?}; shift 2 ;;
        --timeout) TIMEOUT=${2:?}; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) usage ;;
    esac
done
for tool in fsindex fsindexd fsfind fsindex-worker; do
    [ -x "$BIN/$tool" ] || { echo "$0: $BIN/$tool is missing; build first" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "$0: needs root to mount a file system" >&2; exit 2; }
for tool in mkfs.ext4 mount umount sqlite3 python3 fallocate; do
    command -v "$tool" > /dev/null || { echo "$0: $tool is missing" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)

W=$(mktemp -d "${TMPDIR:-/tmp}/fsindex-full-disk-XXXXXX") || exit 2
IMG=$W/disk.img MNT=$W/mnt TREE=$W/tree LOG=$W/fsindexd.log
export FSINDEX_INDEX_DIR=$MNT/index XDG_RUNTIME_DIR=$W/run XDG_CONFIG_HOME=$W/config XDG_STATE_HOME=$W/state \
    XDG_DATA_HOME=$W/data XDG_CACHE_HOME=$W/cache HOME=$W/home NO_COLOR=1
mkdir -p "$MNT" "$TREE" "$W/run" "$W/config/fsindex" "$W/home" && chmod 700 "$W/run"
printf '[daemon]\nthrottle = "normal"\nlog_level = "info"\n' > "$W/config/fsindex/config.toml"
DPID= MOUNTED=0 FAILED=0

cleanup() {
    if [ -n "$DPID" ] && kill -0 "$DPID" 2> /dev/null; then kill -TERM "$DPID"; wait "$DPID" 2> /dev/null; fi
    [ $MOUNTED = 1 ] && umount "$MNT"
    if [ "$KEEP" = 1 ]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

say() { printf '%s full-disk: %s\n' "$(date +%T)" "$*"; }
fail() { echo "FAIL: $*"; FAILED=1; }

# The tokenizer, so that sqlite3 can run FTS5's integrity-check on our tables.
cc=${CC:-$(command -v cc || command -v clang || command -v gcc || true)}
[ -n "$cc" ] || { echo "$0: no C compiler for the tokenizer extension" >&2; exit 2; }
"$cc" -shared -fPIC -O1 -I "$here/../../Sources/CLibraries/CFTS5CJK/include" -o "$W/fts5cjk.so" "$here/fts5_cjk_extension.c" -lz -lzstd -lm \
    || { echo "$0: cannot build the tokenizer extension" >&2; exit 2; }

truncate -s "${SIZE_MB}M" "$IMG" && mkfs.ext4 -q -F -m 0 "$IMG" && mount -o loop "$IMG" "$MNT" \
    || { echo "$0: cannot make and mount the ext4 image" >&2; exit 2; }
MOUNTED=1

# N files of text in folder $1 (file names prefixed $3), seed $4: words from a large vocabulary,
# so that the full-text index grows with every file.
write_tree() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import os, random, sys
folder, n, prefix, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rng = random.Random(seed)
letters = "abcdefghijklmnopqrstuvwxyz"
vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 10))) for _ in range(40000)]
for i in range(n):
    d = os.path.join(folder, f"d{i % 50}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{prefix}{i}.txt"), "w") as f:
        for _ in range(rng.randint(20, 60)):
            f.write(" ".join(rng.choice(vocab) for _ in range(12)) + "\n")
EOF
}

free_mib() { df -Pm "$MNT" | awk 'NR == 2 { print $4 }'; }
# The ballast: fills the image but for $1 MiB.
ballast() {
    local size=$(( $(free_mib) - $1 ))
    [ $size -gt 0 ] && fallocate -l "${size}M" "$MNT/ballast" \
        || { echo "$0: cannot make a ballast of $size MiB ($(free_mib) MiB free); raise --size-mb" >&2; exit 2; }
}

idle() { local s; s=$("$BIN/fsindex" status --json 2> /dev/null); [[ $s == *'"queueLength":0'* && $s == *'"state":"watching"'* ]]; }
full_messages() { local n; n=$(grep -c "is full" "$LOG" 2> /dev/null); echo "${n:-0}"; }

# Waits until fsindexd logs a full disk (more than $1 such lines); 1 if it never does.
wait_full() {
    local before=$1 deadline=$((SECONDS + TIMEOUT))
    while [ $SECONDS -lt $deadline ]; do
        [ "$(full_messages)" -gt "$before" ] && return 0
        kill -0 "$DPID" 2> /dev/null || return 1
        # The first crawl, or the live burst, done without a full disk: too little to fill it.
        if [ "$2" = crawl ] && grep -q "reconciled " "$LOG" && idle; then return 1; fi
        sleep 0.5
    done
    return 1
}

# The checks while the disk is full: the message, the database, a query.
check_while_full() {
    local stage=$1 line status
    line=$(grep "is full" "$LOG" | tail -1)
    say "$stage: fsindexd logged: $line"
    [[ $line == *"$MNT"* ]] || fail "$stage: the message does not name the disk ($MNT): $line"
    status=$("$BIN/fsindex" status 2>&1)
    grep -q "is full" <<< "$status" || fail "$stage: fsindex status does not say the disk is full:"$'\n'"$status"
    integrity "$stage (disk full)"
    local q
    for q in d1 "kind:text" "$(head -c 200 "$(find "$TREE" -name '*.txt' | head -1)" | awk '{ print $1; exit }')"; do
        "$BIN/fsfind" --count -- $q > /dev/null 2> "$W/fsfind.err"
        local s=$?
        [ $s = 0 ] || [ $s = 1 ] || fail "$stage: fsfind $q exited $s: $(cat "$W/fsfind.err")"
    done
    kill -0 "$DPID" 2> /dev/null || fail "$stage: fsindexd exited"
}

# A consistent copy of the database (SQLite's backup API, read-only on the full disk), checked.
integrity() {
    local copy=$W/check.sqlite q t
    rm -f "$copy"
    q=$(sqlite3 -readonly "$FSINDEX_INDEX_DIR/index.sqlite" ".backup '$copy'" 2>&1) || { fail "$1: cannot copy the database: $q"; return; }
    q=$(sqlite3 -cmd ".load $W/fts5cjk" "$copy" "PRAGMA integrity_check" 2>&1)
    [ "$q" = ok ] || fail "$1: PRAGMA integrity_check: $q"
    for t in items_fts items_names; do
        q=$(sqlite3 -cmd ".load $W/fts5cjk" "$copy" "INSERT INTO $t($t) VALUES('integrity-check')" 2>&1) \
            || fail "$1: $t integrity-check: $q"
    done
    say "$1: integrity_check ok, FTS5 integrity-check ok ($(sqlite3 -readonly "$copy" 'SELECT count(*) FROM items') items)"
}

# Frees the space and waits, fsindexd untouched, until the index equals the disk.
recover() {
    local stage=$1 started=$SECONDS deadline=$((SECONDS + TIMEOUT)) c=1
    rm -f "$MNT/ballast"
    while [ $SECONDS -lt $deadline ] && kill -0 "$DPID" 2> /dev/null; do
        if idle; then "$BIN/fsindex" check > "$W/check.out" 2> "$W/check.err"; c=$?; [ $c = 0 ] && break; fi
        sleep 1
    done
    if [ $c = 0 ]; then
        say "$stage: space freed; the index equals the disk again after $((SECONDS - started)) s, no restart ($(tr '\n' ' ' < "$W/check.err"))"
    else
        fail "$stage: $TIMEOUT s after the space came back the index still differs from the disk:"
        head -10 "$W/check.out"; cat "$W/check.err"
    fi
    integrity "$stage (after recovery)"
}

# ---- 1. the first index fills the disk -------------------------------------------------------------
write_tree "$TREE" "$FILES" f 1
ballast 4
say "image $SIZE_MB MiB, $(free_mib) MiB free for the index; $FILES files to index"
"$BIN/fsindexd" --foreground --root "$TREE" >> "$LOG" 2>&1 &
DPID=$!
if wait_full 0 crawl; then
    check_while_full "first index"
    recover "first index"
else
    fail "the disk did not fill during the first index (or fsindexd stopped); raise --files or lower --size-mb"
fi

# ---- 2. live updates fill it again -----------------------------------------------------------------
if [ $FAILED = 0 ]; then
    before=$(full_messages)
    ballast 1
    say "live updates: $(free_mib) MiB free; writing $FILES new files into the watched tree"
    write_tree "$TREE/new" "$FILES" n 2
    if wait_full "$before" live; then
        check_while_full "live updates"
        recover "live updates"
    else
        fail "the disk did not fill during live updates (or fsindexd stopped)"
    fi
fi

if kill -0 "$DPID" 2> /dev/null; then
    say "fsindexd ran throughout as pid $DPID (no crash, no restart)"
else
    fail "fsindexd exited"
fi
if [ $FAILED = 0 ]; then
    say "every check held"
else
    echo "fsindexd's log (last 40 lines):"; tail -40 "$LOG"
fi
exit $FAILED
