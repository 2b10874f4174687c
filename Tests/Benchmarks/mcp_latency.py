"""Times fsindex-mcp's tools through the official MCP Python client: one server, warm, and RUNS
calls of each query; prints `query <TAB> median_ms <TAB> p95_ms <TAB> returned` per query.

Usage: mcp_latency.py RUNS SERVER [ARGS...] < queries (one per line)
"""
import asyncio, os, statistics, sys, time
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    runs = int(sys.argv[1])
    queries = [q for q in sys.stdin.read().splitlines() if q.strip()]
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            await s.list_tools()
            for q in queries:
                res = await s.call_tool("search", {"query": q})  # warm-up
                times = []
                for _ in range(runs):
                    t = time.perf_counter()
                    res = await s.call_tool("search", {"query": q})
                    times.append((time.perf_counter() - t) * 1000)
                times.sort()
                p95 = times[min(len(times) - 1, int(round(0.95 * len(times) + 0.5)) - 1)]
                n = (res.structured_content or {}).get("returned", "error" if res.is_error else 0)
                print(f"{q}\t{statistics.median(times):.1f}\t{p95:.1f}\t{n}", flush=True)


asyncio.run(main())
