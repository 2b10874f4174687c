"""soak_queries.py: the query load of soak.sh, through fsfind and fsindex-mcp at once.

Usage: python (with the MCP SDK) soak_queries.py BIN SCOPE --seconds S --out DIR
                [--seed N] [--rate Q] [--burst N] [--bursts K] [--concurrency C]
                [--mcp-sessions M] [--mcp-share F]

Keeps M (2) fsindex-mcp sessions open (the official MCP Python SDK's stdio client, as an
agent's host runs it; each session answers one call at a time) and starts fsfind processes
beside them; a share F (0.4) of the queries go to MCP, taking the sessions in turn. For S seconds it issues about Q queries a second
(default 50, on average over the run: the steady rate is lowered by what the bursts add), each to
fsfind or to an MCP tool (search, count, table) drawn by random.Random(seed); K times (spread
over the run) it fires a burst of N (5,000) queries as fast as C in flight allow.
Every query is recorded in DIR/queries.csv (t, channel, ms, ok, detail): ok means fsfind exited
0 or 1 (found, nothing found) within 30 s, or the MCP tool answered without isError.
DIR/queries-summary.json holds the counts, failures, median and p99 per channel and overall.
Exit status 0 when every query was answered, 1 otherwise.
"""
import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

QUERIES = ["soak", "budget report", "license", "copyright", "python", "struct", "kind:pdf", "kind:code",
           "kind:text", "kind:document", "README", "invoice -draft", "size:>1MB", "modified:>2020-01-01", "alpha bravo",
           "function", "kind:image", "name:soak", "quarterly summary", "swift", "rust", "the", "xray zulu",
           "kMDItemFSSize > 100000", "domain:soak soak", "meeting", "include", "html", "tango"]
TIMEOUT = 30.0


def pct(sorted_values, p):
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return round(sorted_values[k], 1)


class Load:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.rows = []  # (t, channel, ms, ok, detail)
        self.t0 = time.monotonic()
        self.log = open(os.path.join(a.out, "queries.csv"), "w", buffering=1 << 16)
        self.log.write("t,channel,ms,ok,detail\n")

    def record(self, channel, started, ok, detail=""):
        ms = (time.monotonic() - started) * 1000
        self.rows.append((channel, ms, ok))
        detail = detail.replace("\n", " ").replace(",", ";")[:200]
        self.log.write(f"{started - self.t0:.3f},{channel},{ms:.2f},{1 if ok else 0},{detail}\n")
        if not ok:
            print(f"soak_queries: {channel} failed: {detail}", file=sys.stderr, flush=True)

    async def fsfind(self, q):
        started = time.monotonic()
        try:
            p = await asyncio.create_subprocess_exec(os.path.join(self.a.bin, "fsfind"), "--limit", "20", "--", *q.split(),
                                                     stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
            try:
                _, err = await asyncio.wait_for(p.communicate(), TIMEOUT)
            except asyncio.TimeoutError:
                p.kill()
                await p.wait()
                return self.record("fsfind", started, False, f"timeout: {q}")
            self.record("fsfind", started, p.returncode in (0, 1),
                        f"exit {p.returncode}: {q}: {err.decode(errors='replace')[-150:]}" if p.returncode not in (0, 1) else "")
        except Exception as e:
            self.record("fsfind", started, False, f"{type(e).__name__}: {e}")

    async def mcp(self, session, q, tool):
        started = time.monotonic()
        args = {"query": q}
        if tool == "table":
            args["groupBy"] = "kind"
        try:
            res = await asyncio.wait_for(session.call_tool(tool, args), TIMEOUT)
            text = "".join(getattr(c, "text", "") for c in res.content)
            self.record("mcp-" + tool, started, not res.is_error, "" if not res.is_error else f"{q}: {text[:150]}")
        except Exception as e:
            self.record("mcp-" + tool, started, False, f"{type(e).__name__}: {e}: {q}")

    def one(self, sessions):
        q = self.rng.choice(QUERIES)
        r = self.rng.random()
        if r >= self.a.mcp_share:
            return self.fsfind(q)
        self.turn = (getattr(self, "turn", 0) + 1) % len(sessions)
        r /= self.a.mcp_share
        return self.mcp(sessions[self.turn], q, "search" if r < 0.6 else ("count" if r < 0.8 else "table"))

    async def burst(self, session, n):
        sem = asyncio.Semaphore(self.a.concurrency)

        async def guarded(coro):
            async with sem:
                await coro

        started = time.monotonic()
        tasks = []
        for _ in range(n):
            await sem.acquire()
            sem.release()
            tasks.append(asyncio.create_task(guarded(self.one(session))))
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
        print(f"soak_queries: burst of {n} in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)

    async def main(self):
        a = self.a
        S = a.seconds
        steady = max(5.0, a.rate - a.bursts * a.burst / S)
        burst_at = [S * (k + 0.5) / a.bursts for k in range(a.bursts)] if a.bursts else []
        params = StdioServerParameters(command=os.path.join(a.bin, "fsindex-mcp"),
                                       args=["--scope", a.scope, "--max-results", "20"], env=dict(os.environ))
        async with contextlib.AsyncExitStack() as stack:
            session = []
            for _ in range(a.mcp_sessions):
                r, w = await stack.enter_async_context(stdio_client(params))
                s = await stack.enter_async_context(ClientSession(r, w))
                await s.initialize()
                session.append(s)
            inflight = set()
            interval, nxt = 1.0 / steady, 0.0
            while True:
                now = time.monotonic() - self.t0
                if now >= S:
                    break
                if burst_at and burst_at[0] <= now:
                    burst_at.pop(0)
                    await self.burst(session, a.burst)
                    nxt = time.monotonic() - self.t0
                    continue
                if len(inflight) < a.concurrency:
                    t = asyncio.create_task(self.one(session))
                    inflight.add(t)
                    t.add_done_callback(inflight.discard)
                nxt += interval
                delay = nxt - (time.monotonic() - self.t0)
                if delay > 0:
                    await asyncio.sleep(delay)
                elif delay < -5:
                    nxt = time.monotonic() - self.t0
            if inflight:
                await asyncio.gather(*inflight)
        self.log.flush()
        elapsed = time.monotonic() - self.t0
        summary = {"seconds": round(elapsed, 1), "steadyRate": round(steady, 1)}
        for channel in ["all", "fsfind", "mcp-search", "mcp-count", "mcp-table"]:
            rows = [r for r in self.rows if channel == "all" or r[0] == channel]
            ms = sorted(r[1] for r in rows)
            summary[channel] = {"count": len(rows), "failed": sum(1 for r in rows if not r[2]),
                                "median_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "max_ms": round(ms[-1], 1) if ms else None}
        summary["perSecond"] = round(len(self.rows) / max(elapsed, 1e-9), 1)
        with open(os.path.join(a.out, "queries-summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        print(json.dumps(summary), flush=True)
        return 1 if summary["all"]["failed"] else 0


def parse():
    p = argparse.ArgumentParser(description="soak.sh's query load")
    p.add_argument("bin")
    p.add_argument("scope")
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rate", type=float, default=50.0)
    p.add_argument("--burst", type=int, default=5000)
    p.add_argument("--bursts", type=int, default=1)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--mcp-sessions", type=int, default=2)
    p.add_argument("--mcp-share", type=float, default=0.4)
    return p.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(Load(parse()).main()))
