"""The peer server of the benchmark written with the official Python MCP SDK
(`mcp` 2.x) as its documentation shows: an `MCPServer` (what 1.x called
`FastMCP`, `mcp.server.fastmcp` in 1.x) served over Streamable HTTP at `/mcp`
by uvicorn on the ASGI app `mcp.streamable_http_app()` ("Add to an existing
app" and "Deploy & scale" in the SDK's documentation), with two
`@mcp.tool()`s:

- `echo` takes `text: str` and returns it (no I/O);
- `lookup` takes `key: str`, reads it from Redis (`GET`), then fetches
  `BENCH_HTTP_URL`, and returns `<value> <body>`: the I/O-bound workload.
  Its clients come from the server's lifespan (the SDK's "Lifespan"
  example), which runs once per process, so every worker has its own and
  shares them across its requests: a `redis.asyncio.Redis.from_url` on
  `BENCH_REDIS_URL` (it connects on first use, from its pool) and an
  `httpx2.AsyncClient` (the HTTP client `mcp` itself depends on), both
  keeping their connections alive. Without either variable the server starts
  and lists `lookup` all the same, and a call answers a tool error naming
  what is missing, so `echo` runs need neither.

By default `stateless_http=True, json_response=True`. With `BENCH_SESSIONS=1`
in the environment, `stateless_http=False`: 2025-era clients then get a
session (`Mcp-Session-Id`, kept in the worker's memory), still answered with
JSON. The SDK routes each request by its `MCP-Protocol-Version` header
before it reads `stateless_http`: a 2026-07-28 request is served
statelessly by its modern handler in either mode, so the flag only changes
the 2025-era leg.

Two ways to run it, the same app either way (the mode is read from the
environment because uvicorn's workers import the app by name):

    [BENCH_REDIS_URL=redis://HOST:PORT BENCH_HTTP_URL=http://HOST:PORT/PATH] \
    BENCH_SESSIONS=1 uvicorn --app-dir bench/peers/python server:app \
        --host 127.0.0.1 --port PORT --workers N --no-access-log
    python bench/peers/python/server.py http 127.0.0.1:PORT [--sessions] [--workers N]

The second sets `BENCH_SESSIONS` and calls `uvicorn.run("server:app", ...)`
with the access log off (uvicorn logs every request by default, work no
other server in the benchmark does). With several workers uvicorn's master
process only supervises: the workers, its children, serve the requests.
"""

import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx2
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from redis.asyncio import Redis

SESSIONS = os.environ.get("BENCH_SESSIONS", "") not in ("", "0")
REDIS_URL = os.environ.get("BENCH_REDIS_URL") or None
HTTP_URL = os.environ.get("BENCH_HTTP_URL") or None


@dataclass
class Clients:
    """What `lookup` reuses across calls."""

    redis: Redis | None
    http: httpx2.AsyncClient


@asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[Clients]:
    redis = Redis.from_url(REDIS_URL, decode_responses=True) if REDIS_URL else None
    async with httpx2.AsyncClient() as http:
        try:
            yield Clients(redis=redis, http=http)
        finally:
            if redis is not None:
                await redis.aclose()


mcp = MCPServer("bench-python", lifespan=lifespan)
# `MCPServer` sets the root logger to INFO, at which httpx2 logs every request
# it sends: a log line per `lookup` call, work no other server in the
# benchmark does (as uvicorn's access log, turned off below).
logging.getLogger("httpx2").setLevel(logging.WARNING)


# `async def`: the SDK awaits it on the event loop. A plain `def` tool (what
# the documentation suggests for work without I/O) is run in a worker thread
# instead, which cost about 110 µs more server CPU per call here and made the
# 99th percentile twice as long; both forms are documented ("Tools"), and the
# benchmark gives every peer the cheaper of its documented forms.
@mcp.tool()
async def echo(text: str) -> str:
    """Echoes the text back."""
    return text


@mcp.tool()
async def lookup(key: str, ctx: Context[Clients]) -> str:
    """Reads a key from Redis and calls an HTTP endpoint."""
    missing = [name for name, value in (("BENCH_REDIS_URL", REDIS_URL), ("BENCH_HTTP_URL", HTTP_URL)) if not value]
    if missing:
        raise ToolError(f"lookup is not configured: {' and '.join(missing)} not set")
    clients = ctx.request_context.lifespan_context
    value = await clients.redis.get(key)
    if value is None:
        raise ToolError(f"No key {key!r} in Redis")
    response = await clients.http.get(HTTP_URL)
    response.raise_for_status()
    return f"{value} {response.text}"


app = mcp.streamable_http_app(stateless_http=not SESSIONS, json_response=True)


def main() -> None:
    import uvicorn

    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "http":
        sys.exit("usage: server.py http HOST:PORT [--sessions] [--workers N]")
    host, _, port = args[1].rpartition(":")
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
    if "--sessions" in args:
        os.environ["BENCH_SESSIONS"] = "1"
    else:
        os.environ.pop("BENCH_SESSIONS", None)
    uvicorn.run(
        "server:app",
        app_dir=os.path.dirname(os.path.abspath(__file__)),
        host=host,
        port=int(port),
        workers=workers,
        access_log=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
