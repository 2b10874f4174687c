#!/usr/bin/env bash
# ocr-video-bench.sh — what OCR and the video extractor cost (issue 28).
#
# Usage: ocr-video-bench.sh BIN_DIR CORPUS PHOTOS VIDEOS [RUNS]
#   BIN_DIR  folder with fsindex and fsindex-worker (README's release build: .build/release)
#   CORPUS   the bench corpus of ../shared/bench/make-corpus.sh
#   PHOTOS   a folder of pictures: photos without text and document pictures (scans, screenshots)
#   VIDEOS   a folder of videos
#   RUNS     first indexings of each folder, each on an empty index (default 3)
#
# For each folder, `fsindex index` into an empty index with `[extraction] ocr = false` and with
# `ocr = true`, RUNS times each: wall and CPU (user+sys of fsindex and its workers, from
# /usr/bin/time), and the OCR pass's own figures from `--json` (read, skipped, seconds). Then the
# rates: OCR'd pictures per second, photos skipped per second, videos extracted per second (from
# the video-folder runs without OCR: the crawl reads nothing else there). Medians are printed
# last; the machine is noisy, so compare rows of the same run.
#
# Peers in the same run: the `tesseract` command on every picture of PHOTOS, one core
# (OMP_THREAD_LIMIT=1), which is what OCR costs without a test that skips photos; and `ffprobe`
# on every file of VIDEOS (libavformat's own reader, one process a file). Skipped when absent.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
BIN=$(realpath "$1"); runs=${5:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ocr-video-bench.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
for ocr in false true; do
  mkdir -p "$tmp/conf-$ocr/fsindex"
  printf '[extraction]\nocr = %s\n' "$ocr" > "$tmp/conf-$ocr/fsindex/config.toml"
done
printf 'folder\tocr\trun\twall_s\tcpu_s\tindexed\tocr_read\tocr_skipped\tocr_s\n'
for label in corpus photos videos; do
  case $label in corpus) dir=$2;; photos) dir=$3;; videos) dir=$4;; esac
  dir=$(realpath "$dir")
  for ocr in false true; do
    for i in $(seq 1 "$runs"); do
      ix="$tmp/index"; rm -rf "$ix"
      XDG_CONFIG_HOME="$tmp/conf-$ocr" /usr/bin/time -f '%e %U %S' -o "$tmp/time" \
        "$BIN/fsindex" index --json --index-dir "$ix" "$dir" > "$tmp/out.json" 2> "$tmp/err" || true
      read -r wall user sys < <(tail -1 "$tmp/time")
      python3 - "$tmp/out.json" "$label" "$ocr" "$i" "$wall" "$user" "$sys" <<'PY'
import json, sys
p, label, ocr, run, wall, user, sys_ = sys.argv[1:]
try: r = json.load(open(p))
except Exception: r = {}
print("\t".join([label, ocr, run, wall, "%.1f" % (float(user) + float(sys_)), str(r.get("indexed", "?")),
                 str(r.get("recognized", 0)), str(r.get("recognitionSkipped", 0)), "%.2f" % r.get("recognitionSeconds", 0)]))
PY
    done
  done
done | tee "$tmp/rows"
echo
python3 - "$tmp/rows" <<'PY'
import sys, statistics as st
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(label, ocr, col):
    v = [float(r[col]) for r in rows if r[0] == label and r[1] == ocr]
    return st.median(v) if v else float("nan")
for label in ("corpus", "photos", "videos"):
    off, on = med(label, "false", 3), med(label, "true", 3)
    print(f"{label}: first index, median wall {off:.1f} s with OCR off, {on:.1f} s on "
          f"(+{on - off:.1f} s; CPU {med(label, 'false', 4):.1f} s / {med(label, 'true', 4):.1f} s); "
          f"OCR pass {med(label, 'true', 8):.2f} s: {med(label, 'true', 6):.0f} read, {med(label, 'true', 7):.0f} skipped")
ocr_s, read, skipped = med("photos", "true", 8), med("photos", "true", 6), med("photos", "true", 7)
if ocr_s > 0: print(f"photos folder: {(read + skipped) / ocr_s:.2f} pictures/s through the OCR pass ({read:.0f} read, {skipped:.0f} skipped)")
v_wall, v_n = med("videos", "false", 3), med("videos", "false", 5)
if v_wall > 0: print(f"videos folder: {v_n:.0f} items indexed in {v_wall:.2f} s wall: {v_n / v_wall:.1f} items/s, start and writes included")
PY

echo
if command -v tesseract >/dev/null; then
  start=$(date +%s.%N); n=0; read_n=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    out=$(OMP_THREAD_LIMIT=1 tesseract "$f" - 2>/dev/null | tr -d '[:space:]' || true)
    [ -n "$out" ] && read_n=$((read_n + 1))
  done < <(find "$(realpath "$3")" -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.tif' -o -iname '*.tiff' \) -print0)
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v n="$n" -v r="$read_n" 'BEGIN { printf "peer tesseract: %d pictures of the photo folder in %.1f s (%.2f s each; text found in %d)\n", n, e - s, (e - s) / n, r }'
fi
if command -v ffprobe >/dev/null; then
  start=$(date +%s.%N); n=0
  while IFS= read -r -d '' f; do n=$((n + 1)); ffprobe -v error -show_format -show_streams -show_chapters "$f" >/dev/null 2>&1 || true; done \
    < <(find "$(realpath "$4")" -type f -print0)
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { printf "peer ffprobe: %d videos in %.2f s (%.1f ms each, one process each)\n", n, e - s, 1000 * (e - s) / n }'
fi
