#!/usr/bin/env python3
"""Interop check with the official Python SDK (mcp, pinned in requirements.txt).

    py_client.py [--mode modern|legacy|auto] (--url URL | --stdio -- CMD [ARGS...])
                 [--tool NAME] [--args JSON] [--elicit JSON] [--timeout S]

--mode picks the protocol era and how the connection is opened:
  modern  (default) revision 2026-07-28 pinned, so the SDK never sends
          `initialize` and never falls back to it. A pinned client adopts its
          revision without traffic, hence the explicit server/discover.
  legacy  the 2025 handshake: initialize, then notifications/initialized. Over
          HTTP the SDK carries the Mcp-Session-Id it was given and ends the
          session with DELETE when the client closes.
  auto    the SDK's own negotiation: server/discover, and initialize only when
          the server does not answer as a 2026-07-28 server.
Then tools/list and one tools/call (default test_simple_text with the --args
object, default {}), which must succeed with non-empty, non-error content.

Over HTTP, a non-empty MCP_BEARER_TOKEN in the environment is sent as
`Authorization: Bearer <token>` on every request (a default header of the httpx
client the SDK's transport is given); stdio ignores it.

--elicit JSON declares the elicitation capability and accepts every elicitation
with JSON as its content. A legacy server asks with elicitation/create while the
call is open; a modern one returns input_required, which the SDK answers through
the same callback and retries. Without --elicit no capability is declared.

Prints one JSON document: ok, mode, transport, stage (where it stopped),
protocolEra and protocolVersion (what was negotiated), serverInfo, tools, call,
elicitations (with --elicit), error. Exit 0 on success, 1 on failure, 2 on bad
usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from contextlib import AsyncExitStack
from typing import Any

PROTOCOL_VERSION = "2026-07-28"
# Where a run stands while the client is being entered, by mode.
OPENING_STAGE = {"modern": "connect", "legacy": "initialize", "auto": "negotiate"}


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


def json_object(p: argparse.ArgumentParser, text: str, flag: str) -> dict[str, Any]:
    """The JSON object given to a flag; anything else is a usage error."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        p.error(f"{flag} takes a JSON object")
    return value


async def run(opts: argparse.Namespace, out: dict[str, Any]) -> None:
    async with AsyncExitStack() as stack:
        await run_on(opts, out, stack)


async def run_on(opts: argparse.Namespace, out: dict[str, Any], stack: AsyncExitStack) -> None:
    from mcp import Client, StdioServerParameters, types
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    target: Any = opts.url or StdioServerParameters(command=opts.command[0], args=opts.command[1:])
    token = os.environ.get("MCP_BEARER_TOKEN")
    if opts.url and token:
        # The SDK's documented way to add headers: its transport on an httpx client of
        # our own, which the caller opens and closes.
        http = await stack.enter_async_context(create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))
        target = streamable_http_client(opts.url, http_client=http)
        out["bearerToken"] = True
    callback = None
    if opts.elicit is not None:
        out["elicitations"] = []

        async def callback(_context: Any, params: Any) -> Any:
            out["elicitations"].append(dump(params))
            return types.ElicitResult(action="accept", content=opts.elicit)

    client = Client(
        target,
        # A revision as mode pins it; "legacy" and "auto" are the SDK's own modes.
        mode=PROTOCOL_VERSION if opts.mode == "modern" else opts.mode,
        elicitation_callback=callback,
        read_timeout_seconds=opts.timeout,
        client_info=types.Implementation(name="mcp-runtime-ci-py", version="0.1.0"),
        cache=None,
    )
    out["stage"] = OPENING_STAGE[opts.mode]
    async with client:
        session = client.session
        if opts.mode == "modern":
            out["stage"] = "server/discover"
            raw = await session.send_discover(PROTOCOL_VERSION)
            discover = types.DiscoverResult.model_validate(raw)
            session.adopt(discover)
            if PROTOCOL_VERSION not in discover.supported_versions:
                raise RuntimeError(f"server/discover does not list {PROTOCOL_VERSION}: {raw}")
        # The session holds the result of whichever handshake opened it.
        out["protocolEra"] = "legacy" if session.initialize_result is not None else "modern"
        out["protocolVersion"] = client.protocol_version
        out["serverInfo"] = dump(client.server_info) if client.server_info is not None else None
        if opts.mode == "legacy" and out["protocolEra"] != "legacy":
            raise RuntimeError("legacy mode did not open the connection with initialize")

        out["stage"] = "tools/list"
        listed = await client.list_tools()
        out["tools"] = [t.name for t in listed.tools]
        if opts.tool not in out["tools"]:
            raise RuntimeError(f"tools/list has no {opts.tool}")

        out["stage"] = "tools/call"
        result = await client.call_tool(opts.tool, opts.args)
        out["call"] = {"name": opts.tool, "arguments": opts.args, "result": dump(result)}
        if result.is_error or not result.content:
            raise RuntimeError(f"tools/call {opts.tool} did not succeed: {dump(result)}")
    out["stage"] = "done"
    out["ok"] = True


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=tuple(OPENING_STAGE), default="modern", help="protocol era (default: modern)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--url", help="Streamable HTTP endpoint")
    src.add_argument("--stdio", action="store_true", help="start the server command given after `--`")
    p.add_argument("--tool", default="test_simple_text", help="tool to call (default: test_simple_text)")
    p.add_argument("--args", default="{}", help="the call's arguments, a JSON object (default: {})")
    p.add_argument("--elicit", metavar="JSON", help="accept every elicitation with this JSON object")
    p.add_argument("--timeout", type=float, default=15.0, help="seconds per request (the run: 4x)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="server command for --stdio, after `--`")
    opts = p.parse_args()
    if opts.command[:1] == ["--"]:
        opts.command = opts.command[1:]
    if opts.stdio != bool(opts.command):
        p.error("--stdio takes a server command after `--`, and only --stdio does")
    opts.args = json_object(p, opts.args, "--args")
    if opts.elicit is not None:
        opts.elicit = json_object(p, opts.elicit, "--elicit")

    out: dict[str, Any] = {"ok": False, "client": "python mcp", "mode": opts.mode, "stage": "start"}
    out["transport"] = "streamable-http" if opts.url else "stdio"
    try:
        asyncio.run(asyncio.wait_for(run(opts, out), timeout=opts.timeout * 4))
    except (Exception, asyncio.CancelledError) as exc:  # every failure is reported as JSON
        out["error"] = describe(exc) if str(exc) else f"timed out or cancelled at stage {out['stage']}"
    print(json.dumps(out, indent=2, default=str))
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
