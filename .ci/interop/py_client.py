#!/usr/bin/env python3
"""Interop check with the official Python SDK (mcp, pinned in requirements.txt).

    py_client.py [--mode modern] (--url URL | --stdio -- CMD [ARGS...]) [--tool NAME] [--timeout S]

--mode modern (the only mode so far): revision 2026-07-28 pinned, so the SDK
never sends `initialize` and never falls back to it. Sequence: server/discover,
tools/list, tools/call of one tool (default: test_simple_text) without
arguments. The call must succeed with a non-empty, non-error result.

Prints one JSON document (what was seen, or `error` and the `stage` it
stopped at). Exit 0 on success, 1 on failure, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

PROTOCOL_VERSION = "2026-07-28"


def dump(model: Any) -> Any:
    """A pydantic model as wire JSON (camelCase, no nulls)."""
    if hasattr(model, "model_dump"):
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return model


def describe(exc: BaseException) -> str:
    """One line for an exception, flattening exception groups."""
    inner = getattr(exc, "exceptions", None)
    if inner:
        return "; ".join(describe(e) for e in inner)
    code = getattr(getattr(exc, "error", None), "code", None)
    return f"{type(exc).__name__}{f'[{code}]' if code is not None else ''}: {exc}"


async def modern(opts: argparse.Namespace, out: dict[str, Any]) -> None:
    from mcp import Client, StdioServerParameters, types

    target: Any = opts.url or StdioServerParameters(command=opts.command[0], args=opts.command[1:])
    out["stage"] = "connect"
    # A pinned revision is adopted without traffic: no initialize, no fallback.
    client = Client(
        target,
        mode=PROTOCOL_VERSION,
        read_timeout_seconds=opts.timeout,
        client_info=types.Implementation(name="mcp-runtime-ci-py", version="0.1.0"),
        cache=None,
    )
    async with client:
        out["stage"] = "server/discover"
        raw = await client.session.send_discover(PROTOCOL_VERSION)
        discover = types.DiscoverResult.model_validate(raw)
        client.session.adopt(discover)
        if PROTOCOL_VERSION not in discover.supported_versions:
            raise RuntimeError(f"server/discover does not list {PROTOCOL_VERSION}: {raw}")
        out["serverInfo"] = dump(client.server_info) if client.server_info is not None else None

        out["stage"] = "tools/list"
        listed = await client.list_tools()
        out["tools"] = [t.name for t in listed.tools]
        if opts.tool not in out["tools"]:
            raise RuntimeError(f"tools/list has no {opts.tool}")

        out["stage"] = "tools/call"
        result = await client.call_tool(opts.tool, {})
        out["call"] = {"name": opts.tool, "result": dump(result)}
        if result.is_error or not result.content:
            raise RuntimeError(f"tools/call {opts.tool} did not succeed: {dump(result)}")
    out["stage"] = "done"
    out["ok"] = True


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=("modern",), default="modern", help="protocol era (default: modern)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--url", help="Streamable HTTP endpoint")
    src.add_argument("--stdio", action="store_true", help="start the server command given after `--`")
    p.add_argument("--tool", default="test_simple_text", help="tool to call without arguments")
    p.add_argument("--timeout", type=float, default=15.0, help="seconds per request (the run: 4x)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="server command for --stdio, after `--`")
    opts = p.parse_args()
    if opts.command[:1] == ["--"]:
        opts.command = opts.command[1:]
    if opts.stdio != bool(opts.command):
        p.error("--stdio takes a server command after `--`, and only --stdio does")

    out: dict[str, Any] = {"ok": False, "client": "python mcp", "mode": opts.mode, "stage": "start"}
    out["transport"] = "streamable-http" if opts.url else "stdio"
    run = {"modern": modern}[opts.mode]
    try:
        asyncio.run(asyncio.wait_for(run(opts, out), timeout=opts.timeout * 4))
    except (Exception, asyncio.CancelledError) as exc:  # every failure is reported as JSON
        out["error"] = describe(exc) if str(exc) else f"timed out or cancelled at stage {out['stage']}"
    print(json.dumps(out, indent=2, default=str))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
