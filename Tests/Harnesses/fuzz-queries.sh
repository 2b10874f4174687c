#!/usr/bin/env bash
# Throws random and adversarial query text at the real `fsfind`, over an index of a generated
# tree, and checks what a user must be able to rely on for every query (issue 11):
#   - the exit status is 0, 1, 2 or 64 (found, nothing, error, usage): never a signal;
#   - it ends within a per-query bound (it is killed otherwise, and that is a violation);
#   - no SQLite wording reaches stdout or stderr ("sqlite", "result code", "fts5:", ...).
#
# Usage: Tests/Harnesses/fuzz-queries.sh BIN_DIR [QUERIES=300] [SEED=1] [BOUND_SECONDS=10]
# Prints one line per violation (what went wrong, the start of the arguments hex-encoded, and a
# file under $FUZZ_KEEP, default /tmp/fsindex-fuzz-violations.PID, holding all the arguments
# NUL-separated: replay with `xargs -0 -a FILE fsfind --index-dir …`) and a summary; exits 1 if
# there was any violation, 2 on a setup problem. Needs bash and coreutils (timeout,
# od, head, tr, mktemp) and our binaries; not python.
#
# Query kinds: token soup from both query forms (fields, operators, quotes, backslashes, $time
# functions, wildcards, unicode, invalid UTF-8), random bytes (NUL-free), deep nesting of ( ! -,
# huge || / OR chains, long repetitions; sent as the query, or through every option that takes
# text (--name, --onlyin, --group-by, --stats, --attr, --sort, --limit, --offset, --time-limit),
# with --literal, --count, --snippet, --json, -0 or --explain.
set -u
BIN=${1:?usage: fuzz-queries.sh BIN_DIR [QUERIES] [SEED] [BOUND_SECONDS]}
N=${2:-300}
SEED=${3:-1}
BOUND=${4:-10}
FSFIND="$BIN/fsfind"
[ -x "$FSFIND" ] && [ -x "$BIN/fsindex" ] || { echo "fuzz-queries: no fsfind/fsindex in $BIN" >&2; exit 2; }
RANDOM=$SEED

WORK=$(mktemp -d /tmp/fsindex-fuzz.XXXXXX) || exit 2
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
mkdir -p "$ROOT/docs/sub" "$ROOT/notes" "$ROOT/café"
printf 'marzipan budget quarterly zeppelin alpha\n' > "$ROOT/docs/alpha.txt"
printf '# Beta\n\nmarzipan overview of the plan not a budget\n' > "$ROOT/docs/beta.md"
printf '<html><head><title>Gamma</title></head><body>gamma notes é ü 日本語</body></html>' > "$ROOT/docs/gamma.html"
for i in $(seq 1 40); do printf 'note %d lorem ipsum dolor not a a a %d\n' "$i" "$RANDOM" > "$ROOT/notes/n$i.txt"; done
printf 'crème brûlée\n' > "$ROOT/café/recette.txt"
printf 'bytes\n' > "$ROOT/docs/sub/$(printf 'bad\xffname.txt')"
printf 'line one\nline two\n' > "$ROOT/docs/sub/with space.txt"
INDEX=$WORK/index
"$BIN/fsindex" index --index-dir "$INDEX" "$ROOT" > "$WORK/index.log" 2>&1 || {
    echo "fuzz-queries: fsindex index failed:" >&2; cat "$WORK/index.log" >&2; exit 2; }
# A time limit under the bound, so an expensive query ends with exit 2 rather than being killed.
printf '[query]\ntime_limit = %s\n' "$(( BOUND > 2 ? BOUND / 2 : 1 ))" > "$WORK/config.toml"

TOKENS=(marzipan budget zeppelin alpha not a é ü 日本語 🙂 crème '"' "'" '(' ')' '((' '))' '\' '\\' '\"' '*' '?' '**'
    '&&' '||' '!' '-' '--' '!=' '==' '=' '<' '>' '<=' '>=' '..' ':' '::' ',' '.' '%' '_' '$' '{' '}' '[' ']' ';' '^'
    OR AND NOT NEAR 'NEAR(' or and '$time.now' '$time.today(-7)' '$time.now(1e309)' '$time.this_week(-1)' '$time.iso('
    '$time.iso(2026-01-31T09:30:00Z)' '$time.yesterday' '$time.nope' '$time.' 'InRange(' 'InRange(kMDItemFSSize,1,9)'
    kMDItemFSName kMDItemTextContent kMDItemContentTypeTree kMDItemFSSize kMDItemAuthors kMDItemPixelWidht '*'
    'name:' 'name:*.txt' 'ext:md,txt' 'kind:pdf' 'kind:' 'author:' 'title:"a' 'dir:~' 'dir:/' 'modified:>2026-01-01'
    'modified:2026-13-45' 'size:>10MB' 'size:..' 'width:1e309' 'pages:1..' 'created:<7d' 'encrypted:yes' 'x:y:z'
    '"free software"' '"a*b"c' '"*"cdw' 'c' 'd' 'w' '1e999' '-1' '0x10' '9999999999999999999999' 'NaN' 'inf'
    $'\t' $'\n' $'\r' $'\x01' $'\x7f' $'\xff' $'\xc3' $'\xe2\x80' $'\xed\xa0\x80' $'\xc0\xaf' '\u0000' '%s' '%n')
REPEATED=(a '(' '!' '"' '*' '-' '\\' ' ' ')' "'")
OPTIONS_WITH_TEXT=(--name --onlyin --group-by --stats --attr --sort --limit --offset --time-limit)
FLAGS=(--literal --count --snippet --json -0 --explain --reverse)

pick() { local -n arr=$1; printf '%s' "${arr[RANDOM % ${#arr[@]}]}"; }

soup() {   # 1-30 tokens, with or without spaces between them
    local n=$(( RANDOM % 30 + 1 )) s="" i
    for (( i = 0; i < n; i++ )); do
        s+=$(pick TOKENS)
        (( RANDOM % 4 )) && s+=" "
    done
    printf '%s' "$s"
}

bytes() {  # random bytes, NUL-free (argv cannot hold NUL)
    head -c $(( RANDOM % 300 + 1 )) /dev/urandom | tr -d '\000'
}

nested() { # deep nesting: ( … ), ! …, - …, mixed
    local depth=$(( (RANDOM * 32768 + RANDOM) % 60000 + 1 )) open close
    case $(( RANDOM % 4 )) in
        0) open=$(head -c "$depth" /dev/zero | tr '\0' '('); close=$(head -c "$depth" /dev/zero | tr '\0' ')')
           printf '%s%s%s' "$open" "$(soup)" "$close" ;;
        1) printf '%s%s' "$(head -c "$depth" /dev/zero | tr '\0' '!')" 'kMDItemFSName == "a*"' ;;
        2) printf 'x %s%s' "$(head -c "$depth" /dev/zero | tr '\0' '-')" marzipan ;;
        3) printf '%s' "$(head -c "$depth" /dev/zero | tr '\0' '(')" ;;
    esac
}

chain() {  # huge || / OR chains of one kind of term, up to past the term limit (but within the
           # 128 KiB Linux allows one argument: 4,000 of the longest kind)
    local kind=$(( RANDOM % 4 )) i s="" n
    n=$(( RANDOM % (kind == 0 ? 4000 : 6000) + 1 ))
    for (( i = 1; i <= n; i++ )); do
        case $kind in
            0) s+="kMDItemFSName == \"n$i.txt\"" ;;
            1) s+="w$i" ;;
            2) s+="name:n$i" ;;
            3) s+="NOT" ;;
        esac
        (( i < n )) && case $kind in 0) s+=" || " ;; 1|2) s+=" OR " ;; 3) s+=" " ;; esac
    done
    printf '%s' "$s"
}

query() {
    case $(( RANDOM % 10 )) in
        0|1|2|3) soup ;;
        4|5) bytes ;;
        6) nested ;;
        7) chain ;;
        8) printf '%s' "$(soup)$(bytes)$(soup)" ;;
        9) printf '%s' "$(pick TOKENS)$(head -c $(( RANDOM % 2000 )) /dev/zero | tr '\0' "$(pick REPEATED)")" ;;
    esac
}

hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n' | cut -c1-400; }

violations=0
start=$SECONDS
KEEP=${FUZZ_KEEP:-/tmp/fsindex-fuzz-violations.$$}
for (( q = 1; q <= N; q++ )); do
    args=(--index-dir "$INDEX" --config "$WORK/config.toml")
    (( RANDOM % 3 == 0 )) && args+=("$(pick FLAGS)")
    if (( RANDOM % 4 == 0 )); then
        args+=("$(pick OPTIONS_WITH_TEXT)" "$(query)")
        (( RANDOM % 2 )) && args+=(marzipan)
    else
        (( RANDOM % 3 == 0 )) && args+=(--)
        args+=("$(query)")
        (( RANDOM % 5 == 0 )) && args+=("$(query)")
    fi
    timeout -s KILL "$BOUND" "$FSFIND" "${args[@]}" > "$WORK/out" 2> "$WORK/err"
    rc=$?
    problem=""
    if (( rc == 137 )); then problem="killed after the ${BOUND} s bound"
    elif (( rc > 128 )); then problem="signal $(( rc - 128 ))"
    elif (( rc != 0 && rc != 1 && rc != 2 && rc != 64 )); then problem="exit $rc"
    elif grep -qaiE 'sqlite|result code|fts5:|sql logic|: syntax error' "$WORK/out" "$WORK/err"; then
        problem="SQLite wording: $(grep -haiE 'sqlite|result code|fts5:|sql logic|: syntax error' "$WORK/out" "$WORK/err" | head -1 | cut -c1-200)"
    fi
    if [ -n "$problem" ]; then
        violations=$(( violations + 1 ))
        printf 'VIOLATION %d: %s; args (hex, NUL between):' "$q" "$problem"
        for a in "${args[@]:4}"; do printf ' %s' "$(hex "$a")"; done
        mkdir -p "$KEEP" && printf '%s\0' "${args[@]:4}" > "$KEEP/violation-$q.args"
        printf '; all of them in %s\n' "$KEEP/violation-$q.args"
    fi
    # Progress for long runs, on stderr.
    (( q % 500 == 0 )) && printf 'fuzz-queries: %d of %d done, %d violations, %d s\n' "$q" "$N" "$violations" $(( SECONDS - start )) >&2
done
printf 'fuzz-queries: %d queries, %d violations, %d s (seed %d, bound %d s)\n' "$N" "$violations" $(( SECONDS - start )) "$SEED" "$BOUND"
(( violations == 0 ))
