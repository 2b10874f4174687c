#!/usr/bin/env bash
# Fuzzes FSIndex's parsers of untrusted bytes with libFuzzer (Sources/fsindex-fuzz).
#
#   Tests/Harnesses/fuzz.sh [SECONDS | --runs N] [TARGET...]
#
#   SECONDS     how long to fuzz each target (default 60)
#   --runs N    a fixed number of runs per target instead (the test suite uses this)
#   TARGET      some of: query short-query rtf image audio media mail-structure zip worker-request
#               worker-result (default: all, the folders of Tests/Fuzz/corpus)
#
# Builds fsindex-fuzz with -sanitize=fuzzer,address into .build/fuzz (its own scratch path, so
# the normal build is untouched; the first build compiles every dependency again, instrumented).
# Seeds: Tests/Fuzz/corpus/TARGET, plus the shared real-document corpus when it is beside the
# checkout. New inputs go to .build/fuzz/corpus/TARGET (the repository's corpus is only read;
# with --runs, to .build/fuzz/runs-corpus/TARGET, emptied first);
# a crash, timeout or leak goes to .build/fuzz/findings/TARGET/ and makes the exit status 1.
# Replay one with:  .build/fuzz/debug/fsindex-fuzz TARGET .build/fuzz/findings/TARGET/crash-…
set -uo pipefail
cd "$(dirname "$0")/../.."

budget=(-max_total_time=60)
label="60 s"
keep=corpus
if [ "${1:-}" = "--runs" ]; then
    [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --runs needs a number of runs" >&2; exit 64; }
    # A fixed number of runs starts from the seeds alone each time, so that it costs the same.
    budget=(-runs="$2"); label="$2 runs"; keep=runs-corpus; shift 2
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
    budget=(-max_total_time="$1"); label="$1 s"; shift
elif [[ "${1:-}" == -* ]]; then
    echo "usage: fuzz.sh [SECONDS | --runs N] [TARGET...]" >&2; exit 64
fi

targets=("$@")
if [ ${#targets[@]} = 0 ]; then
    for d in Tests/Fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi

scratch=.build/fuzz
start=$(date +%s)
echo "fuzz.sh: building fsindex-fuzz with -sanitize=fuzzer,address in $scratch" >&2
# The sanitizers through the manifest (FSINDEX_FUZZ_BUILD, see Package.swift), which is read
# afresh (no cached manifest evaluated without the variable).
if ! FSINDEX_FUZZ_BUILD=1 swift build --scratch-path "$scratch" --manifest-cache none -c debug --product fsindex-fuzz \
        > "$scratch.build.log" 2>&1; then
    grep -E 'error' "$scratch.build.log" | head -20 >&2
    echo "fuzz.sh: the sanitized build failed (log: $scratch.build.log)" >&2
    exit 2
fi
echo "fuzz.sh: built in $(( $(date +%s) - start )) s" >&2
bin="$scratch/debug/fsindex-fuzz"

real="${FSINDEX_REAL_CORPUS:-../shared/corpus/real}"
# The real documents that seed each target, where the corpus is present.
real_seeds() {
    case "$1" in
        rtf) echo office ;;
        image) echo images ;;
        audio|media) echo audio ;;
        mail-structure) echo email ;;
        zip) echo office opendocument epub archives ;;
    esac
}

failed=()
printf '%-16s %10s %8s %6s %6s %7s  %s\n' target runs exec/s cov ft corpus result
for t in "${targets[@]}"; do
    [ -d "Tests/Fuzz/corpus/$t" ] || { echo "fuzz.sh: no such target: $t (see Tests/Fuzz/corpus)" >&2; exit 64; }
    work="$scratch/$keep/$t" findings="$scratch/findings/$t"
    [ "$keep" = runs-corpus ] && rm -rf "$work"
    mkdir -p "$work" "$findings"
    seeds=("Tests/Fuzz/corpus/$t")
    for d in $(real_seeds "$t"); do [ -d "$real/$d" ] && seeds+=("$real/$d"); done
    max_len=65536
    case "$t" in query|short-query) max_len=4096 ;; esac
    log="$scratch/$t.log"
    SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$PWD/Tests/Fuzz/lsan.supp:print_suppressions=0" "$bin" "$t" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
        -print_final_stats=1 -artifact_prefix="$findings/" "$work" "${seeds[@]}" > "$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$last")
    result=ok
    if [ $status != 0 ]; then
        artifact=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -1)
        result="FAILED (exit $status): ${artifact:-see $log}"
        failed+=("$t")
        grep -E 'Fatal error|ERROR: |SUMMARY' "$log" | head -3 | sed 's/^/    /' >&2
    fi
    printf '%-16s %10s %8s %6s %6s %7s  %s\n' "$t" "${runs:--}" "${speed:--}" "${cov:--}" "${ft:--}" "${corp:--}" "$result"
done
echo "fuzz.sh: ${#targets[@]} target(s), $label each, $(( $(date +%s) - start )) s in all; logs in $scratch/TARGET.log" >&2
if [ ${#failed[@]} != 0 ]; then
    echo "fuzz.sh: findings in: ${failed[*]}" >&2
    exit 1
fi
