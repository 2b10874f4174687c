#!/usr/bin/env bash
# provider-bench.sh — per-keystroke latency of the desktop search provider (issue 27), as GNOME
# Shell and KRunner call it over a real session bus, on an index of the bench corpus.
#
# Usage: provider-bench.sh INDEX_DIR CORPUS BIN_DIR [ROUNDS]
#   INDEX_DIR  an index of CORPUS (fsindex index CORPUS); copied first, never changed
#   CORPUS     the corpus of ../shared/bench/make-corpus.sh (fsindexd's root)
#   BIN_DIR    folder with fsindex and fsindexd (README's release build: .build/release)
#   ROUNDS     rounds of typing the words (default 5)
# Runs twice: with fsindexd answering each keystroke (as on a desktop), and with no daemon (the
# provider reads the index itself). Needs dbus-run-session, python3-venv and PyPI (jeepney).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
INDEX=$(realpath "$1"); CORPUS=$(realpath "$2"); BIN=$(realpath "$3"); ROUNDS=${4:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/provider-bench.XXXXXX")
cleanup() {
  if [ -s "$WORK/fsindexd.pid" ]; then kill "$(cat "$WORK/fsindexd.pid")" 2>/dev/null || true; fi
  rm -rf -- "$WORK"
}
trap cleanup EXIT
python3 -m venv "$WORK/venv" >/dev/null && "$WORK/venv/bin/pip" install -q jeepney >/dev/null
cp -r "$INDEX" "$WORK/index"
mkdir -p "$WORK/services" "$WORK/run" "$WORK/config/fsindex" && chmod 700 "$WORK/run"
for n in SearchProvider KRunner; do
  sed "s|/usr/bin/fsindex|$BIN/fsindex|" "$HERE/../../Config/packaging/desktop/org.fsindex.$n.service" > "$WORK/services/org.fsindex.$n.service"
done
cat > "$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=$WORK</listen><servicedir>$WORK/services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
CONF
export FSINDEX_INDEX_DIR="$WORK/index" XDG_RUNTIME_DIR="$WORK/run" XDG_CONFIG_HOME="$WORK/config"
run() { dbus-run-session --config-file="$WORK/bus.conf" -- "$WORK/venv/bin/python" "$HERE/provider_latency.py" "$ROUNDS" 2>/dev/null | sed "s/^/$1\t/"; }

# With fsindexd: it reconciles the index with the corpus first (stat of every file), then idles.
"$BIN/fsindexd" --foreground --root "$CORPUS" > "$WORK/fsindexd.log" 2>&1 & echo $! > "$WORK/fsindexd.pid"
for _ in $(seq 600); do
  "$BIN/fsindex" status --json 2>/dev/null | grep -q '"state" *: *"watching"' && break; sleep 0.5
done
run daemon
kill "$(cat "$WORK/fsindexd.pid")"; wait "$(cat "$WORK/fsindexd.pid")" 2>/dev/null || true; : > "$WORK/fsindexd.pid"
run direct
