#!/usr/bin/env bash
# query-bench.sh — query latency of fsfind beside its peers (plocate, fd, ripgrep, recoll),
# all measured in the same run on the same corpus.
#
# Usage: query-bench.sh CORPUS BIN_DIR [RUNS]
#
#   CORPUS   the folder to query (shared/bench/make-corpus.sh's corpus, ~111k files).
#   BIN_DIR  folder holding fsindex, fsindex-worker and fsfind (release build).
#   RUNS     timed runs of each query after one warm-up (default 21; a query whose warm-up
#            takes over QB_SLOW_S seconds is timed min(RUNS,5) times, said in the note).
#
# Indexes (built first, each build's wall time printed as a "# " line):
#   fsindex  BIN_DIR/fsindex index --index-dir DIR CORPUS (exit 0-2 accepted: 1/2 = some files
#            failed), into a temp dir or QB_INDEX.
#   plocate  updatedb -U CORPUS -o DB -l 0 (no pruning), always in the temp dir.
#   recoll   recollindex -c CONF -z, default config + topdirs (as shared/bench/peers.sh), under a
#            time limit; if stopped there the index is PARTIAL (said in the notes) and queried
#            as it is. The full corpus needs ~26 min on 2 cores.
# Each query is one process per run; the time is the wall time from fork to exit (process
# start and output included; stdout goes to a file in the temp dir). The table, on stdout, is
#   system <TAB> query <TAB> median_ms <TAB> p95_ms <TAB> hits <TAB> note
# with hits = lines printed (recollq's header lines not counted), p95 = nearest rank. A command
# exiting with an error status (fsfind: 2 or more, e.g. a query form this build does not know)
# gets "error" in the three figures and its first stderr line in the note; the run goes on
# (the current build exits 64 on an unknown option). Other non-zero statuses (fsfind 1 = nothing
# found) are named in the note.
# fsfind rows: fsfind (plain form), fsfind-nameq ('name:X'), fsfind-mdq (Spotlight syntax).
# After the table: a summary, per query, of each fsfind row's median against the best peer's.
# Progress goes to stderr. fsindex/fsfind run with private XDG_* dirs (no config). Unless
# QB_DAEMON=0, fsindexd then runs for the index (started after the build, its first reconcile
# waited for): fsfind rows go through it, fsfind-direct rows read the index themselves.
#
# Queries (the words are shared/bench/peers.sh's; hits of `rg -l -i -w` on the full corpus:
# inotify 12, deprecated 1809, function 35091):
#   name substring   fsfind --name N | fsfind 'name:N' | plocate -d DB N (whole path) | fd -F N
#   rare / common    fsfind W | recollq -c CONF -b -n 0 W | rg -l -i -F W CORPUS
#   very common      the same with fsfind --limit 100, recollq -n 100, rg | head -n 100; and all
#   phrase           fsfind '"a b"' | recollq '"a b"' | rg -l -i -F 'a b'
#   two-word AND     fsfind 'a b' | recollq 'a b' | rg -l -0 -i -F a | xargs -0 rg -l -i -F b
#   predicate        fsfind 'kind:image width:>1000' and its Spotlight form (no peer)
#   group-by         fsfind --group-by kind, and with 'kind:document' (no peer)
#
# Environment (all optional):
#   QB_OUT=FILE          also write the table there (TSV with a header; "# " lines first)
#   QB_INDEX=DIR         fsindex index dir: reused as is if it holds index.sqlite, else built
#                        there and kept (a reused index must suit the binaries in BIN_DIR)
#   QB_RECOLL_DIR=DIR    recoll config dir: reused if it holds xapiandb, else built there and kept
#   QB_RECOLL_TIMEOUT=360  seconds limit for recollindex (then PARTIAL)
#   QB_SLOW_S=5          warm-up seconds above which a query is timed at most 5 times
#   QB_NAME=mutex QB_RARE=inotify QB_COMMON=deprecated QB_VCOMMON=function
#   QB_PHRASE='free software' QB_AND='mutex deadlock'   the query words
#   QB_NO_INSTALL=1      never apt-get install missing peers (else: as root, apt-get install
#                        plocate recollcmd ripgrep fd-find; a peer still missing is skipped)
#   QB_KEEP=1            keep the temp dir (its path is printed)
#   TMPDIR               where the temp dir is made (default /tmp)
# Only processes started here are stopped (index builds run in their own process group).
# Takes ~12 minutes on the full corpus on 2 cores with a fresh recoll index (6 min of it
# recollindex), ~5 with QB_INDEX and QB_RECOLL_DIR reused.
#
# Example:
#   QB_INDEX=/work/bench/qb-index QB_RECOLL_DIR=/work/bench/qb-recoll QB_OUT=/work/bench/q.tsv \
#     Tests/Benchmarks/query-bench.sh /work/bench/corpus /work/bench/bin-static
set -uo pipefail
export LC_ALL=C

if [ $# -lt 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then sed -n '2,10p' "$0" >&2; exit 64; fi
CORPUS=$(realpath "$1"); BIN=$(realpath "$2"); RUNS="${3:-21}"
case "$RUNS" in ''|*[!0-9]*|0) echo "RUNS must be a positive integer" >&2; exit 64 ;; esac
for b in fsindex fsindex-worker fsfind; do [ -x "$BIN/$b" ] || { echo "no $BIN/$b" >&2; exit 2; }; done
OUTFILE="${QB_OUT:-}"
RECOLL_TIMEOUT="${QB_RECOLL_TIMEOUT:-360}"
SLOW_S="${QB_SLOW_S:-5}"
W_NAME="${QB_NAME:-mutex}"
W_RARE="${QB_RARE:-inotify}"
W_COMMON="${QB_COMMON:-deprecated}"
W_VCOMMON="${QB_VCOMMON:-function}"
W_PHRASE="${QB_PHRASE:-free software}"
W_AND="${QB_AND:-mutex deadlock}"

T0_ALL=$EPOCHREALTIME
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/query-bench.XXXXXX") || exit 2
RES="$TMPROOT/rows.tsv"; META="$TMPROOT/meta.txt"; : > "$RES"; : > "$META"
BG_PIDS=()

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
elapsed() { awk -v a="$T0_ALL" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }
log() { printf '[qb %6.1fs load %s] %s\n' "$(elapsed)" "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }
meta() { printf '# %s\n' "$*" | tee -a "$META"; }
kill_group() {  # a process group we created with setsid, then its leader
  local p="$1"
  kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.3; done
  kill -KILL -- "-$p" 2>/dev/null || true
}
cleanup() {
  local p
  for p in "${BG_PIDS[@]:-}"; do [ -n "$p" ] && kill_group "$p"; done
  if [ "${QB_KEEP:-0}" = 1 ]; then log "kept $TMPROOT"; else rm -rf -- "$TMPROOT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# run_group CMD... : run in its own process group (so cleanup can stop it and its children),
# wait for it, return its status (one at a time)
run_group() {
  local p rc
  setsid -w "$@" &
  p=$!; BG_PIDS=("$p")
  wait "$p"; rc=$?
  BG_PIDS=()
  return $rc
}

# private XDG dirs for fsindex/fsfind (no user config, no running fsindexd); harmless to peers
export XDG_CONFIG_HOME="$TMPROOT/xdg/config" XDG_DATA_HOME="$TMPROOT/xdg/data" \
       XDG_CACHE_HOME="$TMPROOT/xdg/cache" XDG_RUNTIME_DIR="$TMPROOT/xdg/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
unset FSINDEX_INDEX_DIR

# ------------------------------------------------------------------ peers
ensure_pkgs() {
  local missing=() c p
  for c in "plocate:plocate" "updatedb:plocate" "recollindex:recollcmd" "recollq:recollcmd" \
           "rg:ripgrep" "fdfind:fd-find"; do
    p="${c#*:}"; c="${c%%:*}"
    command -v "$c" >/dev/null 2>&1 || [[ " ${missing[*]:-} " == *" $p "* ]] || missing+=("$p")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  if [ "${QB_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
    log "missing packages (not installing): ${missing[*]}"; return 0
  fi
  log "apt-get install ${missing[*]}"
  timeout 600 apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
    || log "apt-get install failed for some of: ${missing[*]}"
}
ensure_pkgs
have() { command -v "$1" >/dev/null 2>&1; }
FD=""; if have fdfind; then FD=fdfind; elif have fd; then FD=fd; fi

meta "query-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) corpus=$CORPUS bin=$BIN runs=$RUNS nproc=$(nproc) load=$(cut -d' ' -f1 /proc/loadavg)"
meta "corpus files: $(find "$CORPUS" -type f | wc -l)"

# ------------------------------------------------------------------ fsindex index
if [ -n "${QB_INDEX:-}" ]; then IX="$QB_INDEX"; else IX="$TMPROOT/fsindex"; fi
mkdir -p "$IX"; IX=$(realpath "$IX")
if [ -f "$IX/index.sqlite" ]; then
  meta "fsindex index: reused $IX ($(du -sm "$IX" | cut -f1) MiB)"
else
  log "fsindex index --index-dir $IX $CORPUS"
  t0=$(now_us)
  run_group "$BIN/fsindex" index --index-dir "$IX" "$CORPUS" > "$TMPROOT/fsindex-index.out" 2> "$TMPROOT/fsindex-index.err"
  rc=$?; t1=$(now_us)
  note="exit $rc"; [ "$rc" -le 2 ] || note="exit $rc (FAILED: $(head -c 200 "$TMPROOT/fsindex-index.err" | head -1))"
  meta "fsindex index: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (b-a)/1e6}') s wall, $note, $(grep -c '^fsindex: /' "$TMPROOT/fsindex-index.err") problems, $(du -sm "$IX" | cut -f1) MiB in $IX"
fi

# ------------------------------------------------------------------ plocate db
PLDB=""
if have updatedb && have plocate; then
  PLDB="$TMPROOT/plocate.db"
  log "updatedb -U $CORPUS"
  t0=$(now_us)
  updatedb -U "$CORPUS" -o "$PLDB" -l 0 --prunepaths '' --prunefs '' --prune-bind-mounts no \
    > "$TMPROOT/updatedb.log" 2>&1; rc=$?; t1=$(now_us)
  meta "plocate updatedb: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (b-a)/1e6}') s wall, exit $rc"
  [ "$rc" = 0 ] || PLDB=""
else
  meta "plocate: not installed, skipped"
fi

# ------------------------------------------------------------------ recoll index
RC=""; RPARTIAL=""
if have recollindex && have recollq; then
  if [ -n "${QB_RECOLL_DIR:-}" ]; then RC="$QB_RECOLL_DIR"; else RC="$TMPROOT/recoll"; fi
  mkdir -p "$RC"; RC=$(realpath "$RC")
  if [ -d "$RC/xapiandb" ] && [ -f "$RC/recoll.conf" ]; then
    [ -f "$RC/qb-partial" ] && RPARTIAL=$(cat "$RC/qb-partial")
    grep -qF "topdirs = $CORPUS" "$RC/recoll.conf" || log "warning: $RC/recoll.conf is not about $CORPUS"
    meta "recoll index: reused $RC ($(du -sm "$RC/xapiandb" | cut -f1) MiB) ${RPARTIAL}"
  else
    printf 'topdirs = %s\nloglevel = 2\n' "$CORPUS" > "$RC/recoll.conf"
    # as peers.sh: man pages typed by suffix (else every page costs an xdg-mime/perl call)
    if [ -d "$CORPUS/usr-share-man" ]; then
      { printf '[%s/usr-share-man]\n' "$CORPUS"
        sed -n '/^\[\/usr\/share\/man\]/,/^$/p' /usr/share/recoll/examples/mimemap 2>/dev/null | grep '^\.'
      } > "$RC/mimemap"
    fi
    log "recollindex -c $RC -z (limit ${RECOLL_TIMEOUT}s)"
    t0=$(now_us)
    run_group timeout -k 60 "$RECOLL_TIMEOUT" recollindex -c "$RC" -z > "$RC/qb-index.log" 2>&1
    rc=$?; t1=$(now_us)
    rm -f "$RC/qb-partial"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      RPARTIAL="PARTIAL: stopped at ${RECOLL_TIMEOUT}s"; echo "$RPARTIAL" > "$RC/qb-partial"
    elif [ "$rc" != 0 ]; then
      RPARTIAL="recollindex exit $rc"; echo "$RPARTIAL" > "$RC/qb-partial"
    fi
    files=$(awk -F' = ' '$1=="filesdone"{print $2}' "$RC/idxstatus.txt" 2>/dev/null)
    docs=$(awk -F' = ' '$1=="dbtotdocs"{print $2}' "$RC/idxstatus.txt" 2>/dev/null)
    meta "recoll index: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)/1e6}') s wall, exit $rc, files ${files:-NA}, docs ${docs:-NA}, in $RC ${RPARTIAL}"
  fi
else
  meta "recoll: not installed, skipped"
fi

# ------------------------------------------------------------------ measuring
count_lines() { wc -l < "$1"; }
count_recoll() { grep -cv '^Recoll query:\|results$\|^$' "$1"; }
stats() {  # stdin: µs per run -> "median_ms p95_ms"
  sort -g | awk '{a[NR]=$1} END {
    if (NR == 0) { print "NA NA"; exit }
    m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
    r = int(0.95 * NR); if (r < 0.95 * NR) r++            # nearest rank
    printf "%.2f %.2f\n", m / 1000, a[r] / 1000 }'
}
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" | tee -a "$RES"; }
# measure SYSTEM LABEL OKMAX COUNTER NOTE CMD... : one warm-up, then RUNS timed runs of CMD
# (stdout to a file, stderr to another); exit status above OKMAX -> an "error" row
measure() {
  local sys="$1" label="$2" okmax="$3" counter="$4" note="$5"; shift 5
  local out="$TMPROOT/q.out" err="$TMPROOT/q.err" t0 t1 rc i n="$RUNS" hits ms p95 msg
  t0=$(now_us); "$@" > "$out" 2> "$err"; rc=$?; t1=$(now_us)
  if [ "$rc" -gt "$okmax" ]; then
    msg=$(grep -m1 . "$err" | tr '\t' ' ' | cut -c1-120)
    row "$sys" "$label" error error error "exit $rc: ${msg:-no message}${note:+; $note}"
    return
  fi
  hits=$("$counter" "$out")
  [ "$rc" = 0 ] || note="exit $rc${note:+; $note}"      # e.g. fsfind 1 = nothing found
  if (( t1 - t0 > SLOW_S * 1000000 && n > 5 )); then n=5; note="runs=5 (warm-up $(( (t1 - t0) / 1000 )) ms)${note:+; $note}"; fi
  for ((i = 0; i < n; i++)); do
    t0=$(now_us); "$@" > "$out" 2> "$err"; t1=$(now_us)
    echo $(( t1 - t0 ))
  done > "$TMPROOT/times"
  read -r ms p95 < <(stats < "$TMPROOT/times")
  row "$sys" "$label" "$ms" "$p95" "$hits" "$note"
}
FSF="$BIN/fsfind"
fsf() { "$FSF" --index-dir "$IX" "$@"; }
fsd() { "$BIN/fsfind-direct" --index-dir "$IX" "$@"; }
# fsindexd for the index (QB_DAEMON=0: none): the small fsfind hands each query to it over the
# query socket; fsfind-direct rows read the index in their own process (what fsfind does when no
# daemon runs). The daemon's first reconcile is waited for, so it does not share the CPU.
DAEMON=""
if [ "${QB_DAEMON:-1}" = 1 ] && [ -x "$BIN/fsindexd" ] && [ -x "$BIN/fsfind-direct" ]; then
  log "fsindexd --foreground --index-dir $IX --root $CORPUS"
  setsid "$BIN/fsindexd" --foreground --index-dir "$IX" --root "$CORPUS" > "$TMPROOT/fsindexd.log" 2>&1 &
  DAEMON=$!; BG_PIDS+=("$DAEMON")
  for _ in $(seq 1 600); do
    "$BIN/fsindex" status --index-dir "$IX" 2>/dev/null | grep -q '^fsindexd: watching' && break
    sleep 0.2
  done
  sleep 2
  meta "fsindexd: $("$BIN/fsindex" status --index-dir "$IX" 2>&1 | head -1); fsfind rows go through it, fsfind-direct rows do not"
  FSFIND_TRACE=1 fsf --count "$W_RARE" 2>&1 >/dev/null | grep -q 'answered by fsindexd' || meta "WARNING: fsindexd did not answer fsfind"
else
  meta "no fsindexd: fsfind reads the index itself (fsfind-direct)"
fi
# peers (pipelines return 0: their status says nothing about errors)
rg_and() { rg -l -0 -i -F -- "$1" "$CORPUS" | xargs -0 -r rg -l -i -F -- "$2"; return 0; }
rg_head() { rg -l -i -F -- "$1" "$CORPUS" | head -n "$2"; return 0; }
rq() { recollq -c "$RC" -b "$@"; }
RN="${RPARTIAL:+recoll index $RPARTIAL}"

log "queries: $RUNS runs each after one warm-up"
printf 'system\tquery\tmedian_ms\tp95_ms\thits\tnote\n'

L="name:$W_NAME"
measure fsfind "$L" 1 count_lines "--name" fsf --name "$W_NAME"
measure fsfind-nameq "$L" 1 count_lines "'name:X'" fsf "name:$W_NAME"
[ -n "$DAEMON" ] && measure fsfind-direct "$L" 1 count_lines "--name, no daemon" fsd --name "$W_NAME"
[ -n "$PLDB" ] && measure plocate "$L" 1 count_lines "whole path" plocate -d "$PLDB" -- "$W_NAME"
[ -n "$FD" ] && measure fd "$L" 1 count_lines "$FD -F (skips hidden/ignored)" "$FD" -F -- "$W_NAME" "$CORPUS"

for e in "word-rare:$W_RARE" "word-common:$W_COMMON" "word-vcommon-all:$W_VCOMMON"; do
  w="${e#*:}"
  measure fsfind "$e" 1 count_lines "" fsf "$w"
  [ -n "$DAEMON" ] && measure fsfind-direct "$e" 1 count_lines "no daemon" fsd "$w"
  [ -n "$RC" ] && measure recoll "$e" 0 count_recoll "-n 0${RN:+; $RN}" rq -n 0 "$w"
  have rg && measure rg "$e" 1 count_lines "" rg -l -i -F -- "$w" "$CORPUS"
done
L="word-vcommon-limit100:$W_VCOMMON"
measure fsfind "$L" 1 count_lines "--limit 100" fsf --limit 100 "$W_VCOMMON"
[ -n "$DAEMON" ] && measure fsfind-direct "$L" 1 count_lines "--limit 100, no daemon" fsd --limit 100 "$W_VCOMMON"
[ -n "$RC" ] && measure recoll "$L" 0 count_recoll "-n 100${RN:+; $RN}" rq -n 100 "$W_VCOMMON"
have rg && measure rg "$L" 0 count_lines "rg | head -n 100" rg_head "$W_VCOMMON" 100

L="phrase:$W_PHRASE"
measure fsfind "$L" 1 count_lines "" fsf "\"$W_PHRASE\""
[ -n "$RC" ] && measure recoll "$L" 0 count_recoll "-n 0${RN:+; $RN}" rq -n 0 "\"$W_PHRASE\""
have rg && measure rg "$L" 1 count_lines "-F (not across lines)" rg -l -i -F -- "$W_PHRASE" "$CORPUS"

L="and:${W_AND// /+}"
read -r a1 a2 _ <<< "$W_AND"
measure fsfind "$L" 1 count_lines "" fsf "$W_AND"
[ -n "$RC" ] && measure recoll "$L" 0 count_recoll "-n 0${RN:+; $RN}" rq -n 0 "$W_AND"
have rg && measure rg "$L" 0 count_lines "rg -l a | xargs rg -l b" rg_and "$a1" "$a2"

L="predicate:image-width>1000"
measure fsfind "$L" 1 count_lines "no peer" fsf 'kind:image width:>1000'
measure fsfind-mdq "$L" 1 count_lines "no peer" fsf 'kMDItemContentTypeTree == "public.image" && kMDItemPixelWidth > 1000'

measure fsfind "group-by:kind" 1 count_lines "no peer; all items" fsf --group-by kind
measure fsfind "group-by:kind(kind:document)" 1 count_lines "no peer" fsf --group-by kind 'kind:document'

meta "done in $(elapsed) s, load $(cut -d' ' -f1 /proc/loadavg)"
if [ -n "$OUTFILE" ]; then
  { cat "$META"; printf 'system\tquery\tmedian_ms\tp95_ms\thits\tnote\n'; cat "$RES"; } > "$OUTFILE"
fi

# ------------------------------------------------------------------ summary
echo
echo "# summary: fsfind median / best peer median (below 1 = fsfind faster)"
awk -F'\t' '
  { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
  $1 ~ /^fsfind/ { fs[$2] = fs[$2] sprintf("%s=%s;", $1, $3) }
  $1 !~ /^fsfind/ && $3 ~ /^[0-9.]+$/ { if (!($2 in best) || $3 + 0 < best[$2] + 0) {
      best[$2] = $3; bsys[$2] = $1; bpart[$2] = ($6 ~ /PARTIAL/) ? "  (peer index PARTIAL)" : "" } }
  END {
    for (i = 1; i <= n; i++) {
      q = order[i]; k = split(fs[q], f, ";")
      for (j = 1; j < k; j++) {
        split(f[j], p, "="); u = (p[2] ~ /^[0-9.]+$/) ? " ms" : "   "
        line = sprintf("%-34s %-13s %9s%s", q, p[1], p[2], u)
        if (!(q in best)) line = line "   (no peer)"
        else if (u != " ms") line = line sprintf("   vs %-8s %9s ms   ratio n/a%s", bsys[q], best[q], bpart[q])
        else line = line sprintf("   vs %-8s %9s ms   ratio %.3f%s", bsys[q], best[q], p[2] / best[q], bpart[q])
        print "# " line
      }
    }
  }' "$RES"
