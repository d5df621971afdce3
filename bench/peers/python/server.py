"""The echo server of the benchmark written with the official Python MCP SDK
(`mcp` 2.x) as its documentation shows: an `MCPServer` (what 1.x called
`FastMCP`, `mcp.server.fastmcp` in 1.x) with one `@mcp.tool()` taking
`text: str` and returning it, served over Streamable HTTP at `/mcp` by
uvicorn on the ASGI app `mcp.streamable_http_app()` ("Add to an existing
app" and "Deploy & scale" in the SDK's documentation).

By default `stateless_http=True, json_response=True`. With `BENCH_SESSIONS=1`
in the environment, `stateless_http=False`: 2025-era clients then get a
session (`Mcp-Session-Id`, kept in the worker's memory), still answered with
JSON. The SDK routes each request by its `MCP-Protocol-Version` header
before it reads `stateless_http`: a 2026-07-28 request is served
statelessly by its modern handler in either mode, so the flag only changes
the 2025-era leg.

Two ways to run it, the same app either way (the mode is read from the
environment because uvicorn's workers import the app by name):

    BENCH_SESSIONS=1 uvicorn --app-dir bench/peers/python server:app \
        --host 127.0.0.1 --port PORT --workers N --no-access-log
    python bench/peers/python/server.py http 127.0.0.1:PORT [--sessions] [--workers N]

The second sets `BENCH_SESSIONS` and calls `uvicorn.run("server:app", ...)`
with the access log off (uvicorn logs every request by default, work no
other server in the benchmark does). With several workers uvicorn's master
process only supervises: the workers, its children, serve the requests.
"""

import os
import sys

from mcp.server import MCPServer

SESSIONS = os.environ.get("BENCH_SESSIONS", "") not in ("", "0")

mcp = MCPServer("bench-python")


# `async def`: the SDK awaits it on the event loop. A plain `def` tool (what
# the documentation suggests for work without I/O) is run in a worker thread
# instead, which cost about 110 µs more server CPU per call here and made the
# 99th percentile twice as long; both forms are documented ("Tools"), and the
# benchmark gives every peer the cheaper of its documented forms.
@mcp.tool()
async def echo(text: str) -> str:
    """Echoes the text back."""
    return text


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
