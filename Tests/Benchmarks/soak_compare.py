#!/usr/bin/env python3
"""soak_compare.py: after the soak, what `fsindex show --json` says against the disk.

Usage: soak_compare.py BIN ROOT OUT [--seed N] [--sample N]

`fsindex check` already walks the whole root (missing, extra, stale); this looks at items one by
one, through show, as an app would:
  present   N random regular files of ROOT that fsindex does not exclude by default (seeded) and up to N of the churn's own folder
            (ROOT/churn): each must be shown, with its path and fileSize equal to the disk's and
            its contentModificationDate within a second of the file's mtime;
  gone      every path the churn removed or renamed away (OUT/gone.txt) that is not on disk
            again (up to N): show must say it is not in the index (exit 1);
  donated   every app item left donated (OUT/donated.txt): show soak:ID must find it;
  forgotten every item forgotten (OUT/forgotten.txt, up to N): show must not.
Prints one line per difference and writes OUT/compare-summary.json. Exit 0: no difference.
"""
import argparse
import datetime
import fnmatch
import json
import os
import random
import subprocess
import sys


# What fsindex leaves out by default (fsindex.toml(5), [crawl]): hidden names, these patterns,
# and folders holding a .noindex file. soak.sh runs with the default [crawl] settings.
EXCLUDED = ["*~", "*.swp", "*.tmp", "node_modules", "__pycache__"]


def excluded(name):
    return name.startswith(".") or any(fnmatch.fnmatchcase(name, p) for p in EXCLUDED)


def show(bin_dir, target):
    r = subprocess.run([os.path.join(bin_dir, "fsindex"), "show", "--json", target], capture_output=True, timeout=120)
    if r.returncode == 1:
        return None
    if r.returncode != 0:
        raise RuntimeError(f"fsindex show {target} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return json.loads(r.stdout)


def seconds(value):
    if isinstance(value, (int, float)):
        return float(value)
    return datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()


def lines(path, limit, rng):
    try:
        items = [l.rstrip("\n") for l in open(path) if l.strip()]
    except FileNotFoundError:
        return []
    return items if limit is None or len(items) <= limit else rng.sample(items, limit)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("root")
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sample", type=int, default=1000)
    a = p.parse_args()
    rng = random.Random(a.seed)
    files, churn_files = [], []
    for r, ds, ns in os.walk(a.root):
        if os.path.exists(os.path.join(r, ".noindex")):
            ds[:] = []
            continue
        ds[:] = sorted(d for d in ds if not excluded(d))
        for n in sorted(n for n in ns if not excluded(n)):
            f = os.path.join(r, n)
            if os.path.isfile(f) and not os.path.islink(f):
                (churn_files if f.startswith(os.path.join(a.root, "churn") + "/") else files).append(f)
    present = rng.sample(files, min(a.sample, len(files))) + rng.sample(churn_files, min(a.sample, len(churn_files)))
    diffs = []
    for f in present:
        item = show(a.bin, f)
        st = os.stat(f)
        if item is None:
            diffs.append(f"missing\t{f}")
            continue
        if item.get("path") != f:
            diffs.append(f"wrong-path\t{f}\t{item.get('path')}")
        if item.get("fileSize") != st.st_size:
            diffs.append(f"stale-size\t{f}\tindex {item.get('fileSize')} disk {st.st_size}")
        m = item.get("contentModificationDate")
        if m is None or abs(seconds(m) - st.st_mtime) > 1.0:
            diffs.append(f"stale-mtime\t{f}\tindex {m} disk {st.st_mtime}")
    gone = [g for g in lines(os.path.join(a.out, "gone.txt"), None, rng) if not os.path.lexists(g)]
    gone = gone if len(gone) <= a.sample else rng.sample(gone, a.sample)
    for g in gone:
        if show(a.bin, g) is not None:
            diffs.append(f"extra\t{g}")
    donated = lines(os.path.join(a.out, "donated.txt"), None, rng)
    for i in donated:
        if show(a.bin, f"soak:{i}") is None:
            diffs.append(f"missing-donated\tsoak:{i}")
    forgotten = lines(os.path.join(a.out, "forgotten.txt"), a.sample, rng)
    for i in forgotten:
        if show(a.bin, f"soak:{i}") is not None:
            diffs.append(f"extra-donated\tsoak:{i}")
    for d in diffs:
        print(d)
    summary = {"filesShown": len(present), "goneChecked": len(gone), "donatedChecked": len(donated),
               "forgottenChecked": len(forgotten), "differences": len(diffs)}
    json.dump(summary, open(os.path.join(a.out, "compare-summary.json"), "w"), indent=1)
    print(json.dumps(summary), file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
