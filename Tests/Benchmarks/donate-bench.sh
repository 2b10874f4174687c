#!/usr/bin/env bash
# donate-bench.sh — how fast apps can feed the index, and what donated domains cost queries.
#
# Usage: donate-bench.sh BIN_DIR [ITEMS] [TREE]
#   BIN_DIR  folder with fsindex, fsindexd and fsfind (README's release build)
#   ITEMS    items to donate (default 20000), in batches of 256, each ~600 bytes of text
#   TREE     a folder indexed first, so queries run over files and donated items (default /usr/share/doc)
# Prints, tab-separated: route, items, seconds, items/s; then the median of 21 runs of some
# queries over the files alone and over files + donated items (process start included).
set -euo pipefail
bin=$1 n=${2:-20000} tree=${3:-/usr/share/doc}
tmp=$(mktemp -d); trap 'kill $(cat "$tmp/pid" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_RUNTIME_DIR=$tmp/run XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state; mkdir -m 700 -p "$tmp/run"
python3 - "$n" "$tmp" <<'PY'
import json, random, sys
n, tmp = int(sys.argv[1]), sys.argv[2]
words = "budget travel quarterly meeting notes report draft planning review estimate library march spring figures team".split()
random.seed(1)
for b in range((n + 255) // 256):
    with open(f"{tmp}/batch-{b:05d}.jsonl", "w") as f:
        for i in range(b * 256, min(n, (b + 1) * 256)):
            text = " ".join(random.choice(words) for _ in range(90))
            f.write(json.dumps({"uniqueIdentifier": f"n{i}", "attributes": {"title": f"Note {i} " + random.choice(words), "textContent": text,
                                "keywords": [random.choice(words)], "contentURL": f"https://notes.example/n/{i}"}}) + "\n")
PY
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
qtime() { local idx=$1; shift; for _ in $(seq 21); do s=$(date +%s%N); "$bin/fsfind" --index-dir "$idx" --limit 20 "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e-s)/1000 )); done | median; }

"$bin/fsindex" index --index-dir "$tmp/files" "$tree" >/dev/null 2>&1 || true
cp -r "$tmp/files" "$tmp/cmd"
printf 'route\titems\tseconds\titems_per_s\n'
s=$(date +%s%N)
for f in "$tmp"/batch-*.jsonl; do "$bin/fsindex" donate --index-dir "$tmp/cmd" --domain notes --client-state "$(basename "$f")" "$f" >/dev/null; done
e=$(date +%s%N); printf 'fsindex donate (a process per batch)\t%s\t%.2f\t%.0f\n' "$n" "$(echo "($e-$s)/1000000000" | bc -l)" "$(echo "$n/(($e-$s)/1000000000)" | bc -l)"

cp -r "$tmp/files" "$tmp/sock"
mkdir -p "$tmp/empty"
"$bin/fsindexd" --foreground --index-dir "$tmp/sock" --root "$tmp/empty" >"$tmp/daemon.log" 2>&1 & echo $! > "$tmp/pid"
for _ in $(seq 100); do "$bin/fsindex" status --index-dir "$tmp/sock" 2>/dev/null | grep -q "fsindexd: watching" && break; sleep 0.2; done
socket=$("$bin/fsindex" status --index-dir "$tmp/sock" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["socket"])')
python3 - "$socket" "$tmp" "$n" <<'PY'
import glob, json, socket, sys, time
sock, tmp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_UNIX); s.connect(sock); r = s.makefile()
start = time.monotonic()
for f in sorted(glob.glob(f"{tmp}/batch-*.jsonl")):
    items = [json.loads(l) for l in open(f)]
    s.sendall((json.dumps({"request": "donate", "domain": "notes", "clientState": f, "items": items}) + "\n").encode())
    reply = json.loads(r.readline())
    assert reply["response"] == "ok", reply
t = time.monotonic() - start
print(f"socket (one connection, fsindexd's writer)\t{n}\t{t:.2f}\t{n / t:.0f}")
PY
printf '\nquery\tfiles_only_ms\tfiles_and_donated_ms\n'
for q in budget "copyright license" "kind:text" "name:readme"; do
    a=$(qtime "$tmp/files" $q); b=$(qtime "$tmp/cmd" $q)
    printf '%s\t%.1f\t%.1f\n' "$q" "$(echo "$a/1000" | bc -l)" "$(echo "$b/1000" | bc -l)"
done
