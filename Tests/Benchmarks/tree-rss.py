#!/usr/bin/env python3
"""tree-rss.py: run a command and sample the memory of its whole process tree.

Usage: tree-rss.py [--interval SECONDS] [--json FILE] -- COMMAND [ARG...]

Every INTERVAL seconds (default 0.1) the resident set (VmRSS) of the command and of every
process below it (its extraction workers, their children) is read from /proc and summed.
What a user's machine pays for an index is the sum, not the parent alone: `/usr/bin/time`'s
peak RSS is the largest single process, and fsindex's workers are separate processes.

Prints on stderr one line, and with --json writes an object:
  peak_total_kib      the largest sum of one sample
  peak_parent_kib     the command's own largest VmRSS
  peak_process_kib    the largest VmRSS of any one process
  max_processes       the most processes alive in one sample
  samples             how many samples were taken
  wall_seconds        the command's wall time
  exit_status         the command's exit status (also this script's)
  write_bytes         bytes the tree caused to be written to storage (/proc/PID/io, summed over
                      the processes' last samples: a process that ends between two samples
                      loses at most its last 0.1 s)
Why a sampler of our own: `time`, `ps` and cgroups either see one process or need root and a
systemd scope; /proc is there on every Linux, for every user.
"""
import json
import os
import subprocess
import sys
import time


def children_map():
    """pid -> parent pid, for every process now alive."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold spaces or ')': split after the last one.
        rest = data[data.rfind(b")") + 2:].split()
        if len(rest) > 1:
            parents[int(entry)] = int(rest[1])
    return parents


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0  # gone, or a zombie (no VmRSS line)


def write_bytes(pid):
    try:
        with open(f"/proc/{pid}/io", "rb") as f:
            for line in f:
                if line.startswith(b"write_bytes:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def tree(root, parents):
    below = {}
    for pid, ppid in parents.items():
        below.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(below.get(pid, []))
    return out


def main(argv):
    interval, json_path = 0.1, None
    args = argv[1:]
    while args and args[0] != "--":
        if args[0] == "--interval" and len(args) > 1:
            interval = float(args[1]); args = args[2:]
        elif args[0] == "--json" and len(args) > 1:
            json_path = args[1]; args = args[2:]
        else:
            print(f"tree-rss.py: unknown argument {args[0]!r}\n{__doc__}", file=sys.stderr)
            return 2
    if not args or len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command = args[1:]
    start = time.monotonic()
    proc = subprocess.Popen(command)
    peak_total = peak_parent = peak_process = max_processes = samples = 0
    written = {}   # pid -> the last write_bytes seen
    while True:
        done = proc.poll() is not None
        if done:
            break
        pids = tree(proc.pid, children_map())
        sizes = [rss_kib(p) for p in pids]
        total = sum(sizes)
        samples += 1
        peak_total = max(peak_total, total)
        peak_parent = max(peak_parent, sizes[0] if sizes else 0)
        peak_process = max([peak_process] + sizes)
        max_processes = max(max_processes, sum(1 for s in sizes if s > 0))
        for p in pids:
            w = write_bytes(p)
            if w is not None:
                written[p] = w
        time.sleep(interval)
    wall = time.monotonic() - start
    result = {
        "peak_total_kib": peak_total, "peak_parent_kib": peak_parent, "peak_process_kib": peak_process,
        "max_processes": max_processes, "samples": samples, "wall_seconds": round(wall, 3),
        "exit_status": proc.returncode, "write_bytes": sum(written.values()),
    }
    print(f"tree-rss: peak {peak_total / 1024:.1f} MiB for the whole tree (command {peak_parent / 1024:.1f} MiB, "
          f"largest process {peak_process / 1024:.1f} MiB, up to {max_processes} processes, {samples} samples, "
          f"{wall:.2f} s; {sum(written.values()) / 1048576:.0f} MiB written)", file=sys.stderr)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(result, f)
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
