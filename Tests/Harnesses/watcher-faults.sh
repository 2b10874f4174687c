#!/usr/bin/env bash
# The watcher-faults harness: runs fsindexd on a generated tree, applies the faults a watcher
# meets in real life, and after each one waits for quiet and checks that the index equals the
# disk exactly (`fsindex check`: every path, and its size, mtime, ctime and inode).
#
#   Tests/Harnesses/watcher-faults.sh BIN_DIR [--rounds N] [--files N] [--timeout S] [--keep]
#
# BIN_DIR holds fsindex, fsindexd and fsindex-worker (.build/debug or .build/release). Each
# round applies, in order:
#   burst         N files written at once in a new folder
#   renames       a rename storm: half the files renamed twice, the folder renamed and back
#   rm -rf        the folder deleted with everything in it
#   root-moved    the root moved away and back (a restore, a sync tool), then a probe file
#   root-recreated  the root deleted and created again with new files, then a probe file
#   sigkill       fsindexd killed with SIGKILL in the middle of a burst, then started again
#   watch-budget  fsindexd restarted with watch_limit = 3 (most folders polled), changes made
#                 in polled folders, then restarted with no limit
# and reports, for each, the seconds from the end of the fault until the index equalled the
# disk. Exit status: 0 every fault converged, 1 one did not (its differences and the daemon's
# log are printed), 2 usage.
# Needs only bash, coreutils and our binaries.
set -u

usage() { echo "usage: $0 BIN_DIR [--rounds N] [--files N] [--timeout SECONDS] [--keep]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BIN=$(cd "$1" 2>/dev/null && pwd) || usage
shift
ROUNDS=1 FILES=1000 TIMEOUT=180 KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --files) FILES=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) usage ;;
    esac
done
for tool in fsindex fsindexd fsindex-worker; do
    [ -x "$BIN/$tool" ] || { echo "$0: $BIN/$tool is missing; build first (swift build)" >&2; exit 2; }
done

W=$(mktemp -d "${TMPDIR:-/tmp}/fsindex-watcher-faults-XXXXXX")
ROOT=$W/root
LOG=$W/fsindexd.log
export FSINDEX_INDEX_DIR=$W/index XDG_RUNTIME_DIR=$W/run XDG_CONFIG_HOME=$W/config
mkdir -p "$W/run" "$W/config/fsindex" "$ROOT"
chmod 700 "$W/run"
DPID=
FAILED=0
RESULTS=()

cleanup() {
    if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then kill -TERM "$DPID"; wait "$DPID" 2>/dev/null; fi
    if [ "$KEEP" = 1 ]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

# [daemon] settings: the watch limit given (0: the system's); polled folders looked at every second.
write_config() {
    printf '[daemon]\nthrottle = "normal"\nlog_level = "info"\npoll_interval = 1\nwatch_limit = %s\n' "$1" \
        > "$W/config/fsindex/config.toml"
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

start_daemon() {
    "$BIN/fsindexd" --foreground --root "$ROOT" >> "$LOG" 2>&1 &
    DPID=$!
    local deadline=$((SECONDS + TIMEOUT))
    until "$BIN/fsindex" status --json 2>/dev/null | grep -q '"state":"watching"'; do
        if [ $SECONDS -ge $deadline ] || ! kill -0 "$DPID" 2>/dev/null; then
            echo "fsindexd did not start watching; its log:"; tail -30 "$LOG"; exit 1
        fi
        sleep 0.2
    done
}

stop_daemon() {
    kill -TERM "$DPID"
    wait "$DPID" 2>/dev/null
    DPID=
}

# N files of a few words each in folder $1 (created), named with prefix $2.
write_files() {
    mkdir -p "$1"
    local i
    for ((i = 0; i < $3; i++)); do printf 'faultword %s %s\n' "$2" "$i" > "$1/$2$i.txt"; done
}

# Waits until fsindexd's queue is empty and the index equals the disk; records the time.
converge() {
    local label=$1 started=$2 deadline=$((SECONDS + TIMEOUT)) status
    while [ $SECONDS -lt $deadline ]; do
        status=$("$BIN/fsindex" status --json 2>/dev/null)
        if [[ $status == *'"queueLength":0'* && $status == *'"state":"watching"'* ]] \
            && "$BIN/fsindex" check > "$W/check.out" 2> "$W/check.err"; then
            local took; took=$(since "$started")
            local entries; entries=$(grep -o '[0-9]* entries on disk' "$W/check.err" | cut -d' ' -f1)
            printf 'round %d  %-16s converged in %6s s  (%s entries)\n' "$round" "$label" "$took" "$entries"
            RESULTS+=("$took")
            return 0
        fi
        sleep 0.2
    done
    printf 'round %d  %-16s NOT converged after %s s; differences:\n' "$round" "$label" "$TIMEOUT"
    head -20 "$W/check.out"; cat "$W/check.err"
    echo "fsindexd's log (last 30 lines):"; tail -30 "$LOG"
    FAILED=1
    return 1
}

# A file made after a fault must be indexed: the watcher still watches.
probe() {
    local t; t=$(now)
    printf 'probe %s\n' "$1" > "$ROOT/probe-$1.txt"
    converge "probe after $1" "$t"
}

write_config 0
for ((d = 0; d < 10; d++)); do write_files "$ROOT/base/d$d" base "$((FILES / 10))"; done
t=$(now)
start_daemon
round=0
converge "first crawl" "$t"

for ((round = 1; round <= ROUNDS; round++)); do
    write_files "$ROOT/burst" b "$FILES"; t=$(now)
    converge burst "$t"

    for ((i = 0; i < FILES; i += 2)); do mv "$ROOT/burst/b$i.txt" "$ROOT/burst/c$i.txt"; mv "$ROOT/burst/c$i.txt" "$ROOT/burst/e$i.txt"; done
    mv "$ROOT/burst" "$ROOT/storm"; mv "$ROOT/storm" "$ROOT/burst"; t=$(now)
    converge renames "$t"

    rm -rf "$ROOT/burst"; t=$(now)
    converge "rm -rf" "$t"

    mv "$ROOT" "$ROOT.away"; sleep 0.3; mv "$ROOT.away" "$ROOT"; t=$(now)
    converge root-moved "$t" && probe "root-moved-$round"

    rm -rf "$ROOT"; mkdir "$ROOT"; sleep 0.2
    for ((d = 0; d < 10; d++)); do write_files "$ROOT/base/d$d" new$round "$((FILES / 10))"; done; t=$(now)
    converge root-recreated "$t" && probe "root-recreated-$round"

    write_files "$ROOT/killed" k "$FILES" &
    writer=$!
    sleep 0.3
    kill -KILL "$DPID"; wait "$DPID" 2>/dev/null
    wait "$writer"
    start_daemon; t=$(now)
    converge sigkill "$t"
    rm -rf "$ROOT/killed"

    stop_daemon; write_config 3; start_daemon
    if ! "$BIN/fsindex" status --json | grep -q '"polled":[1-9]'; then
        echo "round $round  watch-budget: no folder is polled with watch_limit = 3"; FAILED=1
    fi
    write_files "$ROOT/base/d3/deeper" w "$((FILES / 10))"
    rm -f "$ROOT"/base/d1/*
    mv "$ROOT/base/d2" "$ROOT/base/d2-renamed"; t=$(now)
    converge watch-budget "$t"
    stop_daemon; write_config 0; start_daemon
    mv "$ROOT/base/d2-renamed" "$ROOT/base/d2"; t=$(now)
    converge "budget restored" "$t"
done

n=${#RESULTS[@]}
sorted=$(printf '%s\n' "${RESULTS[@]}" | sort -n)
median=$(printf '%s\n' "$sorted" | awk -v n="$n" 'NR == int((n + 1) / 2)')
longest=$(printf '%s\n' "$sorted" | tail -1)
echo "rounds $ROUNDS, files per burst $FILES: $n faults converged, median ${median} s, longest ${longest} s$([ $FAILED = 1 ] && echo '; SOME DID NOT CONVERGE')"
exit $FAILED
