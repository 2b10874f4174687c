"""Drives fsindex-mcp with the official MCP Python SDK's stdio client, for the Swift tests.

Usage: mcp_driver.py PLAN.json SERVER [ARGS...]

The plan is a list of steps; the result (stdout, JSON) is one entry per step, so the tests
assert in Swift on what a real client saw. The SDK itself checks each tool result against the
tool's output schema, so a reply that breaks its schema fails here.
"""
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
import mcp.types as types


def dump(model):
    return None if model is None else model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    plan = json.load(open(sys.argv[1]))
    # The server gets this environment whole (the SDK passes only a few variables otherwise).
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
    updates = []  # (time, uri)

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append((time.monotonic(), message.params.uri))

    results = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w, message_handler=on_message) as s:
            init = await s.initialize()
            results.append({"op": "init", "protocol": init.protocol_version, "name": init.server_info.name,
                            "capabilities": dump(init.capabilities)})
            for step in plan:
                op = step["op"]
                out = {"op": op}
                try:
                    if op == "list_tools":
                        tools = (await s.list_tools()).tools
                        out["tools"] = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema,
                                         "outputSchema": t.output_schema} for t in tools]
                    elif op == "call":
                        progress = []

                        async def on_progress(p, total, message):
                            progress.append([p, total, message])

                        res = await s.call_tool(step["tool"], step.get("args", {}),
                                                progress_callback=on_progress if step.get("progress") else None)
                        out.update({"isError": bool(res.is_error), "text": "".join(c.text for c in res.content if c.type == "text"),
                                    "structured": res.structured_content, "progress": progress})
                    elif op == "list_resources":
                        out["resources"] = [{"uri": str(x.uri), "name": x.name} for x in (await s.list_resources()).resources]
                    elif op == "read_resource":
                        res = await s.read_resource(step["uri"])
                        out["contents"] = [{"uri": str(c.uri), "text": getattr(c, "text", None)} for c in res.contents]
                    elif op == "subscribe":
                        await s.subscribe_resource(step["uri"])
                        out["ok"] = True
                    elif op == "write_file":
                        with open(step["path"], "w") as f:
                            f.write(step["content"])
                        out["at"] = time.monotonic()
                    elif op == "wait_update":
                        deadline = time.monotonic() + step.get("timeout", 30)
                        while time.monotonic() < deadline and not any(u == step["uri"] for _, u in updates):
                            await asyncio.sleep(0.1)
                        out["updated"] = any(u == step["uri"] for _, u in updates)
                        out["updates"] = [u for _, u in updates]
                    else:
                        out["error"] = "unknown step " + op
                except Exception as e:  # what the client raised is part of the result
                    out["error"] = f"{type(e).__name__}: {e}"
                results.append(out)
    json.dump(results, sys.stdout)


asyncio.run(main())
