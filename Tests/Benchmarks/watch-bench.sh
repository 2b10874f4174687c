#!/usr/bin/env bash
# watch-bench.sh — measures the background watcher fsindexd on a real corpus.
#
# Usage:
#   watch-bench.sh CORPUS BIN_DIR [OUTFILE]
#
#   CORPUS   a folder to watch (e.g. one made by shared/bench/make-corpus.sh, ~111k files).
#            Only CORPUS/zz-watchbench-<pid>/ is written into; it is removed at the end.
#   BIN_DIR  folder holding fsindexd, fsindex and fsfind (release build).
#   OUTFILE  also write the table there.
#
# Prints a TSV table on stdout (measure <TAB> value <TAB> unit <TAB> note); progress on stderr.
#
# What it measures (one fsindexd, started on an empty index with
#   --root CORPUS --root TMP/burst  and a config with [daemon] throttle = "normal",
# so the daemon runs at normal CPU and I/O priority instead of the default nice 10 / idle I/O):
#   a. first crawl: seconds from start until a known file name is found by
#      `fsfind --count --name NAME` (names-first pass), until the item count reaches its final
#      value, and until `fsindex status --json` says "watching" (content done); daemon CPU for
#      the crawl, peak RSS (VmHWM) and RSS (VmRSS) while watching afterwards.
#      (Polled every 0.5 s with fsfind + fsindex status; that polling shares the 2 cores.)
#   b. idle: utime+stime (/proc/PID/stat) and context switches (summed over all threads,
#      /proc/PID/task/*/status) over WATCHBENCH_IDLE_S (60) s of watching with nothing changing.
#   c. event-to-searchable latency over WATCHBENCH_N (200) tries in CORPUS/zz-watchbench-<pid>/
#      (made before the daemon starts, so it is watched from the crawl on): odd tries create a
#      new file, even tries rewrite the previous one with a new word. The file is written as
#      `printf ... > f.part && mv -f f.part f` (WATCHBENCH_WRITE=direct: `printf ... > f`);
#      the clock starts just after the mv (close) and stops when the first `fsfind WORD` that
#      lists the file returns; fsfind is re-run with no sleep in between. Reports median, p95,
#      p99 (nearest rank), max, and the median run time of fsfind itself (part of every figure).
#      WATCHBENCH_GAP_S (0.2) s pause between tries.
#   d. burst: a tar of CORPUS subfolders (WATCHBENCH_BURST_DIRS, default
#      "rust-doc usr-share-man usr-share usr-include", ~98k files) is made once in the temp dir
#      before the daemon starts; during the run `tar x` unpacks it into TMP/burst/x (the second,
#      empty watched root). Reports seconds from the start of tar until the index's item count
#      reaches before+expected (expected = entries of those folders minus the default exclusions
#      and hidden names, plus the folder x), until the daemon's queue is empty again, and the
#      daemon's peak RSS during the burst (VmHWM reset via /proc/PID/clear_refs). Then `rm -rf`
#      of x and the seconds until the item count is back to its value before the burst.
# The daemon is stopped with SIGTERM (by its PID) and its shutdown time reported; warnings and
# errors in its log are counted. WATCHBENCH_DAEMON_LOG=FILE keeps a copy of the daemon log.
# Everything else lives in a mktemp -d folder (XDG_RUNTIME_DIR is a private 0700 folder in it)
# that is removed at the end. Needs: bash 5, jq, tar, Linux /proc. Takes ~8 minutes on the full
# corpus on 2 cores.
#
# Example:
#   Tests/Benchmarks/watch-bench.sh /work/bench/corpus /work/bench/bin /work/bench/watch-bench.tsv
set -euo pipefail
export LC_ALL=C

if [ $# -lt 2 ]; then sed -n '2,12p' "$0" >&2; exit 64; fi
CORPUS=$(realpath "$1"); BIN=$(realpath "$2"); OUTFILE="${3:-}"
for b in fsindexd fsindex fsfind; do [ -x "$BIN/$b" ] || { echo "no $BIN/$b" >&2; exit 2; }; done
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 2; }

N_LAT="${WATCHBENCH_N:-200}"
IDLE_S="${WATCHBENCH_IDLE_S:-60}"
GAP_S="${WATCHBENCH_GAP_S:-0.2}"
WRITE_MODE="${WATCHBENCH_WRITE:-rename}"
KNOWN_NAME="${WATCHBENCH_KNOWN_NAME:-stdio.h}"
BURST_DIRS="${WATCHBENCH_BURST_DIRS:-rust-doc usr-share-man usr-share usr-include}"
CRAWL_LIMIT="${WATCHBENCH_CRAWL_LIMIT:-1800}"
BURST_LIMIT="${WATCHBENCH_BURST_LIMIT:-900}"
PROBE_LIMIT="${WATCHBENCH_PROBE_LIMIT:-30}"
CLK_TCK=$(getconf CLK_TCK)

T=$(mktemp -d); chmod 700 "$T"
RUN="$T/run"; mkdir -m 700 "$RUN"; export XDG_RUNTIME_DIR="$RUN"
IDX="$T/idx"; CONF="$T/fsindexd.toml"; BURST="$T/burst"; RES="$T/results.tsv"
INCR="$CORPUS/zz-watchbench-$$"
DPID=""
mkdir -p "$BURST"; BURST=$(realpath "$BURST")
printf '[daemon]\nthrottle = "normal"\n' > "$CONF"
: > "$RES"

T_START=$EPOCHREALTIME
log() { printf '[watch-bench %6.1fs] %s\n' "$(awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')" "$*" >&2; }
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" | tee -a "$RES" >&2; }
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", (b-a)/1e6}'; }   # us us -> s

stop_daemon() {
  [ -n "$DPID" ] || return 0
  if kill -0 "$DPID" 2>/dev/null; then
    kill -TERM "$DPID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.3; done
    if kill -0 "$DPID" 2>/dev/null; then log "daemon did not stop in 30 s: SIGKILL"; kill -KILL "$DPID" 2>/dev/null || true; fi
  fi
  wait "$DPID" 2>/dev/null || true
  DPID=""
}
cleanup() {
  stop_daemon
  if [ -n "${WATCHBENCH_DAEMON_LOG:-}" ] && [ -f "$T/daemon.log" ]; then cp -f "$T/daemon.log" "$WATCHBENCH_DAEMON_LOG" || true; fi
  rm -rf -- "$INCR" "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# /proc readers (the daemon is our child, so these are its figures)
status_kb() { awk -v k="$1:" '$1==k{print $2}' "/proc/$DPID/status"; }            # VmHWM, VmRSS, Threads
cpu_ticks() { sed 's/^.*) //' "/proc/$DPID/stat" | awk '{print $12 + $13}'; }       # utime+stime
ctxt_sum() { cat /proc/"$DPID"/task/*/status 2>/dev/null | awk '$1=="voluntary_ctxt_switches:"{v+=$2} $1=="nonvoluntary_ctxt_switches:"{n+=$2} END{print v+0, n+0}'; }
mib() { awk -v k="$1" 'BEGIN{printf "%.1f", k/1024}'; }
# status -> "items state queue burstItems" (state "none" when no daemon answered, items -1 when no index)
poll_status() {
  local j
  if j=$("$BIN/fsindex" status --json --index-dir "$IDX" 2>/dev/null); then
    jq -r --arg b "$BURST" '[.items, (.daemon.state // "none"), (.daemon.queueLength // -1),
        (first(.roots[]? | select(.domain == $b) | .items) // 0)] | @tsv' <<<"$j" 2>/dev/null || echo "-1 none -1 0"
  else
    echo "-1 none -1 0"
  fi
}
# expected items for DIR(s) of CORPUS: each DIR itself plus the entries below it minus hidden
# names and the default exclusions (pruned with what is below them)
count_indexable() {
  local below
  below=$(cd "$CORPUS" && find "$@" -mindepth 1 \( -name '.*' -o -name '*~' -o -name '*.swp' -o -name '*.tmp' \
      -o -name node_modules -o -name __pycache__ \) -prune -o -print | wc -l)
  echo $(( $# + below ))
}
pct() {  # file p -> nearest-rank percentile (p in 0..100; 50 = median)
  sort -g "$1" | awk -v p="$2" '{a[NR]=$1} END{ if (NR==0) {print "NA"; exit} r=int((p/100)*NR + 0.999999); if (r<1) r=1; if (r>NR) r=NR; print a[r] }'
}

log "corpus $CORPUS; binaries $BIN; temp $T"
row corpus files "$(find "$CORPUS" -type f | wc -l)" files "$CORPUS"
row config throttle normal "" "[daemon] throttle = \"normal\" (default \"low\" = nice 10 + idle I/O); other settings default"
row machine nproc "$(nproc)" cores ""

# ---------------------------------------------------------------- burst archive (before the daemon)
read -r -a BDIRS <<<"$BURST_DIRS"
log "making the burst archive of: ${BDIRS[*]}"
tar -C "$CORPUS" -cf "$T/burst.tar" "${BDIRS[@]}"
BURST_FILES=$(tar -tf "$T/burst.tar" | grep -vc '/$' || true)
BURST_EXPECTED=$(( $(count_indexable "${BDIRS[@]}") + 1 ))   # + the folder x
row burst archive_files "$BURST_FILES" files "tar of ${BDIRS[*]} ($(du -m "$T/burst.tar" | cut -f1) MiB), made before the daemon starts"
row burst expected_items "$BURST_EXPECTED" items "entries minus hidden/excluded names, + folder x"
CORPUS_EXPECTED=$(count_indexable .)   # the root is an item too
mkdir "$INCR"

# ---------------------------------------------------------------- a. first crawl
log "a. starting fsindexd on an empty index"
: > "$T/crawl.poll"
T0=$(now_us)
"$BIN/fsindexd" --foreground --config "$CONF" --root "$CORPUS" --root "$BURST" --index-dir "$IDX" 2> "$T/daemon.log" &
DPID=$!
t_name=""; t_watch=""; state=none; items=-1
while :; do
  sleep 0.5
  kill -0 "$DPID" 2>/dev/null || { log "daemon exited during the crawl"; tail -20 "$T/daemon.log" >&2; exit 1; }
  if [ -z "$t_name" ]; then
    c=$("$BIN/fsfind" --index-dir "$IDX" --count --name "$KNOWN_NAME" 2>/dev/null || true)
    if [[ "$c" =~ ^[0-9]+$ ]] && (( c > 0 )); then t_name=$(now_us); log "name '$KNOWN_NAME' found ($c hits)"; fi
  fi
  read -r items state queue bitems < <(poll_status)
  t=$(now_us)
  echo "$(( t - T0 )) $items $state $queue $(status_kb VmRSS) $(( items - bitems ))" >> "$T/crawl.poll"
  if [ "$state" = watching ]; then t_watch=$t; break; fi
  if (( (t - T0) > CRAWL_LIMIT * 1000000 )); then log "no 'watching' after ${CRAWL_LIMIT}s"; break; fi
done
crawl_cpu=$(cpu_ticks)
ITEMS_CRAWL="$items"; ITEMS_CORPUS=$(( items - bitems ))
# first poll at which the corpus root's item count reached its final value (all names written;
# the burst root is crawled after the corpus, so the total only completes at the very end)
t_all=$(awk -v n="$ITEMS_CORPUS" '$6>=n {print $1; exit}' "$T/crawl.poll")
row crawl name_searchable "$( [ -n "$t_name" ] && secs "$T0" "$t_name" || echo NA )" s "start until fsfind --count --name '$KNOWN_NAME' first finds one (names-first pass; 0.5 s polls)"
row crawl all_items_in "$( [ -n "$t_all" ] && secs 0 "$t_all" || echo NA )" s "start until the items of CORPUS first reached their final count $ITEMS_CORPUS (all names in)"
row crawl watching "$( [ -n "$t_watch" ] && secs "$T0" "$t_watch" || echo NA )" s "start until status state=watching (content of both roots done)"
row crawl items "$ITEMS_CRAWL" items "CORPUS $ITEMS_CORPUS (find-based expectation $CORPUS_EXPECTED incl. the root, + the probe folder) + burst root $bitems"
row crawl rate "$( [ -n "$t_watch" ] && awk -v n="$ITEMS_CRAWL" -v a="$T0" -v b="$t_watch" 'BEGIN{printf "%.0f", n/((b-a)/1e6)}' || echo NA )" items/s "items / seconds to watching"
row crawl daemon_cpu "$(awk -v t="$crawl_cpu" -v h="$CLK_TCK" 'BEGIN{printf "%.1f", t/h}')" s "utime+stime of fsindexd from start to watching"
row crawl peak_rss "$(mib "$(status_kb VmHWM)")" MiB "VmHWM at the moment of watching"
sleep 5
row watching rss "$(mib "$(status_kb VmRSS)")" MiB "VmRSS 5 s after watching"
row watching threads "$(status_kb Threads)" threads ""

# ---------------------------------------------------------------- b. idle
log "b. idle for ${IDLE_S}s"
sleep 5
c0=$(cpu_ticks); read -r v0 n0 < <(ctxt_sum); i0=$(now_us)
sleep "$IDLE_S"
c1=$(cpu_ticks); read -r v1 n1 < <(ctxt_sum); i1=$(now_us)
idle_s=$(awk -v a="$i0" -v b="$i1" 'BEGIN{printf "%.3f", (b-a)/1e6}')
idle_cpu=$(awk -v d="$(( c1 - c0 ))" -v h="$CLK_TCK" 'BEGIN{printf "%.2f", d/h}')
row idle cpu "$idle_cpu" s "utime+stime over ${idle_s} s watching, nothing changing (clock ticks of 1/$CLK_TCK s)"
row idle cpu_pct "$(awk -v c="$idle_cpu" -v s="$idle_s" 'BEGIN{printf "%.3f", 100*c/s}')" "% of one core" ""
row idle voluntary_ctxt_switches "$(( v1 - v0 ))" switches "over ${idle_s} s, summed over all threads"
row idle nonvoluntary_ctxt_switches "$(( n1 - n0 ))" switches "over ${idle_s} s, summed over all threads"
row idle rss "$(mib "$(status_kb VmRSS)")" MiB "VmRSS after the idle minute"

# ---------------------------------------------------------------- c. event-to-searchable
log "c. event-to-searchable, $N_LAT tries ($WRITE_MODE write)"
: > "$T/lat.ms"; : > "$T/fsfind.ms"; : > "$T/lat-create.ms"; : > "$T/lat-modify.ms"; misses=0; calls=0
for ((i = 1; i <= N_LAT; i++)); do
  w="zqxwatch$$n${i}r$RANDOM"
  if (( i % 2 )); then f="$INCR/new-$i.txt"; op=create; else f="$INCR/new-$((i - 1)).txt"; op=modify; fi
  if [ "$WRITE_MODE" = direct ]; then
    printf 'watch-bench time-to-searchable probe\n%s\n' "$w" > "$f"
  else
    printf 'watch-bench time-to-searchable probe\n%s\n' "$w" > "$f.part" && mv -f "$f.part" "$f"
  fi
  t0=$(now_us); ok=0
  while :; do
    a=$(now_us)
    out=$("$BIN/fsfind" --index-dir "$IDX" "$w" 2>/dev/null || true)
    b=$(now_us); calls=$((calls + 1))
    echo "$(( b - a ))" >> "$T/fsfind.ms"
    if grep -qxF -- "$f" <<<"$out"; then ok=1; break; fi
    if (( (b - t0) > PROBE_LIMIT * 1000000 )); then break; fi
  done
  if [ "$ok" = 1 ]; then
    ms=$(awk -v a="$t0" -v b="$b" 'BEGIN{printf "%.1f", (b-a)/1000}')
    echo "$ms" >> "$T/lat.ms"; echo "$ms" >> "$T/lat-$op.ms"
  else
    misses=$((misses + 1)); echo "$(( PROBE_LIMIT * 1000 ))" >> "$T/lat.ms"; log "try $i ($op): not found in ${PROBE_LIMIT}s"
  fi
  if (( i % 50 == 0 )); then log "  $i tries, median so far $(pct "$T/lat.ms" 50) ms"; fi
  sleep "$GAP_S"
done
awk '{printf "%.1f\n", $1/1000}' "$T/fsfind.ms" > "$T/fsfind2.ms"
how=$([ "$WRITE_MODE" = direct ] && echo "printf > f" || echo "printf > f.part && mv -f f.part f")
row latency median "$(pct "$T/lat.ms" 50)" ms "$N_LAT tries, create/modify alternately ($how); clock from just after the write until the first fsfind listing the file returns, fsfind re-run with no sleep"
row latency p95 "$(pct "$T/lat.ms" 95)" ms "nearest rank"
row latency p99 "$(pct "$T/lat.ms" 99)" ms "nearest rank"
row latency max "$(pct "$T/lat.ms" 100)" ms ""
row latency min "$(pct "$T/lat.ms" 0)" ms ""
row latency create_median "$(pct "$T/lat-create.ms" 50)" ms "$(wc -l < "$T/lat-create.ms") creates"
row latency modify_median "$(pct "$T/lat-modify.ms" 50)" ms "$(wc -l < "$T/lat-modify.ms") rewrites of the previous file"
row latency not_found "$misses" tries "not searchable within ${PROBE_LIMIT}s (counted as ${PROBE_LIMIT}s above)"
row latency fsfind_run_median "$(pct "$T/fsfind2.ms" 50)" ms "run time of one fsfind WORD process ($calls calls; included in every latency figure)"
row latency fsfind_run_p95 "$(pct "$T/fsfind2.ms" 95)" ms ""
row latency fsfind_calls_per_try "$(awk -v c="$calls" -v n="$N_LAT" 'BEGIN{printf "%.1f", c/n}')" calls "mean"

# ---------------------------------------------------------------- d. burst
log "d. burst: tar x of $BURST_FILES files into the second root"
sleep 3
read -r before state queue bitems < <(poll_status)
row burst items_before "$before" items "burst root: $bitems items"
target=$(( before + BURST_EXPECTED ))
echo 5 > "/proc/$DPID/clear_refs" 2>/dev/null && hwm_reset=1 || hwm_reset=0
mkdir "$BURST/x"   # counted in BURST_EXPECTED
: > "$T/burst.poll"
T0=$(now_us)
tar -C "$BURST/x" -xf "$T/burst.tar" &
TARP=$!
t_tar=""; t_full=""; t_empty=""; max_rss=0; last=-1; stable_since=""
while :; do
  sleep 0.5
  if [ -z "$t_tar" ] && ! kill -0 "$TARP" 2>/dev/null; then
    wait "$TARP" || log "tar exited with status $?"; t_tar=$(now_us)
  fi
  read -r items state queue _ < <(poll_status)
  t=$(now_us); rss=$(status_kb VmRSS); if (( rss > max_rss )); then max_rss=$rss; fi
  echo "$(( t - T0 )) $items $state $queue $rss" >> "$T/burst.poll"
  if [ -z "$t_full" ] && (( items >= target )); then t_full=$t; log "burst: $items items (target $target)"; fi
  if [ -n "$t_tar" ] && [ "$state" = watching ] && [ "$queue" = 0 ]; then
    if [ "$items" = "$last" ]; then
      [ -n "$stable_since" ] || stable_since=$t
    else stable_since=""; fi
    # done: full and queue empty; or stuck: no change for 60 s with an empty queue
    if [ -n "$t_full" ] && [ -z "$t_empty" ]; then t_empty=$t; break; fi
    if [ -n "$stable_since" ] && (( t - stable_since > 60000000 )); then log "burst: item count stuck at $items (target $target)"; break; fi
  fi
  last=$items
  if (( (t - T0) > BURST_LIMIT * 1000000 )); then log "burst: limit ${BURST_LIMIT}s reached at $items items"; break; fi
done
[ -n "$t_tar" ] || { wait "$TARP" || true; t_tar=$(now_us); }
row burst tar_x "$(secs "$T0" "$t_tar")" s "wall time of tar x ($BURST_FILES files) while the daemon follows"
row burst all_items_in "$( [ -n "$t_full" ] && secs "$T0" "$t_full" || echo NA )" s "start of tar x until status items >= $target (before + expected); 0.5 s polls"
row burst settled "$( [ -n "$t_empty" ] && secs "$T0" "$t_empty" || echo NA )" s "start of tar x until also queueLength 0 and state watching (first poll after both)"
row burst items_after "$items" items "target $target"
row burst peak_rss "$( ((hwm_reset)) && mib "$(status_kb VmHWM)" || echo NA )" MiB "VmHWM since just before tar x (reset with clear_refs 5)"
row burst max_sampled_rss "$(mib "$max_rss")" MiB "largest VmRSS seen by the 0.5 s polls"
sleep 5
row burst rss_after "$(mib "$(status_kb VmRSS)")" MiB "VmRSS 5 s after settling"

log "d. rm -rf of the unpacked tree"
: > "$T/rm.poll"
T0=$(now_us)
rm -rf -- "$BURST/x"
t_rm=$(now_us); t_gone=""
while :; do
  read -r items state queue _ < <(poll_status)
  t=$(now_us)
  echo "$(( t - T0 )) $items $state $queue" >> "$T/rm.poll"
  if (( items >= 0 && items <= before )); then t_gone=$t; break; fi
  if (( (t - T0) > BURST_LIMIT * 1000000 )); then log "rm: limit reached at $items items"; break; fi
  sleep 0.5
done
row burst rm_rf "$(secs "$T0" "$t_rm")" s "wall time of rm -rf"
row burst items_gone "$( [ -n "$t_gone" ] && secs "$T0" "$t_gone" || echo NA )" s "start of rm -rf until status items <= $before (0.5 s polls)"
row burst items_after_rm "$items" items ""

# ---------------------------------------------------------------- end
read -r items state queue _ < <(poll_status)
last_error=$("$BIN/fsindex" status --json --index-dir "$IDX" 2>/dev/null | jq -r '.daemon.lastError // "none"' 2>/dev/null || echo "?")
row end daemon_state "$state" "" "queue $queue; lastError: $last_error"
row end daemon_cpu_total "$(awk -v t="$(cpu_ticks)" -v h="$CLK_TCK" 'BEGIN{printf "%.1f", t/h}')" s "utime+stime over the whole run"
rm -rf -- "$INCR"
sleep 2
row end items_final "$(poll_status | cut -f1)" items "after removing the probe folder"
s0=$(now_us); pid_was=$DPID
kill -TERM "$DPID"; rc=0; wait "$DPID" || rc=$?; DPID=""
row end sigterm_exit "$(secs "$s0" "$(now_us)")" s "SIGTERM to exit (pid $pid_was), exit status $rc"
row end log_warnings "$(grep -c -E '^[^ ]+ (warning|notice) ' "$T/daemon.log" || true)" lines "daemon log lines at warning/notice level"
row end log_errors "$(grep -c -E '^[^ ]+ (error|critical) ' "$T/daemon.log" || true)" lines "daemon log lines at error/critical level"
row end log_lines "$(wc -l < "$T/daemon.log")" lines "of which $(grep -c -v -E '^[^ ]+ (trace|debug|info|notice|warning|error|critical) ' "$T/daemon.log" || true) not in the logger's format (e.g. libxml2 messages)"
if grep -q -E '^[^ ]+ (warning|error|critical) ' "$T/daemon.log"; then
  log "daemon log, warnings and errors (first 20):"; grep -E '^[^ ]+ (warning|error|critical) ' "$T/daemon.log" | head -20 >&2
fi
row total wall "$(awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')" s "this script"

{ printf 'measure\tvalue\tunit\tnote\n'; awk -F'\t' 'BEGIN{OFS="\t"} {print $1"."$2, $3, $4, $5}' "$RES"; } > "$T/table.tsv"
[ -n "$OUTFILE" ] && cp "$T/table.tsv" "$OUTFILE"
cat "$T/table.tsv"
