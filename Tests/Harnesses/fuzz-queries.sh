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
STATE=$SEED
# A generator of our own rather than $RANDOM: bash 5.1 and later reseed RANDOM in every
# subshell, so query makers run in $(…) made a different run of each seed. These set globals
# (R, P, Q) instead of printing, so no subshell is needed and a seed is always the same run.
rand() { STATE=$(( (STATE * 1103515245 + 12345) & 0x7fffffff )); R=$(( STATE >> 16 )); }

WORK=$(mktemp -d /tmp/fsindex-fuzz.XXXXXX) || exit 2
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
mkdir -p "$ROOT/docs/sub" "$ROOT/notes" "$ROOT/café"
printf 'marzipan budget quarterly zeppelin alpha\n' > "$ROOT/docs/alpha.txt"
printf '# Beta\n\nmarzipan overview of the plan not a budget\n' > "$ROOT/docs/beta.md"
printf '<html><head><title>Gamma</title></head><body>gamma notes é ü 日本語</body></html>' > "$ROOT/docs/gamma.html"
for i in $(seq 1 40); do rand; printf 'note %d lorem ipsum dolor not a a a %d\n' "$i" "$R" > "$ROOT/notes/n$i.txt"; done
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

pick() { local -n arr=$1; rand; P=${arr[R % ${#arr[@]}]}; }

soup() {   # 1-30 tokens, with or without spaces between them
    rand; local n=$(( R % 30 + 1 )) i
    Q=""
    for (( i = 0; i < n; i++ )); do
        pick TOKENS; Q+=$P
        rand; (( R % 4 )) && Q+=" "
    done
}

bytes() {  # 1-300 pseudo-random bytes, NUL-free (argv cannot hold NUL)
    rand; local n=$(( R % 300 + 1 )) i esc="" oct
    for (( i = 0; i < n; i++ )); do
        rand; printf -v oct '%03o' $(( R % 255 + 1 )); esc+="\\$oct"
    done
    printf -v Q "$esc"
}

nested() { # deep nesting: ( … ), ! …, - …, mixed
    rand; local depth=$R; rand; depth=$(( (depth * 32768 + R) % 60000 + 1 ))
    rand
    case $(( R % 4 )) in
        0) soup; Q="$(head -c "$depth" /dev/zero | tr '\0' '(')$Q$(head -c "$depth" /dev/zero | tr '\0' ')')" ;;
        1) Q="$(head -c "$depth" /dev/zero | tr '\0' '!')kMDItemFSName == \"a*\"" ;;
        2) Q="x $(head -c "$depth" /dev/zero | tr '\0' '-')marzipan" ;;
        3) Q=$(head -c "$depth" /dev/zero | tr '\0' '(') ;;
    esac
}

chain() {  # huge || / OR chains of one kind of term, up to past the term limit (but within the
           # 128 KiB Linux allows one argument: 4,000 of the longest kind)
    rand; local kind=$(( R % 4 )) i n
    rand; n=$(( R % (kind == 0 ? 4000 : 6000) + 1 ))
    Q=""
    for (( i = 1; i <= n; i++ )); do
        case $kind in
            0) Q+="kMDItemFSName == \"n$i.txt\"" ;;
            1) Q+="w$i" ;;
            2) Q+="name:n$i" ;;
            3) Q+="NOT" ;;
        esac
        (( i < n )) && case $kind in 0) Q+=" || " ;; 1|2) Q+=" OR " ;; 3) Q+=" " ;; esac
    done
}

query() {  # one query, in Q
    local a b
    rand
    case $(( R % 10 )) in
        0|1|2|3) soup ;;
        4|5) bytes ;;
        6) nested ;;
        7) chain ;;
        8) soup; a=$Q; bytes; b=$Q; soup; Q="$a$b$Q" ;;
        9) pick TOKENS; a=$P; pick REPEATED; rand; Q="$a$(head -c $(( R % 2000 )) /dev/zero | tr '\0' "$P")" ;;
    esac
}

hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n' | cut -c1-400; }

violations=0
start=$SECONDS
KEEP=${FUZZ_KEEP:-/tmp/fsindex-fuzz-violations.$$}
for (( q = 1; q <= N; q++ )); do
    args=(--index-dir "$INDEX" --config "$WORK/config.toml")
    rand; (( R % 3 == 0 )) && { pick FLAGS; args+=("$P"); }
    rand
    if (( R % 4 == 0 )); then
        pick OPTIONS_WITH_TEXT; query; args+=("$P" "$Q")
        rand; (( R % 2 )) && args+=(marzipan)
    else
        rand; (( R % 3 == 0 )) && args+=(--)
        query; args+=("$Q")
        rand; (( R % 5 == 0 )) && { query; args+=("$Q"); }
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
