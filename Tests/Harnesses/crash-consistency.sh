#!/usr/bin/env bash
# Crash-consistency harness (issue 11, "Nothing lost, nothing leaked").
#
# Kills `fsindex index` and `fsindexd` with SIGKILL at random moments, again and again, on a
# generated tree of a few thousand files of mixed types that changes between the kills; after
# each round it lets one run finish and compares the index with the disk:
#
#   - paths: every file, folder and symlink below the root is an item, and nothing else is
#     (hex of the path bytes, so names that are not UTF-8 or hold a newline count too);
#   - stamps as stored (size, mtime and ctime in nanoseconds, inode) equal lstat's;
#   - text: the one token ("tok01234v005") each text file holds is the one its item holds;
#   - SQLite: `PRAGMA integrity_check`, FTS5's 'integrity-check' of both full-text tables,
#     one full-text row and one name row per item and no row without its item;
#   - leaks: no process of a killed run is left behind (its workers must end with it);
#   - and `fsindex check`, where the build has it, must find the index in step too.
#
# A crash must never cost more than the work in progress: anything else is a bug.
#
# Usage: crash-consistency.sh [-n KILLS] [-f FILES] [-s SEED] [-b BINDIR] [-k] [-q] [-x]
#   -n  SIGKILLs to deliver (default 20; 200 for a long run)
#   -f  files in the generated tree (default 3000)
#   -s  random seed (default: from $RANDOM; printed, so a failing run can be repeated)
#   -b  folder of the built fsindex, fsindexd, fsindex-worker (default .build/debug)
#   -k  keep the work folder (the tree, the index and the logs) even when all is well
#   -q  print only the summary
#   -x  self-check: damage the index after the first crawl in each way the comparison must
#       notice (a stamp, a lost item, stale text, a full-text page), and report (exit 1)
# Needs bash, coreutils, findutils, gawk or mawk, od, setsid (util-linux), sqlite3 (the SQL
# checks read the database the tools wrote, with no code of ours in between but the full-text
# tokenizer, built from its C source as an extension) and a C compiler (the toolchain's clang).
# Exit status: 0 consistent after every round, 1 a mismatch (details on stderr), 2 usage or setup.
set -uo pipefail

kills=20 files=3000 seed=$RANDOM bin="" keep=0 quiet=0 sabotage=0
while getopts "n:f:s:b:kqxh" opt; do
    case $opt in
        n) kills=$OPTARG ;; f) files=$OPTARG ;; s) seed=$OPTARG ;; b) bin=$OPTARG ;;
        k) keep=1 ;; q) quiet=1 ;; x) sabotage=1 ;;
        *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${bin:-${FSINDEX_BIN_DIR:-$here/../../.build/debug}}
for tool in fsindex fsindexd fsindex-worker; do
    [[ -x $bin/$tool ]] || { echo "crash-consistency: no $tool in $bin; build first (swift build) or pass -b" >&2; exit 2; }
done
for tool in sqlite3 od awk find setsid; do
    command -v "$tool" >/dev/null || { echo "crash-consistency: $tool is missing (apt-get install sqlite3 util-linux)" >&2; exit 2; }
done
[[ $kills =~ ^[0-9]+$ && $files =~ ^[0-9]+$ && $files -ge 50 ]] || { echo "crash-consistency: -n and -f take numbers (-f at least 50)" >&2; exit 2; }

RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/fsindex-crash.XXXXXX")
root=$work/root
export FSINDEX_INDEX_DIR=$work/index XDG_RUNTIME_DIR=$work/run XDG_CONFIG_HOME=$work/config \
    XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data NO_COLOR=1
db=$FSINDEX_INDEX_DIR/index.sqlite
mkdir -p "$root" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/fsindex" && chmod 700 "$XDG_RUNTIME_DIR"
# A busy machine would starve a daemon at idle I/O priority.
printf '[daemon]\nthrottle = "normal"\n' >"$XDG_CONFIG_HOME/fsindex/config.toml"
log=$work/log
# The full-text table's tokenizer (fsindex_cjk) as an extension the sqlite3 command line loads.
cc=${CC:-$(command -v cc || command -v clang || command -v gcc || true)}
[[ -n $cc ]] || { echo "crash-consistency: no C compiler (cc, clang or gcc) to build the tokenizer extension" >&2; exit 2; }
"$cc" -shared -fPIC -O1 -I "$here/../../Sources/CLibraries/CFTS5CJK/include" -o "$work/fts5cjk.so" "$here/fts5_cjk_extension.c" -lz -lzstd -lm \
    || { echo "crash-consistency: cannot build the tokenizer extension" >&2; exit 2; }
sqlite3() { command sqlite3 -cmd ".load $work/fts5cjk" "$@"; }
say() { ((quiet)) || echo "$@"; }
now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }
started=$(now_ms)
mismatches=0 delivered=0 runs=0 rounds=0 leaked=0

# The tree ------------------------------------------------------------------------------------
# File i lives in folder d(i % 40) and is of kind i % 10; the token's version changes when the
# file is rewritten (same size, so only mtime and ctime tell).
declare -a version
kind_ext=(txt html xml rtf md eml pdf bin csv "")
path_of() {   # the path of file $1
    local i=$1 ext=${kind_ext[$(($1 % 10))]}
    printf '%s/d%02d/f%05d%s' "$root" $((i % 40)) "$i" "${ext:+.$ext}"
}
write_file() {   # writes file $1 at version ${version[$1]}
    local i=$1 p tok
    p=$(path_of "$i")
    printf -v tok 'tok%05dv%03d' "$i" "${version[$i]}"
    case $((i % 10)) in
        0|9) printf '%s alpha beta gamma file %d\n' "$tok" "$i" >"$p" ;;
        1) printf '<html><head><title>Page %05d</title></head><body><p>%s</p><p>delta</p></body></html>\n' "$i" "$tok" >"$p" ;;
        2) printf '<?xml version="1.0"?>\n<doc><title>X%05d</title><p>%s</p></doc>\n' "$i" "$tok" >"$p" ;;
        3) printf '{\\rtf1\\ansi{\\info{\\title R%05d}}%s epsilon\\par}\n' "$i" "$tok" >"$p" ;;
        4) printf '# Note %05d\n\n%s zeta *eta*\n' "$i" "$tok" >"$p" ;;
        5) printf 'From: a%d@example.org\nTo: b@example.org\nSubject: Mail %05d\nDate: Mon, 2 Mar 2026 10:00:00 +0000\n\n%s theta\n' "$i" "$i" "$tok" >"$p" ;;
        6) printf '%%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%% v%03d %05d\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' "${version[$i]}" "$i" >"$p" ;;
        7) printf '\x00\x01\x02%05d\xff\xfe%03d\x00' "$i" "${version[$i]}" >"$p" ;;
        8) printf 'id,token\n%d,%s\n' "$i" "$tok" >"$p" ;;
    esac
}
has_token() { case $(($1 % 10)) in 0|1|2|3|4|5|8|9) return 0 ;; esac; return 1; }

say "crash-consistency: seed $seed, $files files, $kills kills, in $work"
for ((d = 0; d < 40; d++)); do mkdir -p "$root/$(printf 'd%02d' $d)"; done
for ((i = 0; i < files; i++)); do version[i]=0; write_file "$i"; done
# Names that are bytes, not text; a symlink; an empty file; a nested folder.
printf 'x\n' >"$root/d00/"$'caf\xe9-latin1.txt'
printf 'y\n' >"$root/d01/"$'two\nlines.txt'
printf 'z\n' >"$root/d02/-dash start.txt"
: >"$root/d03/empty"
ln -s ../d00/f00000.txt "$root/d04/link-to-f0"
mkdir -p "$root/d05/deep/er/est" && printf 'w\n' >"$root/d05/deep/er/est/leaf.txt"
next_new=$files   # new files get numbers after the original ones

# Changing the tree between kills ---------------------------------------------------------------
declare -A gone   # files deleted (by number)
mutate() {   # about $1 changes: rewrite, delete, create, rename a file, rename a folder back and forth
    local n=$1 c i p q
    for ((c = 0; c < n; c++)); do
        i=$((RANDOM % next_new))
        [[ -z ${version[$i]+set} ]] && { version[i]=0; gone[$i]=1; }   # a number a move skipped: never on disk
        case $((RANDOM % 10)) in
            0|1|2|3)   # rewrite in place: same size, new token version
                [[ -n ${gone[$i]:-} ]] && continue
                version[i]=$(((version[i] + 1) % 1000)); write_file "$i" ;;
            4|5)   # delete
                [[ -n ${gone[$i]:-} ]] && continue
                rm -f "$(path_of "$i")"; gone[$i]=1 ;;
            6|7)   # create (or bring back a deleted one)
                if [[ -n ${gone[$i]:-} ]]; then unset "gone[$i]"; write_file "$i"
                else version[next_new]=0; write_file "$next_new"; next_new=$((next_new + 1)); fi ;;
            8)   # rename a file to a new number of the same kind (often a move between folders);
                 # it keeps its content, so an item that moves must keep its text
                [[ -n ${gone[$i]:-} ]] && continue
                p=$(path_of "$i"); q=$((next_new + (i - next_new % 10 + 10) % 10)); version[q]=${version[$i]}
                mv "$p" "$(path_of "$q")"; gone[$i]=1; next_new=$((q + 1)) ;;
            9)   # a folder renamed away and back, its whole subtree moving twice
                q=$root/d05/deep; [[ -d $q ]] && mv "$q" "$root/d05/moved" && mv "$root/d05/moved" "$q" ;;
        esac
    done
}

# Processes -----------------------------------------------------------------------------------
# Each run gets a process group of its own (setsid): after a kill, any process still in it
# (an orphaned fsindex-worker) is a leak.
start_index() { setsid "$bin/fsindex" index "$root" >>"$log" 2>&1 & pid=$!; }
start_daemon() { setsid "$bin/fsindexd" --foreground --root "$root" >>"$log" 2>&1 & pid=$!; }
kill_run() {   # SIGKILL $pid (only that process, as a crash would), then check its group empties
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    delivered=$((delivered + 1))
    local t
    for ((t = 0; t < 50; t++)); do
        [[ -z $(alive_in_group "$pid") ]] && return 0
        sleep 0.1
    done
    echo "crash-consistency: LEAK: after SIGKILL of $1 (pid $pid) these still run: $(alive_in_group "$pid")" >&2
    leaked=$((leaked + 1)); mismatches=$((mismatches + 1))
    pkill -KILL -g "$pid" 2>/dev/null   # our own run's group, by its id
}
alive_in_group() {   # the processes of group $1 that have not exited (zombies wait for a reaper, not us)
    local p
    for p in $(pgrep -g "$1"); do
        [[ $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) == [RSDT] ]] && tr '\0' ' ' <"/proc/$p/cmdline" && echo ";"
    done
}
random_sleep() {   # sleeps between 0 and $1 milliseconds
    local ms=$((RANDOM * 32768 + RANDOM)); ms=$((ms % ($1 + 1)))
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}
finish_index() {   # one complete `fsindex index`; prints its duration in ms
    local t0 status
    t0=$(now_ms)
    "$bin/fsindex" index "$root" >>"$log" 2>&1; status=$?
    runs=$((runs + 1))
    if ((status != 0 && status != 2)); then
        echo "crash-consistency: fsindex index exited $status after a crash (see $log)" >&2
        mismatches=$((mismatches + 1))
    fi
    last_ms=$(($(now_ms) - t0))
}
daemon_state() {   # "state queue" from fsindex status --json (empty without a daemon)
    local json state queue
    json=$("$bin/fsindex" status --json 2>/dev/null)
    state=$(grep -o '"state" *: *"[a-z]*"' <<<"$json" | head -1 | sed 's/.*"\([a-z]*\)"$/\1/')
    queue=$(grep -o '"queueLength" *: *[0-9]*' <<<"$json" | head -1 | sed 's/.*[^0-9]//')
    [[ -n $state ]] && echo "$state $queue"
}
finish_daemon() {   # a daemon that starts, catches up and stops with SIGTERM
    local t0 waited s
    t0=$(now_ms)
    start_daemon
    for ((waited = 0; waited < 1800; waited++)); do
        s=$(daemon_state)
        [[ $s == "watching 0" ]] && break
        sleep 0.1
    done
    if [[ $s != "watching 0" ]]; then
        echo "crash-consistency: the daemon did not catch up within 180 s (state '$s', see $log)" >&2
        mismatches=$((mismatches + 1))
    fi
    sleep 0.3   # events of the last changes, if any, reach the queue
    while [[ $(daemon_state) != "watching 0" ]] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    kill -TERM "$pid"; wait "$pid"; s=$?
    ((s == 0)) || { echo "crash-consistency: the daemon exited $s on SIGTERM (see $log)" >&2; mismatches=$((mismatches + 1)); }
    runs=$((runs + 1))
    last_ms=$(($(now_ms) - t0))
}

# Comparing -----------------------------------------------------------------------------------
# The root is an item too. find prints "size mtime ctime inode" NUL path NUL; od turns it into hex, awk back into
# one line per item: PATHHEX SIZE MTIME_NS CTIME_NS INODE.
disk_listing() {
    find "$root" \( -name '.*' -prune \) -o -printf '%s %T@ %C@ %i\0%p\0' |
        od -An -v -tx1 | awk '
        BEGIN { for (c = 32; c < 127; c++) chr[sprintf("%02x", c)] = sprintf("%c", c); field = 0; cur = "" }
        function ns(t,   dot, frac) { dot = index(t, "."); if (!dot) return t "000000000"
            frac = substr(t, dot + 1) "000000000"; t = substr(t, 1, dot - 1) substr(frac, 1, 9)
            sub(/^0+/, "", t); return t == "" ? "0" : t }
        { for (k = 1; k <= NF; k++) {
            if ($k == "00") {
                if (field == 0) { meta = cur; field = 1 }
                else { split(meta, m, " "); print toupper(cur), m[1], ns(m[2]), ns(m[3]), m[4]; field = 0 }
                cur = ""
            } else if (field == 0) cur = cur chr[$k]; else cur = cur $k
        } }' | sort
}
index_listing() {
    sqlite3 -readonly -separator ' ' "$db" \
        "SELECT hex(path), size, mtime_ns, ctime_ns, inode FROM items WHERE instr(path, x'00') = 0" | sort
}
disk_tokens() {   # PATHHEX TOKEN for every text file that holds one
    grep -raoZE 'tok[0-9]{5}v[0-9]{3}' "$root" |
        od -An -v -tx1 | awk '
        BEGIN { for (c = 32; c < 127; c++) chr[sprintf("%02x", c)] = sprintf("%c", c); path = ""; tok = ""; inpath = 1 }
        { for (k = 1; k <= NF; k++) {
            if (inpath) { if ($k == "00") inpath = 0; else path = path $k }
            else if ($k == "0a") { print toupper(path), tok; path = ""; tok = ""; inpath = 1 }
            else tok = tok chr[$k]
        } }' | sort
}
index_tokens() {
    sqlite3 -readonly -separator ' ' "$db" "SELECT hex(i.path), replace(replace(f.text, char(10), ' '), char(13), ' ')
        FROM items i JOIN items_fts f ON f.rowid = i.id WHERE instr(i.path, x'00') = 0 AND f.text LIKE '%tok%'" |
        awk '{ s = $0; while (match(s, /tok[0-9][0-9][0-9][0-9][0-9]v[0-9][0-9][0-9]/)) {
            print $1, substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }' | sort
}
sql_checks() {   # prints one line per problem
    local q
    q=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1); [[ $q == ok ]] || echo "PRAGMA integrity_check: $q"
    for t in items_fts items_names; do
        q=$(sqlite3 "$db" "INSERT INTO $t($t) VALUES('integrity-check')" 2>&1) || echo "$t integrity-check: $q"
        q=$(sqlite3 -readonly "$db" "SELECT (SELECT count(*) FROM $t WHERE rowid NOT IN (SELECT id FROM items)) || ' ' ||
            (SELECT count(*) FROM items WHERE id NOT IN (SELECT rowid FROM $t))" 2>&1)
        [[ $q == "0 0" ]] || echo "$t: rows without an item, items without a row: $q"
    done
    q=$(sqlite3 -readonly "$db" "SELECT count(*) FROM item_types WHERE item_id NOT IN (SELECT id FROM items)" 2>&1)
    [[ $q == 0 ]] || echo "item_types rows without an item: $q"
}
readable() {   # the first field, path bytes in hex, as text: printable ASCII as is, the rest \xNN
    awk 'BEGIN { for (c = 32; c < 127; c++) chr[sprintf("%02X", c)] = sprintf("%c", c) }
        { s = ""; for (k = 1; k < length($1); k += 2) { h = substr($1, k, 2); s = s ((h in chr) ? chr[h] : "\\x" tolower(h)) }
          $1 = s; print }'
}
readable_marked() {   # "<HEX rest" or ">HEX rest" with the path made readable
    while IFS= read -r line; do printf '%s %s\n' "${line:0:1}" "$(readable <<<"${line:1}")"; done
}
compare() {   # $1: what ran; counts and prints mismatches
    local problems
    problems=$(
        diff <(disk_listing) <(index_listing) | grep '^[<>]' | head -20 | sed 's/^\([<>]\) /\1/' | readable_marked | sed 's/^</  on disk, not so in the index:/; s/^>/  in the index, not so on disk:/'
        diff <(disk_tokens) <(index_tokens) | grep '^[<>]' | head -20 | sed 's/^\([<>]\) /\1/' | readable_marked | sed 's/^</  token on disk, not in the index:/; s/^>/  token in the index, not on disk:/'
        sql_checks | sed 's/^/  /'
        # `fsindex check` (where this build has it) must agree: the index is in step.
        if ((has_check)); then
            "$bin/fsindex" check "$root" >"$work/check.out" 2>&1 || { echo "  fsindex check:"; head -20 "$work/check.out" | sed 's/^/    /'; }
        fi
    )
    if [[ -n $problems ]]; then
        mismatches=$((mismatches + 1))
        echo "crash-consistency: MISMATCH after round $rounds ($1), seed $seed:" >&2
        echo "$problems" >&2
        keep=1
    fi
}

has_check=0
# (`fsindex check --help` exits 0 even where there is no such subcommand: read the list.)
"$bin/fsindex" --help 2>/dev/null | sed -n '/^SUBCOMMANDS/,$p' | grep -q '^  check ' && has_check=1

# The rounds ----------------------------------------------------------------------------------
finish_index
full_ms=$last_ms
say "first full crawl: $full_ms ms"
compare "first full crawl"
if ((sabotage)); then
    # Each of these must show up in the comparison; the test of this harness checks they do.
    # (The stored text lives in item_texts; its triggers update the external-content items_fts.)
    sqlite3 "$db" "UPDATE items SET mtime_ns = mtime_ns + 1 WHERE id = (SELECT min(id) FROM items WHERE name LIKE '%.txt');
        DELETE FROM items WHERE id = (SELECT max(id) FROM items WHERE name LIKE '%.html');
        UPDATE item_texts SET text = fsindex_zip(replace(fsindex_unzip(text), 'v000', 'v999')) WHERE id = (SELECT min(id) FROM items WHERE name LIKE '%.md');
        DELETE FROM items_names_data WHERE id = (SELECT max(id) FROM items_names_data);" || exit 2
    compare "self-check: the index damaged on purpose"
    kills=0
fi
incr_ms=$full_ms
while ((delivered < kills)); do
    rounds=$((rounds + 1))
    mode=$((RANDOM % 3))
    case $mode in
        0)   # a first crawl killed partway (the index erased), resumed from the client state
            "$bin/fsindex" erase >>"$log" 2>&1
            what="fresh crawl"; window=$full_ms ;;
        1)   # an incremental crawl of a changed tree
            mutate $((files / 20 + 1)); what="incremental crawl"; window=$((incr_ms + 200)) ;;
        2)   # the daemon, killed while it reconciles and follows changes made meanwhile
            what="daemon"; window=$((full_ms / 2 + 1000)) ;;
    esac
    # One to three kills in a row (a crash during the recovery from a crash), then a clean run.
    repeats=$((RANDOM % 3 + 1))
    for ((r = 0; r < repeats && delivered < kills; r++)); do
        if ((mode == 2)); then
            start_daemon; random_sleep $((window / 3)); mutate $((files / 50 + 1)); random_sleep $((window * 2 / 3))
        else
            start_index; random_sleep "$window"
        fi
        kill_run "$what"
        runs=$((runs + 1))
    done
    if ((mode == 2)); then finish_daemon; else finish_index; fi
    ((mode == 1)) && incr_ms=$last_ms
    compare "$what, $repeats kill(s)"
    say "round $rounds: $what, $repeats kill(s) within ${window} ms, recovery ${last_ms} ms; $delivered/$kills kills, $mismatches mismatch(es)"
done

items=$(sqlite3 -readonly "$db" "SELECT count(*) FROM items" 2>/dev/null)
seconds=$((($(now_ms) - started) / 1000))
echo "crash-consistency: $delivered kills, $runs runs, $rounds rounds, $items items, $mismatches mismatch(es), $leaked leak(s), ${seconds} s, seed $seed"
if ((keep)); then echo "crash-consistency: kept $work" >&2; else rm -rf "$work"; fi
((mismatches == 0))
