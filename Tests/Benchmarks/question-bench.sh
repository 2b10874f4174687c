#!/usr/bin/env bash
# question-bench.sh — questions in plain words (issue 43): where each question's target file
# comes in fsfind's first 20 results, per stage of the question router and for the router.
#
# Usage: question-bench.sh CORPUS BIN_DIR INDEX_DIR [--sets dev,heldout] [--modes M,…] [--limit N]
#                          [--out DIR] [--runs N] [--via fsindexd]
#
#   CORPUS     the bench corpus the index was made of (shared/bench/make-corpus.sh's, ~111k files)
#   BIN_DIR    folder holding fsfind-direct (README's release build)
#   INDEX_DIR  an index of CORPUS made by BIN_DIR/fsindex (fsindex index --index-dir INDEX_DIR CORPUS)
#   --sets     question sets in Tests/Benchmarks/questions/SET.tsv (default dev,heldout). Each
#              line: id, kind, question, targets (paths relative to CORPUS, `|` between files
#              that are equally right). The sets were written from the corpus before any engine
#              was asked; heldout.tsv by a writer whose questions the developers do not read.
#   --modes    what is measured (default as-typed,any-word,router):
#                as-typed  the question as sent, `[query] questions = false` (every word, the
#                          last as a prefix: the engine before the router)
#                any-word  its tokens joined by OR, questions = false (the issue's baseline)
#                router    the question as sent, questions = true (the default)
#   --limit    results asked for and ranks counted (default 20)
#   --runs     timed runs of each query, median kept (default 1)
#   --out      results folder (default ./question-out): summary.txt, summary.json, ranks.tsv
#   --via      fsindexd: start BIN_DIR/fsindexd for the index (FSINDEX_MODEL_DIR passed on), wait
#              for its first reconcile, and send each question through BIN_DIR/fsfind, which
#              hands it to the daemon (router mode only: the daemon answers with its own
#              settings, the default ones). The times are then what a user of fsindexd waits.
#
# Printed per set and mode: targets in the first 10 (hits@10), MRR@20 (mean of 1/rank, 0 when
# missed), the rank histogram (1, 2-3, 4-10, 11-20, miss), errors (exit 2 or more), the median
# and p90 wall time of a query (one fsfind-direct process: fork to exit) and its median CPU time
# (with --via fsindexd: fsfind's and the daemon's).
# For the router: which stage found each hit (fsfind --json's "stage").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { sed -n '2,28p' "$0"; exit 64; }
corpus=$(cd "$1" && pwd); bin=$(cd "$2" && pwd); index=$3; shift 3
sets=dev,heldout; modes=as-typed,any-word,router; limit=20; out=./question-out; runs=1; via=direct
while [ $# -gt 0 ]; do
  case $1 in
    --sets) sets=$2; shift 2;; --modes) modes=$2; shift 2;; --limit) limit=$2; shift 2;;
    --out) out=$2; shift 2;; --runs) runs=$2; shift 2;; --via) via=$2; shift 2;;
    *) echo "question-bench.sh: unknown option $1" >&2; exit 64;;
  esac
done
[ -x "$bin/fsfind-direct" ] || { echo "question-bench.sh: no fsfind-direct in $bin" >&2; exit 66; }
[ -e "$index/index.sqlite" ] || { echo "question-bench.sh: no index at $index" >&2; exit 66; }
case $via in
  direct) ;;
  fsindexd) [ "$modes" = router ] || { echo "question-bench.sh: --via fsindexd measures the router only (--modes router)" >&2; exit 64; }
            [ -x "$bin/fsindexd" ] && [ -x "$bin/fsfind" ] || { echo "question-bench.sh: no fsindexd or fsfind in $bin" >&2; exit 66; };;
  *) echo "question-bench.sh: --via is direct or fsindexd" >&2; exit 64;;
esac
mkdir -p "$out"
exec python3 - "$corpus" "$bin" "$index" "$sets" "$modes" "$limit" "$out" "$runs" "$here/questions" "$via" <<'PY'
import json, os, re, resource, statistics, subprocess, sys, tempfile, time
corpus, bin_dir, index, sets, modes, limit, out, runs, qdir, via = sys.argv[1:]
limit, runs = int(limit), int(runs)
configs = {}
for name, questions in (("off", "false"), ("on", "true")):
    home = tempfile.mkdtemp(prefix="qbench-" + name + "-")
    os.makedirs(home + "/fsindex")
    with open(home + "/fsindex/config.toml", "w") as f:
        f.write("[query]\nquestions = %s\n" % questions)
    configs[name] = home

daemon = None
if via == "fsindexd":
    # A private runtime folder: the daemon's sockets, found by fsfind through the same variable.
    runtime = tempfile.mkdtemp(prefix="qbench-run-")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    log = open(os.path.join(out, "fsindexd.log"), "w")
    daemon = subprocess.Popen([bin_dir + "/fsindexd", "--foreground", "--index-dir", index, "--root", corpus],
                              env=dict(os.environ, XDG_CONFIG_HOME=configs["on"]), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(3000):
        st = subprocess.run([bin_dir + "/fsindex", "status", "--index-dir", index], capture_output=True)
        if st.stdout.startswith(b"fsindexd: watching"): break
        if daemon.poll() is not None: sys.exit("question-bench.sh: fsindexd ended; see " + log.name)
        time.sleep(0.2)
    else:
        sys.exit("question-bench.sh: fsindexd did not finish its first reconcile in 10 minutes")
    # Its query socket opens after the control socket: asked until it answers (30 s at most).
    for _ in range(150):
        probe = subprocess.run([bin_dir + "/fsfind", "--index-dir", index, "--count", "manual"],
                               capture_output=True, env=dict(os.environ, FSFIND_TRACE="1", XDG_CONFIG_HOME=configs["on"]))
        if b"answered by fsindexd" in probe.stderr: break
        time.sleep(0.2)
    else:
        sys.exit("question-bench.sh: fsfind was not answered by fsindexd: " + probe.stderr.decode(errors="replace"))
    import atexit, signal
    atexit.register(lambda: (daemon.send_signal(signal.SIGTERM), daemon.wait()))

def daemon_cpu_ms():
    """The daemon's CPU so far (all its threads), counted into each question's CPU."""
    if not daemon: return 0.0
    f = open("/proc/%d/stat" % daemon.pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

def words(q):
    return re.findall(r"[^\W_]+(?:_[^\W_]+)*", q)

def run(query, config):
    env = dict(os.environ, XDG_CONFIG_HOME=configs[config], NO_COLOR="1")
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN); dbefore = daemon_cpu_ms()
        start = time.monotonic()
        p = subprocess.run([bin_dir + ("/fsfind" if daemon else "/fsfind-direct"), "--index-dir", index, "--limit", str(limit), "--json", "--", query],
                           capture_output=True, env=env)
        ms = (time.monotonic() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000 + daemon_cpu_ms() - dbefore
        if best is None or ms < best[1]:
            best = (p, ms, cpu)
    p, ms, cpu = best
    results = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        results.append((o.get("path", ""), o.get("stage")))
    return p.returncode, results, ms, cpu

def rel(path):
    return path[len(corpus) + 1:] if path.startswith(corpus + "/") else path

summary, rows = {}, []
lines_out = []
for s in sets.split(","):
    path = os.path.join(qdir, s + ".tsv")
    if not os.path.exists(path):
        print("question-bench.sh: no set %s" % path, file=sys.stderr); continue
    qs = [l.rstrip("\n").split("\t") for l in open(path, encoding="utf-8").readlines()[1:] if l.strip()]
    for mode in modes.split(","):
        ranks, times, cpus, errors, stages = [], [], [], 0, {}
        for qid, kind, question, targets in qs:
            want = set(targets.split("|"))
            if mode == "any-word":
                query, config = " OR ".join(w.lower() for w in words(question)), "off"
            else:
                query, config = question, ("on" if mode == "router" else "off")
            code, results, ms, cpu = run(query, config)
            if code >= 2: errors += 1
            rank, stage = 0, None
            for i, (p, st) in enumerate(results[:limit]):
                if rel(p) in want:
                    rank, stage = i + 1, st
                    break
            if rank and mode == "router":
                stages[stage or "as typed"] = stages.get(stage or "as typed", 0) + 1
            ranks.append(rank); times.append(ms); cpus.append(cpu)
            # The held-out set's questions stay unread: ranks.tsv names them by id only.
            rows.append((s, qid, kind, mode, rank, "%.1f" % ms, "%.1f" % cpu, len(results), "-" if s == "heldout" else question))
        n = len(ranks)
        hits10 = sum(1 for r in ranks if 0 < r <= 10)
        mrr = sum(1.0 / r for r in ranks if r) / n if n else 0
        hist = [sum(1 for r in ranks if r == 1), sum(1 for r in ranks if 2 <= r <= 3),
                sum(1 for r in ranks if 4 <= r <= 10), sum(1 for r in ranks if 11 <= r <= 20), sum(1 for r in ranks if r == 0)]
        st = sorted(times)
        p90 = st[max(0, int(round(0.9 * n)) - 1)] if n else 0
        summary.setdefault(s, {})[mode] = dict(questions=n, hits10=hits10, mrr20=round(mrr, 4), histogram=hist, errors=errors,
                                               median_ms=round(statistics.median(times), 1) if n else 0, p90_ms=round(p90, 1),
                                               median_cpu_ms=round(statistics.median(cpus), 1) if n else 0, stages=stages)
        line = "%-8s %-9s %3d questions  hits@10 %3d (%4.1f %%)  MRR@20 %.3f  [1 %d | 2-3 %d | 4-10 %d | 11-20 %d | miss %d]  errors %d  median %.1f ms  p90 %.1f ms  cpu %.1f ms%s" % (
            s, mode, n, hits10, 100.0 * hits10 / n if n else 0, mrr, *hist, errors, summary[s][mode]["median_ms"], p90,
            summary[s][mode]["median_cpu_ms"], ("  stages " + json.dumps(stages, sort_keys=True)) if stages else "")
        print(line, flush=True)
        lines_out.append(line)
with open(os.path.join(out, "summary.txt"), "w") as f: f.write("\n".join(lines_out) + "\n")
with open(os.path.join(out, "summary.json"), "w") as f: json.dump(summary, f, indent=1, sort_keys=True)
with open(os.path.join(out, "ranks.tsv"), "w") as f:
    f.write("set\tid\tkind\tmode\trank\tms\tcpu_ms\tresults\tquestion\n")
    for r in rows: f.write("\t".join(str(x) for x in r) + "\n")
PY
