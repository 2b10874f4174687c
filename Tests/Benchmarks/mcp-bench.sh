#!/usr/bin/env bash
# mcp-bench.sh — search latency through fsindex-mcp (the median of RUNS warm calls over MCP, by
# the official Python client) beside fsfind's for the same queries and the same number of results
# (fsfind --limit N, one process per run: process start included, as a shell or an agent's
# tool runner would pay it).
#
# Usage: mcp-bench.sh INDEX_DIR SCOPE BIN_DIR [RUNS] [MAX_RESULTS]
#   INDEX_DIR  an index made by BIN_DIR/fsindex (fsindex index --index-dir INDEX_DIR SCOPE)
#   SCOPE      the folder the server searches (a root of the index)
#   BIN_DIR    folder with fsfind and fsindex-mcp (README's release build)
#   RUNS       timed calls per query after one warm-up (default 20)
#   MAX_RESULTS results per search (default 20, fsindex-mcp's default)
# Queries: the file MCP_BENCH_QUERIES names (one per line), or the built-in list. The Python client comes from
# .build/mcp-venv (made by the test suite) or FSINDEX_MCP_VENV.
set -euo pipefail
index=$1 scope=$2 bin=$3 runs=${4:-20} max=${5:-20}
here=$(cd "$(dirname "$0")" && pwd)
venv=${FSINDEX_MCP_VENV:-$here/../../.build/mcp-venv}
[ -x "$venv/bin/python" ] || { echo "mcp-bench.sh: no MCP client at $venv (run swift test --filter MCPServerTests once, or set FSINDEX_MCP_VENV)" >&2; exit 2; }
if [ -n "${MCP_BENCH_QUERIES:-}" ]; then
    queries=$(cat "$MCP_BENCH_QUERIES")
else
    queries=$'copyright license\ngnu\nkind:pdf\nname:readme\nmodified:<30d kind:text\n"free software"'
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/run; mkdir -m 700 -p "$tmp/run"

echo "# $(date -u +%FT%TZ) $(nproc) cores; index $index; scope $scope; $runs runs after a warm-up; $max results" >&2
printf '%s\n' "$queries" | "$venv/bin/python" "$here/mcp_latency.py" "$runs" "$bin/fsindex-mcp" --index-dir "$index" --scope "$scope" --max-results "$max" > "$tmp/mcp.tsv"

printf 'query\tmcp_median_ms\tmcp_p95_ms\tfsfind_median_ms\tfsfind_p95_ms\tresults\n'
while IFS=$'\t' read -r q mmed mp95 n; do
    times=()
    "$bin/fsfind" --index-dir "$index" --onlyin "$scope" --limit "$max" -- $q > /dev/null 2>&1 || true
    for _ in $(seq "$runs"); do
        s=$(date +%s%N)
        "$bin/fsfind" --index-dir "$index" --onlyin "$scope" --limit "$max" -- $q > /dev/null 2>&1 || true
        e=$(date +%s%N)
        times+=($(( (e - s) / 1000 )))
    done
    read -r fmed fp95 < <(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; p=a[int(0.95*NR+0.999)]; printf "%.1f %.1f\n", m/1000, p/1000}')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$q" "$mmed" "$mp95" "$fmed" "$fp95" "$n"
done < "$tmp/mcp.tsv"
