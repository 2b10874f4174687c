#!/usr/bin/env python3
"""soak_churn.py: the churn generator of soak.sh, a day of a user's file work, compressed.

Usage: soak_churn.py ROOT ASSETS BIN --seconds S [--seed N] [--rate OPS] [--period S] --out DIR

Works inside ROOT (watched by fsindexd): ROOT/corpus (a copy of the bench corpus) and
ROOT/churn (made here). ASSETS holds what soak.sh prepared outside the root: gitsrc/ (a
repository with branches main and other), tarball.tar (20,000 files) and big.bin (1 GB).
BIN holds fsindex (for donate and forget).

One random.Random(seed) draws every choice, and directory listings are sorted, so the same seed
on the same corpus makes the same sequence of operations (how many of them fit in S seconds
depends on the machine). At about RATE operations a second it:
  create, modify (rewrite), append, rename and delete files (in the corpus and its own folders);
  save like an editor (write .name.swp, fsync, rename it over name);
  rename folders and move folders under other folders;
  donate a batch of app items (domain "soak") and forget some of them (fsindex donate/forget);
and in each PERIOD seconds (default min(S, 1200)), at fixed fractions of it:
  git clone ASSETS/gitsrc, then git checkout other / main / other ... in the clone;
  unpack the 20,000-file tarball, and later remove it (rm -rf);
  copy the 1 GB file in, and later delete it;
  delete the clone.
Writes DIR/churn.csv (t, op, ms, ok, detail), DIR/donated.txt (ids that must be in the index at
the end), DIR/forgotten.txt (ids that must not), DIR/gone.txt (paths it removed or renamed away,
that must not be indexed unless they exist again) and DIR/churn-summary.json.
Exit status 0, or 1 when an operation failed (each is in churn.csv with ok=0).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

WORDS = ("soak alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
         "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu "
         "budget report invoice meeting draft review summary quarterly").split()


class Churn:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.root = a.root
        self.corpus = os.path.join(a.root, "corpus")
        self.area = os.path.join(a.root, "churn")
        self.assets = a.assets
        self.out = a.out
        self.t0 = time.monotonic()
        self.counter = 0
        self.failures = 0
        self.counts = {}
        self.gone = set()
        self.donated = set()
        self.forgotten = set()
        self.donate_serial = 0
        self.git_clone = None
        self.git_branch = "main"
        self.tar_dir = None
        self.big_file = None
        for d in ("files", "dirs", "git", "tar", "big"):
            os.makedirs(os.path.join(self.area, d), exist_ok=True)
        # Folders where files come and go: every folder of the corpus copy, and our own.
        self.dirs = []
        for base in (self.corpus, os.path.join(self.area, "files"), os.path.join(self.area, "dirs")):
            for r, ds, _ in os.walk(base):
                ds.sort()
                self.dirs.append(r)
        self.log = open(os.path.join(self.out, "churn.csv"), "w", buffering=1)
        self.log.write("t,op,ms,ok,detail\n")

    # ---- helpers -------------------------------------------------------------------------
    def now(self):
        return time.monotonic() - self.t0

    def name(self, ext=".txt"):
        self.counter += 1
        return f"soak-{self.counter}-{self.rng.choice(WORDS)}{ext}"

    def text(self, lines=None):
        n = lines or self.rng.randint(1, 40)
        return "".join(" ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(3, 12))) + "\n"
                       for _ in range(n))

    def pick_dir(self):
        while self.dirs:
            d = self.rng.choice(self.dirs)
            if os.path.isdir(d):
                return d
            self.dirs.remove(d)
        d = os.path.join(self.area, "files")
        self.dirs.append(d)
        return d

    def pick_file(self):
        for _ in range(20):
            d = self.pick_dir()
            try:
                names = sorted(n for n in os.listdir(d) if not n.startswith(".soak-swp"))
            except OSError:
                continue
            files = [n for n in names if os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))]
            if files:
                return os.path.join(d, self.rng.choice(files))
        return None

    def record(self, op, started, ok, detail=""):
        ms = (time.monotonic() - started) * 1000
        self.counts[op] = self.counts.get(op, 0) + 1
        if not ok:
            self.failures += 1
            print(f"soak_churn: {op} failed: {detail}", file=sys.stderr, flush=True)
        detail = detail.replace("\n", " ").replace(",", ";")[:300]
        self.log.write(f"{self.now():.3f},{op},{ms:.1f},{1 if ok else 0},{detail}\n")

    def run(self, op, fn):
        started = time.monotonic()
        try:
            detail = fn() or ""
            self.record(op, started, True, detail)
        except Exception as e:  # an operation that fails is recorded, and the run goes on
            self.record(op, started, False, f"{type(e).__name__}: {e}")

    def cmd(self, args, stdin=None, cwd=None, ok=(0,)):
        r = subprocess.run(args, input=stdin, cwd=cwd, capture_output=True, timeout=600)
        if r.returncode not in ok:
            raise RuntimeError(f"{' '.join(args[:4])} exited {r.returncode}: {r.stderr.decode(errors='replace')[-300:]}")
        return r

    # ---- ordinary operations -------------------------------------------------------------------
    def op_create(self):
        p = os.path.join(self.pick_dir(), self.name(self.rng.choice([".txt", ".md", ".log", ".csv"])))
        with open(p, "w") as f:
            f.write(self.text())
        self.gone.discard(p)
        return p

    def op_modify(self):
        p = self.pick_file()
        if p is None:
            return self.op_create()
        with open(p, "w") as f:
            f.write(self.text())
        return p

    def op_append(self):
        p = self.pick_file()
        if p is None:
            return self.op_create()
        with open(p, "a") as f:
            f.write(self.text(self.rng.randint(1, 5)))
        return p

    def op_rename(self):
        p = self.pick_file()
        if p is None:
            return self.op_create()
        q = os.path.join(os.path.dirname(p), self.name(os.path.splitext(p)[1] or ".txt"))
        os.rename(p, q)
        self.gone.add(p)
        self.gone.discard(q)
        return f"{p} -> {q}"

    def op_delete(self):
        p = self.pick_file()
        if p is None:
            return "nothing to delete"
        os.unlink(p)
        self.gone.add(p)
        return p

    def op_editor_save(self):
        p = self.pick_file()
        if p is None:
            return self.op_create()
        tmp = os.path.join(os.path.dirname(p), ".soak-swp-" + os.path.basename(p))
        with open(p, "rb") as f:
            old = f.read(1 << 20)
        with open(tmp, "wb") as f:
            f.write(old[: len(old) // 2] + self.text(3).encode())
            f.flush()
            os.fsync(f.fileno())
        os.rename(tmp, p)
        return p

    def op_make_folder(self):
        d = os.path.join(self.area, "dirs", self.name(""))
        os.makedirs(d)
        for _ in range(self.rng.randint(1, 20)):
            with open(os.path.join(d, self.name()), "w") as f:
                f.write(self.text())
        self.dirs.append(d)
        return d

    def moved(self, old, new):
        """Keeps the folder list (and gone paths) in step with a folder's move."""
        self.dirs = [new + d[len(old):] if d == old or d.startswith(old + "/") else d for d in self.dirs]
        self.gone.add(old)

    def movable_dirs(self):
        return [d for d in self.dirs if d not in (self.corpus, os.path.join(self.area, "files"), os.path.join(self.area, "dirs"))]

    def op_rename_folder(self):
        cands = self.movable_dirs()
        if not cands:
            return self.op_make_folder()
        d = self.rng.choice(cands)
        if not os.path.isdir(d):
            self.dirs.remove(d)
            return "vanished"
        new = os.path.join(os.path.dirname(d), os.path.basename(d).split("~")[0] + f"~{self.rng.randint(0, 99999)}")
        os.rename(d, new)
        self.moved(d, new)
        return f"{d} -> {new}"

    def op_move_folder(self):
        cands = self.movable_dirs()
        if len(cands) < 2:
            return self.op_make_folder()
        d = self.rng.choice(cands)
        target = self.rng.choice(cands)
        if not os.path.isdir(d) or not os.path.isdir(target) or target == d or target.startswith(d + "/") \
                or os.path.dirname(d) == target:
            return "skipped (no valid target)"
        new = os.path.join(target, os.path.basename(d))
        if os.path.exists(new):
            return "skipped (name taken)"
        os.rename(d, new)
        self.moved(d, new)
        return f"{d} -> {new}"

    def op_donate(self):
        lines = []
        for _ in range(self.rng.randint(1, 50)):
            self.donate_serial += 1
            ident = f"s-{self.donate_serial}"
            lines.append(json.dumps({"uniqueIdentifier": ident, "attributes": {
                "title": f"soak note {ident} {self.rng.choice(WORDS)}",
                "textContent": self.text(3),
                "keywords": [self.rng.choice(WORDS)]}}))
        self.cmd([os.path.join(self.a.bin, "fsindex"), "donate", "--domain", "soak",
                  "--client-state", f"batch-{self.donate_serial}"], stdin=("\n".join(lines) + "\n").encode())
        for line in lines:
            ident = json.loads(line)["uniqueIdentifier"]
            self.donated.add(ident)
            self.forgotten.discard(ident)
        return f"{len(lines)} items"

    def op_forget(self):
        if not self.donated:
            return self.op_donate()
        ids = self.rng.sample(sorted(self.donated), min(len(self.donated), self.rng.randint(1, 10)))
        args = [os.path.join(self.a.bin, "fsindex"), "forget", "--domain", "soak"]
        for i in ids:
            args += ["--id", i]
        self.cmd(args)
        for i in ids:
            self.donated.discard(i)
            self.forgotten.add(i)
        return f"{len(ids)} items"

    # ---- the period's big events -------------------------------------------------------------
    def ev_git_clone(self):
        self.git_clone = os.path.join(self.area, "git", f"clone-{self.counter}")
        self.counter += 1
        self.cmd(["git", "clone", "--quiet", os.path.join(self.assets, "gitsrc"), self.git_clone])
        self.git_branch = "main"
        return self.git_clone

    def ev_git_checkout(self):
        if not self.git_clone:
            return self.ev_git_clone()
        self.git_branch = "other" if self.git_branch == "main" else "main"
        self.cmd(["git", "checkout", "--quiet", self.git_branch], cwd=self.git_clone)
        return f"{self.git_clone} {self.git_branch}"

    def ev_git_remove(self):
        if self.git_clone:
            shutil.rmtree(self.git_clone)
            self.gone.add(self.git_clone)
            self.git_clone = None
        return ""

    def ev_untar(self):
        self.tar_dir = os.path.join(self.area, "tar", f"x-{self.counter}")
        self.counter += 1
        os.makedirs(self.tar_dir)
        self.cmd(["tar", "-xf", os.path.join(self.assets, "tarball.tar"), "-C", self.tar_dir])
        return self.tar_dir

    def ev_untar_remove(self):
        if self.tar_dir:
            self.cmd(["rm", "-rf", self.tar_dir])
            self.gone.add(self.tar_dir)
            self.tar_dir = None
        return ""

    def ev_big_copy(self):
        self.big_file = os.path.join(self.area, "big", f"big-{self.counter}.bin")
        self.counter += 1
        shutil.copyfile(os.path.join(self.assets, "big.bin"), self.big_file)
        return self.big_file

    def ev_big_remove(self):
        if self.big_file:
            os.unlink(self.big_file)
            self.gone.add(self.big_file)
            self.big_file = None
        return ""

    # ---- the loop ------------------------------------------------------------------------------
    def main(self):
        ops = [(self.op_create, "create", 20), (self.op_modify, "modify", 15), (self.op_append, "append", 15),
               (self.op_rename, "rename", 10), (self.op_delete, "delete", 10), (self.op_editor_save, "editor-save", 10),
               (self.op_make_folder, "make-folder", 3), (self.op_rename_folder, "rename-folder", 2),
               (self.op_move_folder, "move-folder", 2), (self.op_donate, "donate", 2), (self.op_forget, "forget", 1)]
        fns = [o for o in ops for _ in range(o[2])]
        S, P = self.a.seconds, self.a.period or min(self.a.seconds, 1200)
        # (fraction of the period, name, function)
        events = [(0.05, "git-clone", self.ev_git_clone), (0.10, "git-checkout", self.ev_git_checkout),
                  (0.15, "git-checkout", self.ev_git_checkout), (0.20, "untar-20000", self.ev_untar),
                  (0.30, "git-checkout", self.ev_git_checkout), (0.40, "rm-rf-untarred", self.ev_untar_remove),
                  (0.50, "copy-1GB", self.ev_big_copy), (0.60, "git-checkout", self.ev_git_checkout),
                  (0.75, "delete-1GB", self.ev_big_remove), (0.85, "rm-rf-clone", self.ev_git_remove)]
        schedule = sorted((k * P + f * P, n, fn) for k in range(int(S // P) + 1) for f, n, fn in events
                          if k * P + f * P < S)
        interval = 1.0 / self.a.rate
        next_op = 0.0
        while self.now() < S:
            while schedule and schedule[0][0] <= self.now():
                _, n, fn = schedule.pop(0)
                self.run(n, fn)
            fn, n, _ = self.rng.choice(fns)
            self.run(n, fn)
            next_op += interval
            delay = next_op - self.now()
            if delay > 0:
                time.sleep(delay)
            elif delay < -5:  # far behind (a big event): do not rush to catch up
                next_op = self.now()
        # Leave the tree as a user would at the end of the day: the last clone and tarball stay
        # only if their removal came; what exists is what the index must hold.
        exists = lambda p: os.path.lexists(p)
        with open(os.path.join(self.out, "gone.txt"), "w") as f:
            for p in sorted(self.gone):
                if not exists(p):
                    f.write(p + "\n")
        with open(os.path.join(self.out, "donated.txt"), "w") as f:
            f.write("".join(i + "\n" for i in sorted(self.donated)))
        with open(os.path.join(self.out, "forgotten.txt"), "w") as f:
            f.write("".join(i + "\n" for i in sorted(self.forgotten)))
        summary = {"seconds": round(self.now(), 1), "operations": sum(self.counts.values()),
                   "failures": self.failures, "byOperation": dict(sorted(self.counts.items())),
                   "donatedAtEnd": len(self.donated), "forgottenAtEnd": len(self.forgotten)}
        with open(os.path.join(self.out, "churn-summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        print(json.dumps(summary), flush=True)
        return 1 if self.failures else 0


def parse():
    p = argparse.ArgumentParser(description="soak.sh's churn generator")
    p.add_argument("root")
    p.add_argument("assets")
    p.add_argument("bin")
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rate", type=float, default=10.0)
    p.add_argument("--period", type=float, default=0)
    p.add_argument("--out", required=True)
    return p.parse_args()


if __name__ == "__main__":
    sys.exit(Churn(parse()).main())
