#!/usr/bin/env python3
"""compare-show.py: what two builds stored for the same files, attribute by attribute.

Usage: compare-show.py CORPUS BIN_A INDEX_A BIN_B INDEX_B [COUNT] [SEED]

Picks COUNT (1000) random regular files of CORPUS (SEED 23, so both runs of a comparison pick
the same), runs `fsindex show --json FILE` with each build on its index (BIN_x/fsindex,
FSINDEX_INDEX_DIR=INDEX_x), and prints every attribute whose value differs, then a tally by
attribute. For the check a change of the indexer must pass: "nothing is lost" (issue 23).
Exit status 0 when all are the same, 1 when some differ, 2 on a usage error.
"""
import collections
import json
import os
import random
import subprocess
import sys


def show(binary, index, path):
    env = dict(os.environ, FSINDEX_INDEX_DIR=index)
    r = subprocess.run([os.path.join(binary, "fsindex"), "show", "--json", path], env=env,
                       capture_output=True)
    if r.returncode != 0:
        return {"<missing>": r.stderr.decode(errors="replace").strip()}
    return json.loads(r.stdout)


def main(argv):
    if len(argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    corpus, bin_a, index_a, bin_b, index_b = argv[1:6]
    count = int(argv[6]) if len(argv) > 6 else 1000
    seed = int(argv[7]) if len(argv) > 7 else 23
    files = []
    for root, dirs, names in os.walk(corpus):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                files.append(p)
    random.Random(seed).shuffle(files)
    tally = collections.Counter()
    differing = 0
    for path in files[:count]:
        a, b = show(bin_a, index_a, path), show(bin_b, index_b, path)
        keys = sorted(set(a) | set(b))
        diffs = [k for k in keys if a.get(k) != b.get(k)]
        if diffs:
            differing += 1
            for k in diffs:
                tally[k] += 1
                va, vb = json.dumps(a.get(k))[:160], json.dumps(b.get(k))[:160]
                print(f"{path}\t{k}\tA={va}\tB={vb}")
    print(f"# {differing} of {min(count, len(files))} files differ", file=sys.stderr)
    for k, n in tally.most_common():
        print(f"#   {k}: {n}", file=sys.stderr)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
