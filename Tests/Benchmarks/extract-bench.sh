#!/usr/bin/env bash
# extract-bench.sh — full content indexing by `fsindex index`, with its extraction workers.
#
# Usage: extract-bench.sh CORPUS BIN_DIR [RUNS]
#
#   CORPUS   the folder to index (shared/bench/make-corpus.sh's corpus plus shared/corpus/real).
#   BIN_DIR  folder holding fsindex and fsindex-worker (release build).
#   RUNS     first indexings to run, each on an empty index (default 3).
#
# Prints one TSV row per run and a median row: wall s, CPU s (user+sys of fsindex and its
# workers, from /usr/bin/time), peak RSS of fsindex alone (MiB, /usr/bin/time), peak of the sum
# of fsindex and every fsindex-worker (MiB, sampled every 0.2 s from /proc), index size (MiB),
# problems reported, and the items per extractor from `fsindex status --json`.
set -euo pipefail
corpus=${1:?corpus}; bin=${2:?bin dir}; runs=${3:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'run\twall_s\tcpu_s\tpeak_fsindex_MiB\tpeak_all_MiB\tindex_MiB\tproblems\n'
for i in $(seq 1 "$runs"); do
  ix="$tmp/index-$i"
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin/fsindex" index --index-dir "$ix" "$corpus" >/dev/null 2>"$tmp/err" &
  tpid=$!
  peak=0
  while kill -0 "$tpid" 2>/dev/null; do
    s=0
    for p in $(pgrep -f "^$bin/fsindex(-worker)? " || true); do
      r=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0); s=$((s + ${r:-0}))
    done
    (( s > peak )) && peak=$s
    sleep 0.2
  done
  wait "$tpid" || true
  read -r wall user sys maxrss < <(tail -1 "$tmp/time")
  problems=$(grep -c '^fsindex: /' "$tmp/err" || true)
  size=$(du -sm "$ix" | cut -f1)
  printf '%s\t%s\t%.1f\t%d\t%d\t%s\t%s\n' "$i" "$wall" "$(awk -v u="$user" -v s="$sys" "BEGIN{print u+s}")" $((maxrss / 1024)) $((peak / 1024)) "$size" "$problems"
  if [ "$i" = "$runs" ]; then "$bin/fsindex" status --index-dir "$ix" >&2; fi
  rm -rf "$ix"
done | tee "$tmp/rows"
med() { cut -f"$1" "$tmp/rows" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf 'median\t%s\t%s\t%s\t%s\t%s\n' "$(med 2)" "$(med 3)" "$(med 4)" "$(med 5)" "$(med 6)"
