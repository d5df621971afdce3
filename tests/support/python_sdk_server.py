"""A server written with the official Python SDK (mcp, pinned in .ci/interop/requirements.txt),
for tests/client_python.rs: a tool `echo` and a resource `docs://readme`.

    python_sdk_server.py            newline-delimited JSON on stdin and stdout
    python_sdk_server.py --http     Streamable HTTP on a loopback port of the system's choice,
                                    whose URL is the first line written to stdout
"""

import socket
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("python-sdk-server", version="1.0.0", instructions="Call echo.")


@server.tool()
def echo(text: str) -> str:
    """Echoes the text back."""
    return text


@server.resource("docs://readme")
def readme() -> str:
    """The readme."""
    return "# From Python"


def serve_http() -> None:
    # Bound before the URL is told: a request sent at once waits in the backlog.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])


if __name__ == "__main__":
    if sys.argv[1:] == ["--http"]:
        serve_http()
    else:
        server.run("stdio")
