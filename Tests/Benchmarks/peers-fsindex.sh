#!/usr/bin/env bash
# peers-fsindex.sh — ../shared/bench/peers.sh with fsindex measured in the same run (issue 23).
#
# Usage: peers-fsindex.sh CORPUS BIN_DIR [OUTFILE]
#   CORPUS   the corpus of ../shared/bench/make-corpus.sh
#   BIN_DIR  folder with fsindex, fsindexd, fsfind (README's release build: .build/release)
#   OUTFILE  also write peers.sh's table there (TSV)
# Environment: PEERS_ONLY and the rest of peers.sh's (default PEERS_ONLY=ref,plocate,fsindex,tracker);
#   FSINDEX_OCR=false to index without OCR (default true: the first index as users get it, issue 41);
#   PEERS_SH, the path of peers.sh (default: ../shared/bench/peers.sh beside the checkout).
#
# The index template runs `fsindex index` under tree-rss.py (wall, and the memory of the parent
# and its workers together, sampled every 100 ms; printed at the end), then starts fsindexd for
# the index and returns when its first reconcile is logged, so that every query goes through the
# daemon's socket, as a user's would. peers.sh's index_wall therefore includes that reconcile
# (about 1 s); `fsindex index` alone is printed apart. Change-to-searchable is measured on the
# same fsindexd (the watch template only waits while it runs). The daemon is stopped at the end.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
CORPUS=$(realpath "$1"); BIN=$(realpath "$2"); OUT=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS_SH:-$HERE/../../../shared/bench/peers.sh}
[ -x "$PEERS" ] || { echo "peers-fsindex.sh: no peers.sh at $PEERS (set PEERS_SH)" >&2; exit 2; }
for b in fsindex fsindexd fsfind; do [ -x "$BIN/$b" ] || { echo "peers-fsindex.sh: $BIN/$b is missing" >&2; exit 2; }; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/peers-fsindex.XXXXXX")
cleanup() {
  if [ -s "$WORK/fsindexd.pid" ]; then kill "$(cat "$WORK/fsindexd.pid")" 2>/dev/null || true; fi
  rm -rf -- "$WORK"
}
trap cleanup EXIT

# The first index is measured as users get it, OCR on (issue 41; its pass is printed apart by
# `fsindex index`); FSINDEX_OCR=false turns it off, for figures without it (issue 28).
mkdir -p "$WORK/config/fsindex"
printf '[extraction]\nocr = %s\n' "${FSINDEX_OCR:-true}" > "$WORK/config/fsindex/config.toml"
export XDG_CONFIG_HOME="$WORK/config"

# Content queries: a phrase in double quotes, two words as two arguments (fsfind ANDs them).
cat > "$WORK/q.sh" <<Q
#!/usr/bin/env bash
case "\$1" in
  phrase) exec "$BIN/fsfind" --index-dir "\$3" "\"\$2\"" ;;
  and) exec "$BIN/fsfind" --index-dir "\$3" \$2 ;;
  *) exec "$BIN/fsfind" --index-dir "\$3" "\$2" ;;
esac
Q
chmod +x "$WORK/q.sh"

export FSINDEX_INDEX_CMD="python3 $HERE/tree-rss.py --json $WORK/index.json -- $BIN/fsindex index --index-dir {index} {corpus} > $WORK/index.out 2> $WORK/index.err; setsid $BIN/fsindexd --index-dir {index} --root {corpus} --foreground > $WORK/fsindexd.log 2>&1 < /dev/null & echo \$! > $WORK/fsindexd.pid; until grep -q reconciled $WORK/fsindexd.log; do sleep 0.1; done"
export FSFIND_CMD="$WORK/q.sh {kind} {query} {index}"
export FSFIND_NAME_CMD="$BIN/fsfind --index-dir {index} --name {query}"
export FSINDEX_WATCH_CMD="tail --pid=\$(cat $WORK/fsindexd.pid) -f /dev/null"
export FSINDEX_WATCH_READY_S=${FSINDEX_WATCH_READY_S:-1}
export PEERS_ONLY=${PEERS_ONLY:-ref,plocate,fsindex,tracker}

"$PEERS" "$CORPUS" ${OUT:+"$OUT"}
echo
echo "fsindex index alone: $(grep -h '^indexed' "$WORK/index.out" || true)"
echo "fsindex index, every process together: $(cat "$WORK/index.json" 2>/dev/null)"
